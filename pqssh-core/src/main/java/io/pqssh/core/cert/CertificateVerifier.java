package io.pqssh.core.cert;

import java.util.List;
import java.util.Set;

import io.pqssh.core.keys.authorized.OpenSshPatterns;
import io.pqssh.core.sig.Signatures;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * Checks a certificate as sshd and ssh do before trusting its key: the CA's signature, the certificate type, the
 * validity window, the principal and the critical options the caller understands.
 */
public final class CertificateVerifier {
    /** The critical options OpenSSH defines; a certificate with any other is refused (they are "critical"). */
    public static final Set<String> KNOWN_CRITICAL_OPTIONS = Set.of("force-command", "source-address",
            "verify-required");

    private CertificateVerifier() {
    }

    /** Whether the CA's signature over the certificate verifies; malformed signature blobs are exceptions. */
    public static boolean signatureValid(SshCertificate cert) throws MalformedMessageException {
        return signatureValid(cert.signatureKey(), cert.signedData(), cert.signature());
    }

    /** Whether {@code signature} by the key {@code keyBlob} (classical or post-quantum) verifies over {@code data}. */
    static boolean signatureValid(byte[] keyBlob, byte[] data, byte[] signature) throws MalformedMessageException {
        if (ClassicalSignatures.handles(SshCertificate.peekName(keyBlob))) {
            return ClassicalSignatures.verify(keyBlob, data, signature);
        }
        return Signatures.verify(keyBlob, data, signature);
    }

    /**
     * Checks everything but the CA's trust: signature, {@code expected} type, validity at {@code nowSeconds}, and
     * (when {@code principal} is non-null) that the principal is listed (for host certificates a listed pattern
     * matches, as OpenSSH 8.9+ allows wildcards there). {@code allowedSignatureAlgorithms} (CASignatureAlgorithms)
     * is null for any. Unknown critical options are refused.
     */
    public static void check(SshCertificate cert, CertificateType expected, String principal, long nowSeconds,
            List<String> allowedSignatureAlgorithms) throws CertificateException {
        String alg = cert.signatureAlgorithm();
        if (allowedSignatureAlgorithms != null && !allowedSignatureAlgorithms.contains(alg)) {
            throw new CertificateException("Certificate signature algorithm " + alg
                    + " not in CASignatureAlgorithms");
        }
        try {
            if (!signatureValid(cert)) {
                throw new CertificateException("Certificate signature is invalid");
            }
        } catch (MalformedMessageException e) {
            throw new CertificateException("Certificate signature is malformed: " + e.getMessage());
        }
        if (cert.type() != expected) {
            throw new CertificateException("Certificate invalid: not a " + expected.label() + " certificate");
        }
        if (Long.compareUnsigned(nowSeconds, cert.validAfter()) < 0) {
            throw new CertificateException("Certificate invalid: not yet valid");
        }
        if (Long.compareUnsigned(nowSeconds, cert.validBefore()) >= 0) {
            throw new CertificateException("Certificate invalid: expired");
        }
        if (principal != null) {
            if (cert.principals().isEmpty()) {
                if (expected == CertificateType.USER) {
                    throw new CertificateException("Certificate lacks principal list");
                }
                // a host certificate without principals vouches for any host name (OpenSSH's rule)
            } else if (!listed(cert, expected, principal)) {
                throw new CertificateException("Certificate invalid: name is not a listed principal");
            }
        }
        for (String option : cert.criticalOptions().keySet()) {
            if (!KNOWN_CRITICAL_OPTIONS.contains(option)) {
                throw new CertificateException("Certificate has unsupported critical option " + option);
            }
        }
    }

    private static boolean listed(SshCertificate cert, CertificateType type, String principal) {
        for (String p : cert.principals()) {
            if (type == CertificateType.HOST ? OpenSshPatterns.matchPattern(principal.toLowerCase(java.util.Locale.ROOT),
                    p.toLowerCase(java.util.Locale.ROOT)) : p.equals(principal)) {
                return true;
            }
        }
        return false;
    }
}
