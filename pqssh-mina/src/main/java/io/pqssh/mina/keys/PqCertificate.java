package io.pqssh.mina.keys;

import org.apache.sshd.common.config.keys.OpenSshCertificateImpl;

/**
 * An OpenSSH certificate of a post-quantum key (e.g. {@code ssh-mldsa-65-cert-v01@openssh.com}) as MINA's
 * certificate type, so MINA's certificate paths (user certificates in {@code publickey}, host certificates in the key
 * exchange, {@code HostKeyCertificateProvider}) take it as they take an Ed25519 certificate. The one difference:
 * the certified key type comes from pqssh's table, not from MINA's rule of cutting the name at {@code -cert}, which
 * gives {@code ssh-mldsa44-ed25519} (the OpenSSH 10.6 name) for the 10.4/10.5 composite's
 * {@code ssh-mldsa44-ed25519-cert-v01@openssh.com}.
 */
public final class PqCertificate extends OpenSshCertificateImpl {
    private static final long serialVersionUID = 1L;

    private final String certifiedKeyType;

    /** A certificate still to be filled through the setters; {@code certifiedKeyType} is e.g. {@code ssh-mldsa-65}. */
    public PqCertificate(String certifiedKeyType) {
        this.certifiedKeyType = certifiedKeyType;
    }

    @Override
    public String getRawKeyType() {
        return certifiedKeyType;
    }
}
