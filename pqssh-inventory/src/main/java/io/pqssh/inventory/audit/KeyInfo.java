package io.pqssh.inventory.audit;

import java.math.BigInteger;
import java.util.Locale;
import java.util.Optional;

import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * What a public key blob is: family, size or curve, certificate or not, and whether it resists a quantum adversary.
 *
 * @param bits modulus size for RSA/DSA, curve size for ECDSA/EdDSA, 0 for post-quantum keys or when unknown
 */
public record KeyInfo(String type, Family family, int bits, String curve, boolean certificate, String fingerprint) {

    public enum Family {
        RSA(false), DSA(false), ECDSA(false), ED25519(false), ED448(false), SK_ECDSA(false), SK_ED25519(false),
        ML_KEM(true), ML_DSA(true), COMPOSITE(true), SLH_DSA(true), FALCON(true), UNKNOWN(false);

        private final boolean pq;

        Family(boolean pq) {
            this.pq = pq;
        }

        public boolean postQuantum() {
            return pq;
        }
    }

    public static final String CERT_SUFFIX = "-cert-v01@openssh.com";

    public boolean postQuantum() {
        return family.postQuantum();
    }

    /**
     * Whether a key type name is a certificate: the {@code -cert-v01@openssh.com} names and OpenSSH 10.6's
     * {@code ssh-mldsa44-ed25519-cert}, the one certificate name outside that rule.
     */
    public static boolean isCertificate(String type) {
        return type.endsWith(CERT_SUFFIX) || type.equals(CertificateKeyTypes.COMPOSITE_IETF_CERT);
    }

    /** The plain key type a type name stands for: a certificate's certified type, otherwise the name itself. */
    public static String plainType(String type) {
        Optional<String> known = CertificateKeyTypes.plainName(type);
        if (known.isPresent()) {
            return known.get();
        }
        return type.endsWith(CERT_SUFFIX) ? type.replace(CERT_SUFFIX, "@openssh.com") : type;
    }

    /** Weak even classically: DSA, RSA below 2048 bits. */
    public boolean classicallyWeak() {
        return family == Family.DSA || (family == Family.RSA && bits > 0 && bits < 2048);
    }

    /** For keys known only by type name (PEM private keys): no size. */
    public static KeyInfo ofType(String type) {
        return new KeyInfo(type, family(type), 0, curveFromName(type), isCertificate(type), null);
    }

    public static KeyInfo of(byte[] blob) throws MalformedMessageException {
        SshReader r = new SshReader(blob);
        String type = r.getUtf8();
        boolean cert = isCertificate(type);
        if (cert) {
            r.getString(); // nonce
        }
        Family f = family(type);
        int bits = 0;
        String curve = null;
        switch (f) {
            case RSA -> {
                r.getString(); // e
                bits = new BigInteger(1, r.getString()).bitLength();
            }
            case DSA -> bits = new BigInteger(1, r.getString()).bitLength();
            case ECDSA, SK_ECDSA -> {
                curve = new String(r.getString(), java.nio.charset.StandardCharsets.US_ASCII);
                bits = switch (curve) {
                    case "nistp256" -> 256;
                    case "nistp384" -> 384;
                    case "nistp521" -> 521;
                    default -> 0;
                };
            }
            case ED25519, SK_ED25519 -> {
                bits = 256;
                curve = "ed25519";
            }
            case ED448 -> {
                bits = 456;
                curve = "ed448";
            }
            default -> {
                // post-quantum and unknown types: no classical size
            }
        }
        return new KeyInfo(type, f, bits, curve, cert, KeyFingerprints.sha256(blob));
    }

    static Family family(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        String base = t.equals(CertificateKeyTypes.COMPOSITE_IETF_CERT) ? "ssh-mldsa44-ed25519"
                : t.endsWith(CERT_SUFFIX) ? t.substring(0, t.length() - CERT_SUFFIX.length()) : t;
        if (KemAlgorithm.fromName(base).isPresent()) {
            return Family.ML_KEM;
        }
        Optional<SignatureKeyType> s = SignatureKeyType.forName(base);
        if (s.isPresent()) {
            return switch (s.get()) {
                case ED25519 -> Family.ED25519;
                case MLDSA_44, MLDSA_65, MLDSA_87 -> Family.ML_DSA;
                // Ed25519 beside a PQ half, both verified (OpenSSH's composite, the KEMUAuth artifact's AND
                // composites): forging needs the PQ half broken too, so these are PQ credentials, not classical keys
                case MLDSA44_ED25519, MLDSA44_ED25519_IETF, ED25519_MLDSA_65, ED25519_SLHDSA_SHA2_192F ->
                        Family.COMPOSITE;
                case SLHDSA_SHA2_128F, SLHDSA_SHA2_192F, SLHDSA_SHA2_256F -> Family.SLH_DSA;
                case FALCON_512, FALCON_1024 -> Family.FALCON;
                default -> Family.UNKNOWN;
            };
        }
        if (base.equals("ssh-rsa") || base.startsWith("rsa-sha2-") || base.equals("x509v3-sign-rsa")) {
            return Family.RSA;
        }
        if (base.equals("ssh-dss")) {
            return Family.DSA;
        }
        if (base.startsWith("ecdsa-sha2-")) {
            return Family.ECDSA;
        }
        if (base.startsWith("sk-ecdsa-sha2-")) {
            return Family.SK_ECDSA;
        }
        if (base.startsWith("sk-ssh-ed25519")) {
            return Family.SK_ED25519;
        }
        if (base.equals("ssh-ed448")) {
            return Family.ED448;
        }
        if (base.contains("mldsa") || base.contains("dilithium")) {
            return base.contains("ed25519") || base.contains("p256") || base.contains("rsa") ? Family.COMPOSITE
                    : Family.ML_DSA;
        }
        if (base.contains("sphincs") || base.contains("slhdsa")) {
            return Family.SLH_DSA;
        }
        if (base.contains("falcon")) {
            return Family.FALCON;
        }
        if (base.contains("mlkem") || base.contains("kyber")) {
            return Family.ML_KEM;
        }
        return Family.UNKNOWN;
    }

    private static String curveFromName(String type) {
        if (type.contains("nistp256")) {
            return "nistp256";
        }
        if (type.contains("nistp384")) {
            return "nistp384";
        }
        if (type.contains("nistp521")) {
            return "nistp521";
        }
        return type.contains("ed25519") ? "ed25519" : null;
    }

    /** e.g. "RSA 3072", "ECDSA nistp256", "Ed25519", "ML-KEM". */
    public String describe() {
        String c = certificate ? " certificate" : "";
        return switch (family) {
            case RSA, DSA -> family + (bits > 0 ? " " + bits : "") + c;
            case ECDSA, SK_ECDSA -> family.name().replace('_', '-') + (curve != null ? " " + curve : "") + c;
            default -> family.name().replace('_', '-') + c;
        };
    }
}
