package io.pqssh.core.sig.sshsig;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * SSHSIG (OpenSSH PROTOCOL.sshsig), as {@code ssh-keygen -Y sign/verify}: the signature key signs
 * <pre>"SSHSIG" || string namespace || string reserved || string hash_algorithm || string H(message)</pre>
 * and the result is the blob
 * <pre>"SSHSIG" || uint32 1 || string publickey || string namespace || string reserved || string hash_algorithm
 *   || string signature</pre>
 * armored between {@code -----BEGIN SSH SIGNATURE-----} lines. Signing uses SHA-512; verification accepts SHA-512
 * and SHA-256. Works with every {@link io.pqssh.core.sig.SignatureKeyType}.
 */
public final class SshSig {
    public static final String BEGIN = "-----BEGIN SSH SIGNATURE-----";
    public static final String END = "-----END SSH SIGNATURE-----";
    public static final String SHA512 = "sha512";
    public static final String SHA256 = "sha256";
    public static final List<String> HASH_ALGORITHMS = List.of(SHA512, SHA256);
    private static final byte[] MAGIC = "SSHSIG".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;
    private static final int LINE = 70;

    private SshSig() {
    }

    /** The parts of an SSHSIG blob. */
    public record Parsed(SshPublicKey publicKey, String namespace, byte[] reserved, String hashAlgorithm,
            byte[] signature) {
        public Parsed {
            reserved = reserved.clone();
            signature = signature.clone();
        }

        @Override
        public byte[] reserved() {
            return reserved.clone();
        }

        /** The inner SSH signature blob ({@code string name, string sig}). */
        @Override
        public byte[] signature() {
            return signature.clone();
        }

        /**
         * Checks the signature over {@code message} by the embedded key, for {@code namespace}. A different
         * namespace or a bad signature gives {@code false}; a malformed inner signature blob is an exception.
         */
        public boolean verify(byte[] message, String namespace) throws MalformedMessageException {
            try {
                return verify(new ByteArrayInputStream(message), namespace);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public boolean verify(InputStream message, String namespace) throws MalformedMessageException, IOException {
            if (!this.namespace.equals(namespace)) {
                return false;
            }
            byte[] signed = signedData(this.namespace, reserved, hashAlgorithm, hash(hashAlgorithm, message));
            return publicKey.verify(signed, signature);
        }
    }

    // ---- signing ----

    /** An armored SSHSIG of {@code message} with SHA-512 (as {@code ssh-keygen -Y sign -n namespace}). */
    public static String sign(SshSigningKey key, String namespace, byte[] message) {
        return armor(signBlob(key, namespace, message));
    }

    public static byte[] signBlob(SshSigningKey key, String namespace, byte[] message) {
        try {
            return signBlob(key, namespace, SHA512, new ByteArrayInputStream(message));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (MalformedMessageException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The raw (unarmored) SSHSIG blob; {@code hashAlgorithm} is {@code sha512} or {@code sha256}. */
    public static byte[] signBlob(SshSigningKey key, String namespace, String hashAlgorithm, InputStream message)
            throws IOException, MalformedMessageException {
        if (namespace == null || namespace.isEmpty()) {
            throw new IllegalArgumentException("SSHSIG namespace must not be empty");
        }
        byte[] reserved = new byte[0];
        byte[] signed = signedData(namespace, reserved, hashAlgorithm, hash(hashAlgorithm, message));
        byte[] sig = key.sign(signed);
        return new SshWriter(sig.length + 2048)
                .putRaw(MAGIC)
                .putUint32(VERSION)
                .putString(key.publicKeyBlob())
                .putString(namespace)
                .putString(reserved)
                .putString(hashAlgorithm)
                .putString(sig)
                .toByteArray();
    }

    // ---- verification ----

    /**
     * Verifies an armored SSHSIG of {@code message} for {@code namespace} made by {@code signer} (as
     * {@code ssh-keygen -Y verify} with one allowed signer). Malformed input is an exception; a wrong key, wrong
     * namespace or bad signature gives {@code false}.
     */
    public static boolean verify(String armored, byte[] message, String namespace, SshPublicKey signer)
            throws MalformedMessageException {
        Parsed p = parse(armored);
        return p.publicKey().equals(signer) & p.verify(message, namespace);
    }

    public static Parsed parse(String armored) throws MalformedMessageException {
        return parse(dearmor(armored));
    }

    public static Parsed parse(byte[] blob) throws MalformedMessageException {
        try {
            return parseBlob(blob);
        } catch (MalformedMessageException e) {
            throw e.getMessage().startsWith("SSHSIG") ? e : new MalformedMessageException("SSHSIG blob: "
                    + e.getMessage());
        }
    }

    private static Parsed parseBlob(byte[] blob) throws MalformedMessageException {
        SshReader r = new SshReader(blob);
        byte[] magic = r.remaining() >= MAGIC.length ? r.getRaw(MAGIC.length) : new byte[0];
        if (!Arrays.equals(magic, MAGIC)) {
            throw new MalformedMessageException("SSHSIG blob: bad magic preamble");
        }
        long version = r.getUint32();
        if (version != VERSION) {
            throw new MalformedMessageException("SSHSIG blob: unsupported version " + version);
        }
        SshPublicKey pk = SshPublicKey.decode(r.getString());
        String namespace = r.getUtf8();
        byte[] reserved = r.getString();
        String hashAlg = r.getUtf8();
        byte[] sig = r.getString();
        r.expectEnd("SSHSIG blob");
        if (!HASH_ALGORITHMS.contains(hashAlg)) {
            throw new MalformedMessageException("SSHSIG blob: unsupported hash algorithm \"" + hashAlg + "\"");
        }
        return new Parsed(pk, namespace, reserved, hashAlg, sig);
    }

    // ---- armor ----

    public static String armor(byte[] blob) {
        String b64 = Base64.getEncoder().encodeToString(blob);
        StringBuilder sb = new StringBuilder(b64.length() + 80).append(BEGIN).append('\n');
        for (int i = 0; i < b64.length(); i += LINE) {
            sb.append(b64, i, Math.min(b64.length(), i + LINE)).append('\n');
        }
        return sb.append(END).append('\n').toString();
    }

    public static byte[] dearmor(String armored) throws MalformedMessageException {
        String s = armored.strip();
        if (!s.startsWith(BEGIN)) {
            throw new MalformedMessageException("SSH signature armor: missing " + BEGIN);
        }
        if (!s.endsWith(END) || s.length() < BEGIN.length() + END.length()) {
            throw new MalformedMessageException("SSH signature armor: missing " + END);
        }
        String body = s.substring(BEGIN.length(), s.length() - END.length()).replaceAll("\\s+", "");
        try {
            return Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException("SSH signature armor: bad base64");
        }
    }

    // ---- helpers ----

    static byte[] signedData(String namespace, byte[] reserved, String hashAlg, byte[] digest) {
        return new SshWriter(128 + digest.length)
                .putRaw(MAGIC)
                .putString(namespace)
                .putString(reserved)
                .putString(hashAlg)
                .putString(digest)
                .toByteArray();
    }

    static byte[] hash(String alg, InputStream in) throws IOException, MalformedMessageException {
        MessageDigest md;
        try {
            md = switch (alg) {
                case SHA512 -> MessageDigest.getInstance("SHA-512");
                case SHA256 -> MessageDigest.getInstance("SHA-256");
                default -> throw new MalformedMessageException("unsupported SSHSIG hash algorithm \"" + alg + "\"");
            };
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) > 0;) {
            md.update(buf, 0, n);
        }
        return md.digest();
    }
}
