package io.pqssh.core.keys.openssh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.AEADBadTagException;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.PassphraseRequiredException;
import io.pqssh.core.keys.PrivateKeyCodec;
import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.UnsupportedKeyTypeException;
import io.pqssh.core.keys.WrongPassphraseException;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The {@code openssh-key-v1} private key container (OpenSSH's PROTOCOL.key), read and written:
 *
 * <pre>
 * "openssh-key-v1\0"  string ciphername  string kdfname  string kdfoptions  uint32 nkeys(=1)
 * string publickey  string encrypted_private_section  [AEAD tag]
 * private section: uint32 checkint, uint32 checkint, string keytype, fields..., string comment, padding 1,2,3,...
 * </pre>
 *
 * Unencrypted files use cipher and kdf {@code none}; encrypted ones kdf {@code bcrypt} (bcrypt_pbkdf with
 * {@code string salt, uint32 rounds}) and, by default, {@code aes256-ctr}. Passphrases are used as their UTF-8
 * bytes, as OpenSSH uses what the terminal delivers. The private fields are read by the codec that
 * {@link PrivateKeyCodecs#forType} finds for the key type.
 */
public final class OpenSshKeyV1 {
    public static final String BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----";
    public static final String END = "-----END OPENSSH PRIVATE KEY-----";
    static final byte[] MAGIC = "openssh-key-v1\0".getBytes(StandardCharsets.US_ASCII);
    /** ssh-keygen's defaults for new files. */
    public static final int DEFAULT_ROUNDS = 16;
    public static final int DEFAULT_SALT_BYTES = 16;
    /** Upper bound on KDF rounds we accept when reading, so that a hostile file cannot make us spin for hours. */
    public static final int MAX_ROUNDS = 1 << 16;
    private static final int LINE_WIDTH = 70;

    private OpenSshKeyV1() {
    }

    // ---------------------------------------------------------------- reading

    /** Whether the armored file is encrypted (cipher other than {@code none}); no passphrase needed. */
    public static boolean isEncrypted(String armored) throws KeyFileException {
        return !header(dearmor(armored)).cipher.equals(OpenSshCipher.NONE);
    }

    /** The public key blob from the file's unencrypted header; no passphrase needed. */
    public static byte[] publicKeyBlob(String armored) throws KeyFileException {
        return header(dearmor(armored)).publicKey.clone();
    }

    /**
     * Reads and decodes a private key. {@code passphrase} may be null or empty for an unencrypted file; it is not
     * modified.
     *
     * @throws PassphraseRequiredException the file is encrypted and no passphrase was given
     * @throws WrongPassphraseException    the passphrase does not decrypt the file
     * @throws UnsupportedKeyTypeException no codec is registered for the key type
     * @throws KeyFileException            malformed, truncated or extended file, unsupported cipher or KDF
     */
    public static OpenSshPrivateKey read(String armored, char[] passphrase) throws KeyFileException {
        try (PrivateSection section = decrypt(armored, passphrase)) {
            String type = section.keyType();
            PrivateKeyCodec codec = PrivateKeyCodecs.forType(type).orElseThrow(() -> new UnsupportedKeyTypeException(
                    type, "unsupported key type '" + type + "' in private key (no codec registered; known: "
                            + String.join(", ", PrivateKeyCodecs.all().keySet()) + ")"));
            SshReader r = section.fieldsReader();
            SshPrivateKey key;
            try {
                key = codec.readPrivateFields(type, r);
            } catch (MalformedMessageException e) {
                throw new KeyFileException("malformed " + type + " private key: " + e.getMessage());
            } catch (RuntimeException e) {
                throw new KeyFileException("malformed " + type + " private key: " + e);
            }
            try {
                String comment = section.finish(r);
                if (!MessageDigest.isEqual(key.publicKeyBlob(), section.publicKeyBlob())) {
                    throw new KeyFileException("the public key in the file header does not match the private key");
                }
                return new OpenSshPrivateKey(key, comment);
            } catch (KeyFileException | RuntimeException e) {
                destroyQuietly(key);
                throw e;
            }
        }
    }

    /** {@link #read(String, char[])} of a file, refusing it first if group or others can access it. */
    public static OpenSshPrivateKey readFile(Path file, char[] passphrase) throws IOException, KeyFileException {
        KeyFilePermissions.checkPrivateKeyFile(file);
        byte[] raw = Files.readAllBytes(file);
        try {
            return read(new String(raw, StandardCharsets.UTF_8), passphrase);
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /**
     * The lower-level reader: checks the container, decrypts, checks the check values and returns the private
     * section with the key type read but the type-specific fields not yet interpreted. The caller wipes it.
     */
    public static PrivateSection decrypt(String armored, char[] passphrase) throws KeyFileException {
        byte[] bin = dearmor(armored);
        Header h = header(bin);
        byte[] plain;
        if (h.cipher == OpenSshCipher.NONE) {
            plain = h.encrypted.clone();
        } else {
            if (passphrase == null || passphrase.length == 0) {
                throw new PassphraseRequiredException("the private key is encrypted (" + h.cipher.sshName()
                        + "); a passphrase is required");
            }
            byte[] pass = utf8(passphrase);
            byte[] keyIv = null;
            try {
                keyIv = BcryptPbkdf.derive(pass, h.salt, h.rounds, h.cipher.keyBytes() + h.cipher.ivBytes());
                byte[] in = h.encrypted;
                if (h.cipher.authTagBytes() > 0) {
                    in = Arrays.copyOf(h.encrypted, h.encrypted.length + h.tag.length);
                    System.arraycopy(h.tag, 0, in, h.encrypted.length, h.tag.length);
                }
                plain = h.cipher.apply(false, keyIv, in);
            } catch (AEADBadTagException e) {
                throw new WrongPassphraseException("incorrect passphrase supplied to decrypt private key "
                        + "(or the file is corrupted: " + h.cipher.sshName() + " tag mismatch)");
            } catch (GeneralSecurityException e) {
                throw new KeyFileException("cannot decrypt private key with " + h.cipher.sshName() + ": " + e, e);
            } finally {
                Arrays.fill(pass, (byte) 0);
                if (keyIv != null) {
                    Arrays.fill(keyIv, (byte) 0);
                }
            }
        }
        try {
            SshReader r = new SshReader(plain);
            long check1 = r.getUint32();
            long check2 = r.getUint32();
            if (check1 != check2) {
                if (h.cipher != OpenSshCipher.NONE) {
                    throw new WrongPassphraseException("incorrect passphrase supplied to decrypt private key");
                }
                throw new KeyFileException("corrupted private key: the check values differ");
            }
            String type = r.getUtf8();
            return new PrivateSection(h.cipher, h.kdf, h.publicKey, type, plain, r.position());
        } catch (MalformedMessageException e) {
            Arrays.fill(plain, (byte) 0);
            throw new KeyFileException("malformed private section: " + e.getMessage());
        } catch (KeyFileException | RuntimeException e) {
            Arrays.fill(plain, (byte) 0);
            throw e;
        }
    }

    private record Header(OpenSshCipher cipher, String kdf, byte[] salt, int rounds, byte[] publicKey,
            byte[] encrypted, byte[] tag) {
    }

    private static Header header(byte[] bin) throws KeyFileException {
        if (bin.length < MAGIC.length || !Arrays.equals(bin, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new KeyFileException("not an openssh-key-v1 file: missing magic \"openssh-key-v1\\0\"");
        }
        try {
            SshReader r = new SshReader(bin, MAGIC.length, bin.length - MAGIC.length);
            String cipherName = r.getUtf8();
            String kdf = r.getUtf8();
            byte[] kdfOptions = r.getString();
            long nkeys = r.getUint32();
            if (nkeys != 1) {
                throw new KeyFileException("the file holds " + nkeys + " keys; only files with exactly 1 key are "
                        + "supported");
            }
            byte[] publicKey = r.getString();
            byte[] encrypted = r.getString();
            OpenSshCipher cipher = OpenSshCipher.fromName(cipherName).orElseThrow(() -> new KeyFileException(
                    "unsupported private key cipher '" + cipherName + "'"));
            byte[] tag = r.getRaw(cipher.authTagBytes());
            r.expectEnd("openssh-key-v1 file");
            byte[] salt = null;
            int rounds = 0;
            if (cipher == OpenSshCipher.NONE) {
                if (!kdf.equals("none") || kdfOptions.length != 0) {
                    throw new KeyFileException("malformed private key: cipher 'none' with kdf '" + kdf + "'");
                }
            } else {
                if (kdf.equals("none")) {
                    throw new KeyFileException("malformed private key: cipher '" + cipherName + "' without a kdf");
                }
                if (!kdf.equals("bcrypt")) {
                    throw new KeyFileException("unsupported private key kdf '" + kdf + "'");
                }
                SshReader o = new SshReader(kdfOptions);
                salt = o.getString();
                long rr = o.getUint32();
                o.expectEnd("bcrypt kdf options");
                if (salt.length == 0) {
                    throw new KeyFileException("malformed private key: empty bcrypt salt");
                }
                if (rr < 1 || rr > MAX_ROUNDS) {
                    throw new KeyFileException("bcrypt rounds " + rr + " out of range (1.." + MAX_ROUNDS + ")");
                }
                rounds = (int) rr;
            }
            if (encrypted.length < 8 || encrypted.length % cipher.blockSize() != 0) {
                throw new KeyFileException("malformed private key: private section of " + encrypted.length
                        + " bytes is not a multiple of the " + cipher.blockSize() + "-byte block size");
            }
            return new Header(cipher, kdf, salt, rounds, publicKey, encrypted, tag);
        } catch (MalformedMessageException e) {
            throw new KeyFileException("malformed openssh-key-v1 file: " + e.getMessage());
        }
    }

    /** Strips the armor and decodes the base64 body. */
    static byte[] dearmor(String armored) throws KeyFileException {
        String text = armored.strip();
        if (!text.startsWith(BEGIN)) {
            int nl = text.indexOf('\n');
            String first = (nl < 0 ? text : text.substring(0, nl)).strip();
            if (first.startsWith("-----BEGIN ")) {
                throw new KeyFileException("not an OpenSSH private key file: found '" + truncate(first, 60)
                        + "' (only " + BEGIN + " is supported)");
            }
            throw new KeyFileException("not an OpenSSH private key file: missing " + BEGIN);
        }
        int end = text.indexOf(END, BEGIN.length()); // BEGIN and END share dashes: never let them overlap
        if (end < 0) {
            throw new KeyFileException("truncated private key file: missing " + END);
        }
        if (end + END.length() != text.length()) {
            throw new KeyFileException("unexpected text after " + END);
        }
        String body = text.substring(BEGIN.length(), end);
        StringBuilder b64 = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (!Character.isWhitespace(c)) {
                b64.append(c);
            }
        }
        try {
            return Base64.getDecoder().decode(b64.toString());
        } catch (IllegalArgumentException e) {
            throw new KeyFileException("private key file is not valid base64: " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- writing

    /**
     * Writes a key in OpenSSH's defaults: unencrypted when {@code passphrase} is null or empty, otherwise
     * aes256-ctr with bcrypt_pbkdf, a 16-byte random salt and 16 rounds.
     */
    public static String write(SshPrivateKey key, String comment, char[] passphrase, SecureRandom random) {
        return write(key, comment, passphrase, DEFAULT_ROUNDS, random);
    }

    public static String write(SshPrivateKey key, String comment, char[] passphrase, int rounds,
            SecureRandom random) {
        OpenSshCipher cipher = passphrase == null || passphrase.length == 0 ? OpenSshCipher.NONE
                : OpenSshCipher.DEFAULT;
        return write(key, comment, passphrase, cipher, rounds, random);
    }

    /** Full control over the cipher; {@code passphrase} must be non-empty unless the cipher is {@code none}. */
    public static String write(SshPrivateKey key, String comment, char[] passphrase, OpenSshCipher cipher,
            int rounds, SecureRandom random) {
        if (cipher != OpenSshCipher.NONE && (passphrase == null || passphrase.length == 0)) {
            throw new IllegalArgumentException("an encrypted private key needs a non-empty passphrase");
        }
        if (cipher != OpenSshCipher.NONE && (rounds < 1 || rounds > MAX_ROUNDS)) {
            throw new IllegalArgumentException("bcrypt rounds must be 1.." + MAX_ROUNDS);
        }
        byte[] checkBytes = new byte[4];
        random.nextBytes(checkBytes);
        long check = ByteBuffer.wrap(checkBytes).getInt() & 0xFFFFFFFFL;
        SshWriter priv = new SshWriter(4096);
        priv.putUint32(check).putUint32(check).putString(key.keyType());
        key.writePrivateFields(priv);
        priv.putString(comment == null ? "" : comment);
        for (int i = 1; priv.size() % cipher.blockSize() != 0; i++) {
            priv.putByte(i);
        }
        byte[] plain = priv.toByteArray();
        byte[] encrypted;
        byte[] kdfOptions = new byte[0];
        try {
            if (cipher == OpenSshCipher.NONE) {
                encrypted = plain.clone();
            } else {
                byte[] salt = new byte[DEFAULT_SALT_BYTES];
                random.nextBytes(salt);
                kdfOptions = new SshWriter().putString(salt).putUint32(rounds).toByteArray();
                byte[] pass = utf8(passphrase);
                byte[] keyIv = BcryptPbkdf.derive(pass, salt, rounds, cipher.keyBytes() + cipher.ivBytes());
                try {
                    encrypted = cipher.apply(true, keyIv, plain);
                } catch (GeneralSecurityException e) {
                    throw new IllegalStateException("cannot encrypt with " + cipher.sshName(), e);
                } finally {
                    Arrays.fill(pass, (byte) 0);
                    Arrays.fill(keyIv, (byte) 0);
                }
            }
        } finally {
            Arrays.fill(plain, (byte) 0);
        }
        int sectionLength = encrypted.length - cipher.authTagBytes();
        SshWriter out = new SshWriter(encrypted.length + 512);
        out.putRaw(MAGIC).putString(cipher.sshName())
                .putString(cipher == OpenSshCipher.NONE ? "none" : "bcrypt")
                .putString(kdfOptions).putUint32(1).putString(key.publicKeyBlob())
                .putString(Arrays.copyOf(encrypted, sectionLength))
                .putRaw(Arrays.copyOfRange(encrypted, sectionLength, encrypted.length));
        byte[] bin = out.toByteArray();
        if (cipher == OpenSshCipher.NONE) {
            Arrays.fill(encrypted, (byte) 0);
        }
        String armored = armor(bin);
        if (cipher == OpenSshCipher.NONE) {
            Arrays.fill(bin, (byte) 0);
        }
        return armored;
    }

    /** Writes the private key file (mode 0600 from creation) and {@code file.pub} (0644). */
    public static void writeFiles(Path file, SshPrivateKey key, String comment, char[] passphrase,
            SecureRandom random) throws IOException {
        KeyFilePermissions.writePrivateKeyFile(file, write(key, comment, passphrase, random));
        String pub = key.keyType() + " " + Base64.getEncoder().encodeToString(key.publicKeyBlob())
                + (comment == null || comment.isEmpty() ? "" : " " + comment) + "\n";
        KeyFilePermissions.writePublicKeyFile(file.resolveSibling(file.getFileName() + ".pub"), pub);
    }

    static String armor(byte[] bin) {
        String b64 = Base64.getEncoder().encodeToString(bin);
        StringBuilder sb = new StringBuilder(b64.length() + b64.length() / LINE_WIDTH + 80);
        sb.append(BEGIN).append('\n');
        for (int i = 0; i < b64.length(); i += LINE_WIDTH) {
            sb.append(b64, i, Math.min(b64.length(), i + LINE_WIDTH)).append('\n');
        }
        sb.append(END).append('\n');
        return sb.toString();
    }

    // ---------------------------------------------------------------- helpers

    static byte[] utf8(char[] passphrase) {
        ByteBuffer bb = StandardCharsets.UTF_8.encode(CharBuffer.wrap(passphrase));
        byte[] out = new byte[bb.remaining()];
        bb.get(out);
        if (bb.hasArray()) {
            Arrays.fill(bb.array(), (byte) 0);
        }
        return out;
    }

    private static String truncate(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n) + "...";
    }

    private static void destroyQuietly(SshPrivateKey key) {
        try {
            key.destroy();
        } catch (javax.security.auth.DestroyFailedException | RuntimeException ignored) {
            // best effort
        }
    }
}
