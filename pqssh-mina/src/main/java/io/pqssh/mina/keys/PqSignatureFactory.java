package io.pqssh.mina.keys;

import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.signature.SignatureFactory;

import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.mina.internal.keys.PqSignature;

/**
 * The MINA {@link SignatureFactory} (a {@code NamedFactory<Signature>}) for one pqssh key type name, or for the
 * certificate algorithm of a key type (e.g. {@code ssh-mldsa-65-cert-v01@openssh.com}), which signs and verifies as
 * the certified key does: as in OpenSSH, the signature blob carries the plain name.
 */
public final class PqSignatureFactory implements SignatureFactory {
    private final SignatureKeyType type;
    private final String name;
    private final String signatureName;

    PqSignatureFactory(SignatureKeyType type, String name) {
        if (!type.names().contains(name)) {
            throw new IllegalArgumentException(name + " is not a name of " + type.sshName());
        }
        this.type = type;
        this.name = name;
        this.signatureName = name;
    }

    private PqSignatureFactory(SignatureKeyType type, String certName, String signatureName) {
        this.type = type;
        this.name = certName;
        this.signatureName = signatureName;
    }

    /** The factory for the certificate algorithm of {@code type}'s canonical name. */
    static PqSignatureFactory forCertificates(SignatureKeyType type) {
        return new PqSignatureFactory(type, CertificateKeyTypes.certName(type.sshName()), type.sshName());
    }

    /** The name signature blobs carry: the key type's, also for the certificate algorithm. */
    public String signatureName() {
        return signatureName;
    }

    public boolean certificate() {
        return !name.equals(signatureName);
    }

    public SignatureKeyType type() {
        return type;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean isSupported() {
        return true;
    }

    @Override
    public Signature create() {
        return new PqSignature(type, signatureName);
    }

    @Override
    public String toString() {
        return name;
    }
}
