package io.pqssh.mina.internal.keys;

import java.io.ByteArrayOutputStream;
import java.security.InvalidKeyException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SignatureException;

import org.apache.sshd.common.session.SessionContext;
import org.apache.sshd.common.signature.Signature;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.mina.keys.PqPrivateKey;
import io.pqssh.mina.keys.PqPublicKey;

/**
 * MINA {@link Signature} for one pqssh signature key type, delegating to pqssh-core. As MINA expects,
 * {@link #sign} returns the raw signature (MINA wraps it in {@code string name, string sig}) and {@link #verify}
 * takes the complete signature blob, which pqssh-core checks strictly (name, length, no trailing bytes).
 */
public final class PqSignature implements Signature {
    private final SignatureKeyType type;
    private final String name;
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private PqPrivateKey signer;
    private PqPublicKey verifier;

    public PqSignature(SignatureKeyType type, String name) {
        this.type = type;
        this.name = name;
    }

    @Override
    public String getAlgorithm() {
        return name;
    }

    /** The name a signature blob carries: the key type's, also when {@code algo} is its certificate algorithm. */
    @Override
    public String getSshAlgorithmName(String algo) {
        return name;
    }

    @Override
    public void initVerifier(SessionContext session, PublicKey key) throws Exception {
        if (!(key instanceof PqPublicKey k) || k.type() != type) {
            throw new InvalidKeyException(name + " signature cannot be verified with a "
                    + (key == null ? "null" : key.getAlgorithm()) + " key");
        }
        verifier = k;
        signer = null;
        data.reset();
    }

    @Override
    public void initSigner(SessionContext session, PrivateKey key) throws Exception {
        if (!(key instanceof PqPrivateKey k) || k.signingKey().type() != type
                || !k.signingKey().keyType().equals(name)) {
            throw new InvalidKeyException(name + " signature cannot be made with a "
                    + (key == null ? "null" : key.getAlgorithm()) + " key");
        }
        signer = k;
        verifier = null;
        data.reset();
    }

    @Override
    public void update(SessionContext session, byte[] hash, int off, int len) {
        data.write(hash, off, len);
    }

    @Override
    public byte[] sign(SessionContext session) throws Exception {
        if (signer == null) {
            throw new IllegalStateException(name + ": not initialized for signing");
        }
        byte[] blob = signer.signingKey().sign(data.toByteArray());
        data.reset();
        SshReader r = new SshReader(blob);
        r.getUtf8();
        return r.getString();
    }

    /**
     * @throws SignatureException the blob is malformed (wrong name, length, trailing bytes); a well-formed signature
     *                            that does not verify gives {@code false}
     */
    @Override
    public boolean verify(SessionContext session, byte[] sig) throws Exception {
        if (verifier == null) {
            throw new IllegalStateException(name + ": not initialized for verification");
        }
        byte[] signed = data.toByteArray();
        data.reset();
        try {
            return verifier.sshPublicKey().verify(signed, sig);
        } catch (MalformedMessageException e) {
            throw new SignatureException("malformed " + name + " signature: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "PqSignature[" + name + "]";
    }
}
