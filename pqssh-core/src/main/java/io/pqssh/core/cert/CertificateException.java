package io.pqssh.core.cert;

/** A certificate that is well-formed but not acceptable here; the message is OpenSSH's wording where it has one. */
public final class CertificateException extends Exception {
    private static final long serialVersionUID = 1L;

    public CertificateException(String message) {
        super(message);
    }
}
