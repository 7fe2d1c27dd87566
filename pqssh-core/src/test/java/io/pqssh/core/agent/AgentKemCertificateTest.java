package io.pqssh.core.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.pqssh.core.auth.KemAuthMethod;
import io.pqssh.core.auth.KemAuthRequest;
import io.pqssh.core.auth.KemAuthServer;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.cert.CaSigner;
import io.pqssh.core.cert.CertificateSigner;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * An ML-KEM key added to the agent with its certificate (docs/agent-protocol.md 3, docs/publickey-kem.md 9.5): listed
 * by {@code kem-identities@pqssh.io} as the certificate, and answering a challenge to a {@code publickey-kem} request
 * that carried the certificate (alg the certificate type, key field the certificate blob), nothing else.
 */
class AgentKemCertificateTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] SID = new byte[32];
    private static final byte[] EXTENSION_FAILURE = {AgentProtocol.SSH_AGENT_EXTENSION_FAILURE};

    private static SshCertificate certify(MlKemSshKey key) throws Exception {
        return CertificateSigner.forKey(KemPublicKey.blob(KemAlgorithm.MLKEM768, key.keyPair().publicKey()))
                .keyId("kem").principals(List.of("alice"))
                .sign(CaSigner.of(SignatureKeyType.ED25519.scheme().generateKey(RANDOM)), RANDOM);
    }

    /** ADD_IDENTITY with {@code string CERT_TYPE, string certificate}, then the key's private fields (PROTOCOL.agent). */
    private static byte[] addWithCertificate(MlKemSshKey key, SshCertificate cert) {
        SshWriter w = new SshWriter().putByte(AgentProtocol.SSH_AGENTC_ADD_IDENTITY).putString(cert.certType())
                .putString(cert.blob());
        key.writePrivateFields(w);
        return w.putString("kem with certificate").toByteArray();
    }

    private static byte[] respond(Agent a, byte[] listedBlob, String alg, KemAuthServer.IssuedChallenge issued) {
        return a.handle(new KemAuthExtension.ResponseRequest(listedBlob, SID, "alice", "ssh-connection",
                KemAuthMethod.PUBLICKEY_KEM, alg, issued.challenge()).encode());
    }

    @Test
    void certificateIsListedAndAnswersChallengesToTheCertificateOnly() throws Exception {
        MlKemSshKey key = new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM768, RANDOM));
        SshCertificate cert = certify(key);
        Agent a = new Agent();
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, a.handle(addWithCertificate(key, cert))[0]);

        SshReader listed = new SshReader(a.handle(new SshWriter().putByte(AgentProtocol.SSH_AGENTC_EXTENSION)
                .putString(KemAuthExtension.IDENTITIES).toByteArray()));
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, listed.getByte());
        assertEquals(1, listed.getUint32());
        assertArrayEquals(cert.blob(), listed.getString(), "listed as the certificate");

        KemAuthRequest request = KemAuthRequest.kem("alice", "ssh-connection", KemCredential.ofCertificate(cert));
        KemAuthServer.IssuedChallenge issued = new KemAuthServer(RANDOM).issue(SID, request);
        SshReader reply = new SshReader(respond(a, cert.blob(), cert.certType(), issued));
        assertEquals(AgentProtocol.SSH_AGENT_SUCCESS, reply.getByte());
        assertTrue(issued.pending().verify(reply.getString()), "the response binds the certificate blob into CTX");

        // the plain name with the certificate-held key, or the plain key blob, are not what was added
        KemAuthServer.IssuedChallenge again = new KemAuthServer(RANDOM).issue(SID, request);
        assertArrayEquals(EXTENSION_FAILURE, respond(a, cert.blob(), "mlkem768", again));
        assertArrayEquals(EXTENSION_FAILURE, respond(a, key.publicKeyBlob(), cert.certType(), again));
    }

    @Test
    void plainKeyDoesNotAnswerForACertificate() throws Exception {
        MlKemSshKey key = new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM768, RANDOM));
        SshCertificate cert = certify(key);
        Agent a = new Agent();
        a.add(key, "plain");
        KemAuthRequest request = KemAuthRequest.kem("alice", "ssh-connection", KemCredential.ofCertificate(cert));
        KemAuthServer.IssuedChallenge issued = new KemAuthServer(RANDOM).issue(SID, request);
        assertArrayEquals(EXTENSION_FAILURE, respond(a, key.publicKeyBlob(), cert.certType(), issued));
    }
}
