package io.pqssh.lab.primitives;

import java.nio.charset.StandardCharsets;
import javax.crypto.KEM;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.Security;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemAuthServer;
import io.pqssh.core.auth.KemChallenge;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.kem.Encapsulation;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.KemProviders;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.sig.MlDsaVerifier;
import io.pqssh.core.sig.SigProviders;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.SshWriter;

/**
 * One measured primitive: algorithm × provider × operation, as a string {@code ALG/PROVIDER/OP} (the JMH parameter).
 * {@link #prepare()} builds the keys and inputs once and returns the operation to time. Every operation is checked
 * once for correctness while being prepared (a signature verifies, decapsulation gives the encapsulated secret, the
 * KEMUAuth response is accepted), so a broken provider cannot produce a fast number.
 */
public record PrimitiveCase(String algorithm, String provider, String operation) {
    public static final String BC = "BC";
    public static final String JDK = "JDK";
    public static final String ONLINE = "online-server-cost";

    /**
     * Every algorithm in the order of the report. {@code ed25519-mldsa65} and {@code ed25519-slhdsa192f} are the
     * KEMUAuth artifact's AND composites in pqssh's own layout (both halves signed and verified).
     */
    public static final List<String> ALGORITHMS = List.of("Ed25519", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87",
            "mldsa44-ed25519", "ed25519-mldsa65", "ed25519-slhdsa192f", "Falcon-512", "Falcon-1024",
            "SLH-DSA-SHA2-128f", "SLH-DSA-SHA2-192f", "SLH-DSA-SHA2-256f", "ML-KEM-512", "ML-KEM-768",
            "ML-KEM-1024");

    public String id() {
        return algorithm + "/" + provider + "/" + operation;
    }

    public static PrimitiveCase parse(String id) {
        String[] p = id.split("/", 3);
        if (p.length != 3) {
            throw new IllegalArgumentException("case must be ALG/PROVIDER/OP: " + id);
        }
        return new PrimitiveCase(p[0], p[1], p[2]);
    }

    public boolean isKem() {
        return algorithm.startsWith("ML-KEM-");
    }

    /** All cases for the given algorithms (null or empty: all), in report order. */
    public static List<PrimitiveCase> all(List<String> algorithms, List<String> operations) {
        List<PrimitiveCase> out = new ArrayList<>();
        for (String a : ALGORITHMS) {
            if (algorithms != null && !algorithms.isEmpty()
                    && algorithms.stream().noneMatch(x -> x.equalsIgnoreCase(a))) {
                continue;
            }
            List<String> providers = jdkHas(a) ? List.of(BC, JDK) : List.of(BC);
            List<String> ops = a.startsWith("ML-KEM-") ? List.of("keygen", "encaps", "decaps", ONLINE)
                    : List.of("keygen", "sign", "verify", ONLINE);
            for (String prov : providers) {
                for (String op : ops) {
                    if (operations == null || operations.isEmpty() || operations.contains(op)) {
                        out.add(new PrimitiveCase(a, prov, op));
                    }
                }
            }
        }
        return out;
    }

    /** Algorithms of which the running JDK has its own implementation. */
    public static boolean jdkHas(String algorithm) {
        return switch (algorithm) {
            case "Ed25519", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "ML-KEM-512", "ML-KEM-768", "ML-KEM-1024" ->
                jdkProvider(algorithm.startsWith("ML-KEM") ? "KEM" : "Signature",
                        algorithm.startsWith("ML-KEM") ? "ML-KEM" : algorithm.startsWith("ML-DSA") ? "ML-DSA"
                                : "Ed25519") != null;
            default -> false;
        };
    }

    public static SignatureKeyType sigType(String algorithm) {
        return switch (algorithm) {
            case "Ed25519" -> SignatureKeyType.ED25519;
            case "ML-DSA-44" -> SignatureKeyType.MLDSA_44;
            case "ML-DSA-65" -> SignatureKeyType.MLDSA_65;
            case "ML-DSA-87" -> SignatureKeyType.MLDSA_87;
            case "mldsa44-ed25519" -> SignatureKeyType.MLDSA44_ED25519;
            case "ed25519-mldsa65" -> SignatureKeyType.ED25519_MLDSA_65;
            case "ed25519-slhdsa192f" -> SignatureKeyType.ED25519_SLHDSA_SHA2_192F;
            case "Falcon-512" -> SignatureKeyType.FALCON_512;
            case "Falcon-1024" -> SignatureKeyType.FALCON_1024;
            case "SLH-DSA-SHA2-128f" -> SignatureKeyType.SLHDSA_SHA2_128F;
            case "SLH-DSA-SHA2-192f" -> SignatureKeyType.SLHDSA_SHA2_192F;
            case "SLH-DSA-SHA2-256f" -> SignatureKeyType.SLHDSA_SHA2_256F;
            default -> throw new IllegalArgumentException("not a signature algorithm: " + algorithm);
        };
    }

    public static KemAlgorithm kemAlgorithm(String algorithm) {
        return KemAlgorithm.require(algorithm);
    }

    /** Public key size in bytes. */
    public static int publicKeyBytes(String algorithm) {
        return algorithm.startsWith("ML-KEM-") ? kemAlgorithm(algorithm).publicKeyBytes()
                : sigType(algorithm).publicKeySize();
    }

    /** Signature size (maximum for Falcon) or ciphertext size in bytes. */
    public static int outputBytes(String algorithm) {
        return algorithm.startsWith("ML-KEM-") ? kemAlgorithm(algorithm).ciphertextBytes()
                : sigType(algorithm).signatureSize();
    }

    /** The JDK's own (non-BC) provider of a service, or null. */
    static Provider jdkProvider(String service, String algorithm) {
        for (Provider p : Security.getProviders()) {
            if (p.getName().startsWith("BC")) {
                continue;
            }
            if (p.getService(service, algorithm) != null) {
                return p;
            }
        }
        return null;
    }

    /** The data a server verifies for a publickey login: RFC 4252 section 7 signed data. */
    static byte[] userauthSignedData(byte[] sessionId, String keyName, byte[] keyBlob) {
        return new SshWriter(256 + keyBlob.length).putString(sessionId).putByte(50).putString("lab")
                .putString("ssh-connection").putString("publickey").putBoolean(true).putString(keyName)
                .putString(keyBlob).toByteArray();
    }

    /** Builds keys and inputs, checks correctness once, returns the operation to time. */
    public Callable<Object> prepare() throws Exception {
        SecureRandom rnd = new SecureRandom();
        byte[] sid = new byte[32];
        rnd.nextBytes(sid);
        if (isKem()) {
            return provider.equals(BC) ? prepareKemBc(rnd, sid) : prepareKemJdk(rnd, sid);
        }
        if (System.getProperty(SigProviders.PROPERTY) != null) {
            // with the property set (inherited by a JMH fork), the first verification below would start the
            // selection in the background: finish it here, before anything is timed
            SigProviders.selected();
        }
        return provider.equals(BC) ? prepareSigBc(rnd, sid) : prepareSigJdk(sid);
    }

    private Callable<Object> prepareKemBc(SecureRandom rnd, byte[] sid) throws Exception {
        KemAlgorithm alg = kemAlgorithm(algorithm);
        KemKeyPair kp = MlKem.generate(alg, rnd);
        byte[] pk = kp.publicKey();
        Encapsulation enc = MlKem.encapsulate(alg, pk, rnd);
        byte[] ct = enc.ciphertext();
        check(Arrays.equals(kp.decapsulate(ct), enc.sharedSecret()), "decapsulation mismatch");
        KemAuthServer server = new KemAuthServer(rnd, KemProviders.bc());
        KemAuthRequest req = KemAuthRequest.kem("lab", "ssh-connection", new KemCredential(alg.sshName(), pk));
        KemAuthServer.IssuedChallenge ic = server.issue(sid, req);
        byte[] good = KemAuthClient.respond(sid, req, ic.challenge(), kp);
        check(ic.pending().verify(good), "KEMUAuth response rejected");
        byte[] wrong = new byte[32];
        return switch (operation) {
            case "keygen" -> () -> MlKem.generate(alg, rnd);
            case "encaps" -> () -> MlKem.encapsulate(alg, pk, rnd);
            case "decaps" -> () -> kp.decapsulate(ct);
            // the server's whole online work per credential: encapsulate, CTX, HMAC, then the constant-time check
            // (a wrong 32-byte answer costs the same as the right one: MessageDigest.isEqual is constant time)
            case ONLINE -> () -> server.issue(sid, req).pending().verify(wrong);
            default -> throw new IllegalArgumentException("no operation " + operation + " for " + algorithm);
        };
    }

    private Callable<Object> prepareKemJdk(SecureRandom rnd, byte[] sid) throws Exception {
        KemAlgorithm alg = kemAlgorithm(algorithm);
        Provider prov = jdkProvider("KEM", "ML-KEM");
        KeyPairGenerator kpg = KeyPairGenerator.getInstance(alg.fipsName(), jdkProvider("KeyPairGenerator",
                alg.fipsName()));
        KeyPair kp = kpg.generateKeyPair();
        byte[] spki = kp.getPublic().getEncoded();
        byte[] raw = Arrays.copyOfRange(spki, spki.length - alg.publicKeyBytes(), spki.length);
        KEM kem = KEM.getInstance("ML-KEM", prov);
        KEM.Encapsulated e = kem.newEncapsulator(kp.getPublic(), rnd).encapsulate();
        byte[] ct = e.encapsulation();
        check(Arrays.equals(kem.newDecapsulator(kp.getPrivate()).decapsulate(ct).getEncoded(),
                e.key().getEncoded()), "JDK decapsulation mismatch");
        // cross-check with BC: a ciphertext from the JDK decapsulates to the same secret in pqssh's code
        check(ct.length == alg.ciphertextBytes(), "JDK ciphertext length");
        KemCredential cred = new KemCredential(alg.sshName(), raw);
        KemAuthRequest req = KemAuthRequest.kem("lab", "ssh-connection", cred);
        byte[] wrong = new byte[32];
        KemAuthServer jdkServer = new KemAuthServer(rnd, KemProviders.jdk()
                .orElseThrow(() -> new IllegalStateException("the JDK has no ML-KEM")));
        check(KemProviders.disagreement(jdkServer.encapsulator(), 1).isEmpty(), "JDK and BC ML-KEM disagree");
        return switch (operation) {
            case "keygen" -> kpg::generateKeyPair;
            case "encaps" -> () -> kem.newEncapsulator(kp.getPublic(), rnd).encapsulate();
            case "decaps" -> () -> kem.newDecapsulator(kp.getPrivate()).decapsulate(ct);
            // the server's code path (KemAuthServer.issue + PendingChallenge.verify) with the JDK's ML-KEM, which
            // includes turning the raw wire key into a JCA key
            case ONLINE -> () -> jdkServer.issue(sid, req).pending().verify(wrong);
            default -> throw new IllegalArgumentException("no operation " + operation + " for " + algorithm);
        };
    }

    private Callable<Object> prepareSigBc(SecureRandom rnd, byte[] sid) throws Exception {
        SignatureKeyType t = sigType(algorithm);
        SshSigningKey key = SshSigningKey.generate(t, rnd);
        SshPublicKey pub = key.publicKey();
        byte[] data = userauthSignedData(sid, t.sshName(), pub.blob());
        byte[] sig = key.sign(data);
        check(pub.verify(data, sig), "signature does not verify");
        byte[] bad = data.clone();
        bad[bad.length - 1] ^= 1;
        check(!pub.verify(bad, sig), "signature verifies over changed data");
        if (pureMlDsa(t)) {
            // the server's path with Bouncy Castle named explicitly, whatever pqssh.sig.provider selected
            return switch (operation) {
                case "keygen" -> () -> SshSigningKey.generate(t, rnd);
                case "sign" -> () -> key.sign(data);
                case "verify", ONLINE -> serverMlDsaVerify(t, pub.rawKey(), data, sig, SigProviders.bc());
                default -> throw new IllegalArgumentException("no operation " + operation + " for " + algorithm);
            };
        }
        return switch (operation) {
            case "keygen" -> () -> SshSigningKey.generate(t, rnd);
            case "sign" -> () -> key.sign(data);
            // the server decodes the raw key from the wire and verifies: pqssh's code path
            case "verify", ONLINE -> () -> SshPublicKey.of(t, pub.rawKey()).verify(data, sig);
            default -> throw new IllegalArgumentException("no operation " + operation + " for " + algorithm);
        };
    }

    private Callable<Object> prepareSigJdk(byte[] sid) throws Exception {
        String jcaName = algorithm.startsWith("ML-DSA") ? algorithm : "Ed25519";
        String family = algorithm.startsWith("ML-DSA") ? "ML-DSA" : "Ed25519";
        KeyPairGenerator kpg = KeyPairGenerator.getInstance(jcaName, jdkProvider("KeyPairGenerator", jcaName));
        KeyPair kp = kpg.generateKeyPair();
        Provider sp = jdkProvider("Signature", family);
        KeyFactory kf = KeyFactory.getInstance(family, jdkProvider("KeyFactory", family));
        byte[] spki = kp.getPublic().getEncoded();
        int rawLen = sigType(algorithm).publicKeySize();
        byte[] raw = Arrays.copyOfRange(spki, spki.length - rawLen, spki.length);
        byte[] prefix = Arrays.copyOf(spki, spki.length - rawLen);
        SignatureKeyType t = sigType(algorithm);
        byte[] data = userauthSignedData(sid, t.sshName(), SshPublicKey.of(t, raw).blob());
        Signature s = Signature.getInstance(family, sp);
        s.initSign(kp.getPrivate());
        s.update(data);
        byte[] sig = s.sign();
        // cross-provider check: pqssh's (BC) verifier accepts the JDK's signature
        byte[] blob = new SshWriter(sig.length + 64).putString(t.sshName()).putString(sig).toByteArray();
        check(SshPublicKey.of(t, raw).verify(data, blob), "BC does not verify the JDK's " + algorithm + " signature");
        ThreadLocal<Signature> tl = ThreadLocal.withInitial(() -> {
            try {
                return Signature.getInstance(family, sp);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        if (pureMlDsa(t)) {
            // pqssh's own JDK path (JdkMlDsaVerifier: SPKI from the raw wire key), held to BC's results first
            MlDsaVerifier jdkV = SigProviders.jdk().orElseThrow(() -> new IllegalStateException("the JDK has no "
                    + "ML-DSA"));
            check(SigProviders.disagreement(jdkV, 1).isEmpty(), "JDK and BC ML-DSA disagree");
            check(jdkV.verify(t, raw, data, sig), "pqssh's JDK path does not verify the JDK's signature");
            if (operation.equals("verify") || operation.equals(ONLINE)) {
                return serverMlDsaVerify(t, raw, data, blob, jdkV);
            }
        }
        return switch (operation) {
            case "keygen" -> kpg::generateKeyPair;
            case "sign" -> () -> {
                Signature x = tl.get();
                x.initSign(kp.getPrivate());
                x.update(data);
                return x.sign();
            };
            case "verify", ONLINE -> () -> {
                Signature x = tl.get();
                x.initVerify(kf.generatePublic(new X509EncodedKeySpec(concat(prefix, raw))));
                x.update(data);
                return x.verify(sig);
            };
            default -> throw new IllegalArgumentException("no operation " + operation + " for " + algorithm);
        };
    }

    static boolean pureMlDsa(SignatureKeyType t) {
        return t == SignatureKeyType.MLDSA_44 || t == SignatureKeyType.MLDSA_65 || t == SignatureKeyType.MLDSA_87;
    }

    /**
     * What {@code SshPublicKey.verify} does for {@code ssh-mldsa-*} (raw key and signature blob decoded and
     * length-checked, then one provider's verification), with the provider given instead of the selected one, so a
     * row measures its own provider even where this JVM (or a JMH fork) selected the other.
     */
    static Callable<Object> serverMlDsaVerify(SignatureKeyType t, byte[] rawKey, byte[] data, byte[] sigBlob,
            MlDsaVerifier v) throws Exception {
        Callable<Object> op = () -> v.verify(t, SshPublicKey.of(t, rawKey).rawKey(), data,
                t.scheme().decodeSignature(sigBlob));
        if (!Boolean.TRUE.equals(op.call())) {
            throw new IllegalStateException(t.sshName() + ": " + v.name() + " does not verify the prepared signature");
        }
        return op;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(id() + ": " + what);
        }
    }

    /** Accepts spellings like {@code ml-kem-768}, {@code mldsa65}, {@code slh-dsa-128f}. */
    public static String canonicalAlgorithm(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "").replace("sha2", "");
        for (String a : ALGORITHMS) {
            String c = a.toLowerCase(Locale.ROOT).replace("-", "").replace("sha2", "");
            if (c.equals(n)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown algorithm '" + name + "' (known: " + String.join(", ", ALGORITHMS)
                + ")");
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
