package io.pqssh.core.cert;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.sig.SignatureKeyType;

/**
 * The certificate key type names and, per certified key type, how many public key fields follow the nonce.
 *
 * <p>OpenSSH names a certificate type by dropping a plain type's {@code @openssh.com} suffix and appending
 * {@code -cert-v01@openssh.com}; the fields after the nonce are exactly the plain public key blob's fields after its
 * name. Two names are not formed by that rule: the OpenSSH 10.6 IETF composite {@code ssh-mldsa44-ed25519}, whose
 * certificate is {@code ssh-mldsa44-ed25519-cert} (the rule would collide with the 10.4/10.5 composite's
 * certificate; taken from 10.6's release notes, not checked against a 10.6 binary), and the ML-KEM keys pqssh
 * defines, whose certificates are {@code mlkemN-cert-v01@pqssh.io} (docs/publickey-kem.md).
 */
public final class CertificateKeyTypes {
    /** The 10.6 composite's certificate name, which does not follow the {@code -cert-v01} rule. */
    public static final String COMPOSITE_IETF_CERT = "ssh-mldsa44-ed25519-cert";

    private static final Map<String, String> CERT_TO_PLAIN;
    private static final Map<String, Integer> FIELDS;

    static {
        Map<String, Integer> fields = new LinkedHashMap<>();
        fields.put("ssh-rsa", 2);       // mpint e, mpint n
        fields.put("ssh-dss", 4);       // mpint p, q, g, y
        for (String c : new String[] {"nistp256", "nistp384", "nistp521"}) {
            fields.put("ecdsa-sha2-" + c, 2); // string curve, string Q
        }
        fields.put("sk-ecdsa-sha2-nistp256@openssh.com", 3); // curve, Q, application
        fields.put("sk-ssh-ed25519@openssh.com", 2);         // pk, application
        for (SignatureKeyType t : SignatureKeyType.values()) {
            fields.put(t.sshName(), 1); // string pk
        }
        for (KemAlgorithm a : KemAlgorithm.values()) {
            fields.put(a.sshName(), 1); // string ek
        }
        Map<String, String> names = new LinkedHashMap<>();
        for (String plain : fields.keySet()) {
            names.put(certName(plain), plain);
        }
        CERT_TO_PLAIN = Map.copyOf(names);
        FIELDS = Map.copyOf(fields);
    }

    private CertificateKeyTypes() {
    }

    /** The certificate type name for a plain key type, e.g. {@code ssh-ed25519-cert-v01@openssh.com}. */
    public static String certName(String plain) {
        if (plain.equals("ssh-mldsa44-ed25519")) {
            return COMPOSITE_IETF_CERT;
        }
        for (KemAlgorithm a : KemAlgorithm.values()) {
            if (a.sshName().equals(plain)) {
                return plain + "-cert-v01@pqssh.io";
            }
        }
        String base = plain.endsWith("@openssh.com") ? plain.substring(0, plain.length() - 12) : plain;
        return base + "-cert-v01@openssh.com";
    }

    /** The plain key type a certificate type name certifies, if pqssh knows it. */
    public static Optional<String> plainName(String certName) {
        return Optional.ofNullable(CERT_TO_PLAIN.get(certName));
    }

    public static boolean isCertificate(String keyType) {
        return CERT_TO_PLAIN.containsKey(keyType);
    }

    /** Whether pqssh can certify keys of this plain type. */
    public static boolean certifiable(String plain) {
        return FIELDS.containsKey(plain);
    }

    static int keyFieldCount(String plain) {
        return FIELDS.get(plain);
    }
}
