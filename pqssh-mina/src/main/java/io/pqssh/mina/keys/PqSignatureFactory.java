package io.pqssh.mina.keys;

import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.signature.SignatureFactory;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.mina.internal.keys.PqSignature;

/** The MINA {@link SignatureFactory} (a {@code NamedFactory<Signature>}) for one pqssh key type name. */
public final class PqSignatureFactory implements SignatureFactory {
    private final SignatureKeyType type;
    private final String name;

    PqSignatureFactory(SignatureKeyType type, String name) {
        if (!type.names().contains(name)) {
            throw new IllegalArgumentException(name + " is not a name of " + type.sshName());
        }
        this.type = type;
        this.name = name;
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
        return new PqSignature(type, name);
    }

    @Override
    public String toString() {
        return name;
    }
}
