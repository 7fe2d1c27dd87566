package io.pqssh.mina.keys;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.apache.sshd.common.config.keys.AuthorizedKeyEntry;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.common.util.buffer.keys.AbstractBufferPublicKeyParser;
import org.apache.sshd.common.util.buffer.keys.BufferPublicKeyParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.mina.internal.keys.PqCertificateDecoders;
import io.pqssh.mina.internal.keys.PqPublicKeyDecoders;

/**
 * Installs pqssh's post-quantum signature keys into MINA SSHD, and checks at start-up that MINA still works with them.
 *
 * <p>Through MINA's registration hooks: {@code KeyUtils.registerPublicKeyEntryDecoder} (authorized_keys and
 * known_hosts lines), {@code PublicKeyEntry.registerKeyDataEntryResolver} (writing such lines),
 * {@code BuiltinSignatures.registerExtension} (signature names). Encoding needs no hook: {@link PqPublicKey} is an
 * {@code UnsupportedSshPublicKey}, which {@code Buffer.putRawPublicKey} writes verbatim.
 *
 * <p>Certificates of PQ keys ({@code ssh-mldsa-65-cert-v01@openssh.com} etc., {@link PqCertificate}) take the same
 * hooks: a {@code KeyUtils} line decoder per certificate type, a {@code BuiltinSignatures} extension per certificate
 * algorithm, and the wire parser below.
 *
 * <p><b>The two workarounds.</b> MINA parses public keys on the wire ({@code Buffer.getRawPublicKey()}: host keys in
 * the key exchange, user keys in {@code publickey}, {@code hostkeys-00@openssh.com}) with
 * {@code BufferPublicKeyParser.DEFAULT}, a fixed aggregate of built-in parsers with no registration method. In MINA
 * 2.20 that aggregate keeps its parsers in an {@code Arrays.asList} list, whose slots can be replaced: {@link #install}
 * reads that list reflectively and replaces its last parser by one that also understands the PQ names. The second:
 * {@code KeyUtils}' map of certificate algorithms, which has no registration method either
 * ({@link #patchCertificateAlgorithms}). Both touch MINA internals, so {@link #selfTest} checks every path end to end and fails loudly (naming this class and
 * {@code docs/mina-integration.md}) if a MINA upgrade changes them. {@code PqsshServer} and {@code PqsshClient} call
 * {@link #ensureInstalled} when they start.
 */
public final class MinaPqKeys {
    private static final Logger LOG = LoggerFactory.getLogger(MinaPqKeys.class);
    private static final Object LOCK = new Object();
    private static volatile RuntimeException failure;
    private static volatile boolean ready;

    private MinaPqKeys() {
    }

    /** Installs (once per JVM) and runs the self-test; throws the same error every time if that failed. */
    public static void ensureInstalled() {
        if (ready) {
            return;
        }
        synchronized (LOCK) {
            if (failure != null) {
                throw failure;
            }
            if (ready) {
                return;
            }
            try {
                install();
                selfTest();
                ready = true;
            } catch (RuntimeException e) {
                failure = e instanceof IllegalStateException ? e : broken("installation failed: " + e, e);
                throw failure;
            }
        }
    }

    static void install() {
        KeyUtils.registerPublicKeyEntryDecoder(PqPublicKeyDecoders.ENTRY);
        for (PqSignatureFactory f : PqSignatureFactories.byName().values()) {
            PublicKeyEntry.registerKeyDataEntryResolver(f.getName(),
                    PqPublicKeyDecoders.dataResolver(f.type(), f.getName()));
            registerSignature(f);
        }
        for (PqSignatureFactory f : PqSignatureFactories.certificates().values()) {
            registerSignature(f);
            KeyUtils.registerPublicKeyEntryDecoderForKeyType(f.getName(), PqCertificateDecoders.ENTRY);
        }
        patchWireParser();
        patchCertificateAlgorithms();
    }

    private static void registerSignature(PqSignatureFactory f) {
        if (BuiltinSignatures.fromFactoryName(f.getName()) == null && BuiltinSignatures.getRegisteredExtensions()
                .stream().noneMatch(e -> e.getName().equals(f.getName()))) {
            BuiltinSignatures.registerExtension(f);
        }
    }

    /**
     * The second workaround: MINA learns that a name is a certificate algorithm, and the plain signature algorithm a
     * certificate's key signs with, from {@code KeyUtils.SIGNATURE_ALGORITHM_MAP}, which has no registration method
     * ({@code KeyUtils.isCertificateAlgorithm}: the client's key exchange takes a host certificate only for such a
     * name; {@code KeyUtils.getSignatureAlgorithm}: the name in a user certificate's {@code publickey} signature).
     * In MINA 2.20 it is a mutable map guarded by its own monitor; the PQ certificate names are added to it.
     */
    @SuppressWarnings("unchecked")
    private static void patchCertificateAlgorithms() {
        if (PqSignatureFactories.certificates().values().stream()
                .allMatch(f -> f.signatureName().equals(KeyUtils.getSignatureAlgorithm(f.getName(), PROBE)))) {
            return;
        }
        Map<String, String> map;
        try {
            Field f = KeyUtils.class.getDeclaredField("SIGNATURE_ALGORITHM_MAP");
            f.setAccessible(true);
            map = (Map<String, String>) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw broken("cannot read KeyUtils.SIGNATURE_ALGORITHM_MAP: " + e, e);
        }
        try {
            synchronized (map) {
                for (PqSignatureFactory c : PqSignatureFactories.certificates().values()) {
                    map.put(c.getName(), c.signatureName());
                }
            }
        } catch (UnsupportedOperationException e) {
            throw broken("KeyUtils.SIGNATURE_ALGORITHM_MAP is no longer modifiable (" + e + ")", e);
        }
        LOG.debug("post-quantum certificate algorithms added to MINA's KeyUtils.SIGNATURE_ALGORITHM_MAP");
    }

    /** Any certificate: {@code KeyUtils.getSignatureAlgorithm} looks the name up only for a certificate key. */
    private static final PublicKey PROBE = new PqCertificate("probe");

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void patchWireParser() {
        BufferPublicKeyParser<PublicKey> def = BufferPublicKeyParser.DEFAULT;
        if (def.isKeyTypeSupported(SignatureKeyType.MLDSA_44.sshName())) {
            return; // already patched (or a MINA that knows ML-DSA: the self-test checks it decodes our way)
        }
        Field found = null;
        for (Field f : def.getClass().getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && Collection.class.isAssignableFrom(f.getType())) {
                if (found != null) {
                    throw broken("BufferPublicKeyParser.DEFAULT (" + def.getClass().getName()
                            + ") has several collection fields", null);
                }
                found = f;
            }
        }
        if (found == null) {
            throw broken("BufferPublicKeyParser.DEFAULT (" + def.getClass().getName()
                    + ") is no longer an aggregate holding a parser collection", null);
        }
        Object parsers;
        try {
            found.setAccessible(true);
            parsers = found.get(def);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw broken("cannot read the parsers of BufferPublicKeyParser.DEFAULT: " + e, e);
        }
        if (!(parsers instanceof List list) || list.isEmpty()) {
            throw broken("BufferPublicKeyParser.DEFAULT keeps its parsers in a "
                    + (parsers == null ? "null" : parsers.getClass().getName()) + ", not a non-empty list", null);
        }
        int last = list.size() - 1;
        BufferPublicKeyParser<? extends PublicKey> original = (BufferPublicKeyParser) list.get(last);
        try {
            list.set(last, new Chained(original, PqPublicKeyDecoders.WIRE));
        } catch (UnsupportedOperationException | ArrayStoreException e) {
            throw broken("the parser list of BufferPublicKeyParser.DEFAULT is no longer replaceable (" + e + ")", e);
        }
        LOG.debug("post-quantum public key parser added to MINA's BufferPublicKeyParser.DEFAULT");
    }

    /**
     * MINA's original parser for the slot plus the PQ parser. An {@code AbstractBufferPublicKeyParser} because the
     * array behind MINA 2.20's {@code Arrays.asList} has that component type.
     */
    private static final class Chained extends AbstractBufferPublicKeyParser<PublicKey> {
        private final BufferPublicKeyParser<? extends PublicKey> original;
        private final BufferPublicKeyParser<? extends PublicKey> pq;

        Chained(BufferPublicKeyParser<? extends PublicKey> original, BufferPublicKeyParser<? extends PublicKey> pq) {
            super(PublicKey.class, PqSignatureFactories.byName().keySet());
            this.original = original;
            this.pq = pq;
        }

        @Override
        public boolean isKeyTypeSupported(String keyType) {
            return pq.isKeyTypeSupported(keyType) || original.isKeyTypeSupported(keyType);
        }

        @Override
        public PublicKey getRawPublicKey(String keyType, Buffer buffer) throws GeneralSecurityException {
            return pq.isKeyTypeSupported(keyType) ? pq.getRawPublicKey(keyType, buffer)
                    : original.getRawPublicKey(keyType, buffer);
        }

        @Override
        public String toString() {
            return original + " + " + pq;
        }
    }

    /**
     * Checks every MINA path PQ keys take with a known ML-DSA-44 key and signature (resource
     * {@code self-test-mldsa44.txt}); throws {@link IllegalStateException}. A known answer rather than a fresh key
     * pair: generating and signing cost a just-started client ~30 ms of interpreted code on its way to the first
     * packet, and a known answer also catches a verifier that accepts anything. Signing through MINA's factory is
     * covered by the tests (MinaPqKeysTest), not repeated at every start.
     */
    static void selfTest() {
        try {
            String[] vector = selfTestVector();
            SshPublicKey key = SshPublicKey.parseOpenSsh(vector[0]);
            byte[] signatureBlob = java.util.Base64.getDecoder().decode(vector[1]);
            PqPublicKey pub = PqPublicKey.of(key);
            byte[] expected = key.blob();
            String name = SignatureKeyType.MLDSA_44.sshName();
            check(key.type() == SignatureKeyType.MLDSA_44, "the self-test vector is not an ML-DSA-44 key");
            for (SignatureKeyType t : PqPublicKey.TYPES) {
                for (String n : t.names()) {
                    check(BufferPublicKeyParser.DEFAULT.isKeyTypeSupported(n), "wire parser does not accept " + n);
                }
            }
            for (PqSignatureFactory c : PqSignatureFactories.certificates().values()) {
                check(BufferPublicKeyParser.DEFAULT.isKeyTypeSupported(c.getName()),
                        "wire parser does not accept " + c.getName());
                check(KeyUtils.isCertificateAlgorithm(c.getName()), "KeyUtils.isCertificateAlgorithm does not know "
                        + c.getName());
                check(c.signatureName().equals(KeyUtils.getSignatureAlgorithm(c.getName(), PROBE)),
                        "KeyUtils.getSignatureAlgorithm does not map " + c.getName() + " to " + c.signatureName());
                check(KeyUtils.getPublicKeyEntryDecoder(c.getName()) == PqCertificateDecoders.ENTRY,
                        "no certificate line decoder for " + c.getName());
            }
            check(name.equals(KeyUtils.getKeyType(pub)), "KeyUtils.getKeyType gives " + KeyUtils.getKeyType(pub));
            ByteArrayBuffer b = new ByteArrayBuffer();
            b.putRawPublicKey(pub);
            check(Arrays.equals(expected, b.getCompactData()), "Buffer.putRawPublicKey does not write the OpenSSH blob");
            PublicKey back = new ByteArrayBuffer(expected).getRawPublicKey();
            check(back instanceof PqPublicKey && KeyUtils.compareKeys(pub, back),
                    "Buffer.getRawPublicKey does not give the key back (" + back + ")");
            ByteArrayBuffer framed = new ByteArrayBuffer();
            framed.putPublicKey(pub);
            framed.putString("after");
            check(KeyUtils.compareKeys(pub, framed.getPublicKey()) && "after".equals(framed.getString()),
                    "Buffer.putPublicKey/getPublicKey round trip failed");
            check(key.fingerprintSha256().equals(KeyUtils.getFingerPrint(pub)),
                    "KeyUtils.getFingerPrint differs from ssh-keygen's SHA256 fingerprint");
            String line = PublicKeyEntry.appendPublicKeyEntry(new StringBuilder(), pub).toString();
            check(line.equals(key.toOpenSsh(null)), "known_hosts/authorized_keys line is wrong: " + line);
            PublicKey parsed = AuthorizedKeyEntry.parseAuthorizedKeyEntry(line + " self-test")
                    .resolvePublicKey(null, PublicKeyEntryResolver.FAILING);
            check(parsed instanceof PqPublicKey && KeyUtils.compareKeys(pub, parsed),
                    "authorized_keys line does not decode to the key");
            check(BuiltinSignatures.resolveFactory(name) != null, "no MINA signature factory for " + name);
            byte[] data = "pqssh MINA self-test".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Signature verifier = PqSignatureFactories.byName().get(name).create();
            verifier.initVerifier(null, parsed);
            verifier.update(null, data);
            check(verifier.verify(null, signatureBlob), "the known signature does not verify through MINA");
            byte[] altered = data.clone();
            altered[0] ^= 1;
            Signature rejecter = BuiltinSignatures.resolveFactory(name).create();
            rejecter.initVerifier(null, parsed);
            rejecter.update(null, altered);
            check(!rejecter.verify(null, signatureBlob), "a signature of other data verifies through MINA");
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw broken("self-test failed: " + e, e);
        }
    }

    /** The public key line and the base64 signature blob of {@code self-test-mldsa44.txt}. */
    private static String[] selfTestVector() throws java.io.IOException {
        try (java.io.InputStream in = MinaPqKeys.class.getResourceAsStream("self-test-mldsa44.txt")) {
            if (in == null) {
                throw broken("self-test-mldsa44.txt is missing from the class path", null);
            }
            String[] lines = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).toArray(String[]::new);
            if (lines.length != 2) {
                throw broken("self-test-mldsa44.txt holds " + lines.length + " lines, not a key and a signature",
                        null);
            }
            return lines;
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw broken(what, null);
        }
    }

    private static IllegalStateException broken(String what, Throwable cause) {
        Package p = BufferPublicKeyParser.class.getPackage();
        String version = p == null || p.getImplementationVersion() == null ? "version unknown"
                : p.getImplementationVersion();
        return new IllegalStateException("pqssh post-quantum keys do not work with this MINA SSHD (" + version
                + "): " + what + ". MinaPqKeys relies on MINA 2.20 internals; see docs/mina-integration.md", cause);
    }
}
