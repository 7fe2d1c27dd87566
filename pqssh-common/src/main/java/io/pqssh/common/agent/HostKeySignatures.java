package io.pqssh.common.agent;

import java.security.PublicKey;
import java.util.List;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.agent.SessionBindings;
import io.pqssh.mina.internal.kex.KexInitDefaults;

/**
 * The agent's check of a {@code session-bind@openssh.com} signature for every host key type a client may have
 * bound: pqssh's own types in pqssh-core, RSA and ECDSA (which pqssh-core does not implement) through MINA's
 * signature factories, with the algorithm the signature names (ssh-agent's sshkey_verify with no algorithm given).
 */
public final class HostKeySignatures implements SessionBindings.HostKeyVerifier {
    private static final List<NamedFactory<Signature>> FACTORIES = KexInitDefaults.hostKeyAlgorithms();

    @Override
    public boolean verify(byte[] hostKeyBlob, byte[] data, byte[] signatureBlob) {
        if (SessionBindings.PQSSH_TYPES.verify(hostKeyBlob, data, signatureBlob)) {
            return true;
        }
        try {
            PublicKey key = new ByteArrayBuffer(hostKeyBlob).getRawPublicKey();
            String alg = new ByteArrayBuffer(signatureBlob).getString();
            NamedFactory<Signature> f = NamedResource.findByName(alg, String.CASE_INSENSITIVE_ORDER, FACTORIES);
            if (f == null) {
                return false;
            }
            Signature s = f.create();
            s.initVerifier(null, key);
            s.update(null, data);
            return s.verify(null, signatureBlob);
        } catch (Exception e) {
            return false;
        }
    }
}
