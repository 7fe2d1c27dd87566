package io.pqssh.client.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.pqssh.client.config.ClientConfig;
import io.pqssh.client.config.ConfigException;
import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.agent.KemAuthExtension;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.common.agent.PqsshAgentFactory;
import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.client.PqsshClient;

/**
 * {@code pqssh ssh}'s use of an agent, as ssh's: {@code IdentityAgent} ({@code none}, {@code SSH_AUTH_SOCK} or a
 * path) or else {@code SSH_AUTH_SOCK}; its signature keys for {@code publickey}, its ML-KEM key or certificate
 * (pqssh's extension, docs/agent-protocol.md) for {@code publickey-kem} when no KEM key file is loaded, and the same socket
 * for {@code -A}/{@code ForwardAgent yes}.
 */
public final class ClientAgent {
    private ClientAgent() {
    }

    public static Optional<Path> socket(ClientConfig config) throws ConfigException {
        Optional<String> ia = config.string("IdentityAgent");
        if (ia.isPresent()) {
            String v = ia.get();
            if (v.equalsIgnoreCase("none")) {
                return Optional.empty();
            }
            if (!v.equals("SSH_AUTH_SOCK") && !v.equals("$SSH_AUTH_SOCK")) {
                return Optional.of(config.path(v));
            }
        }
        return AgentClient.socketFromEnvironment();
    }

    /** Installs the agent for publickey and agent forwarding. */
    public static void install(PqsshClient.Builder b, Path socket) {
        b.customize(c -> c.setAgentFactory(new PqsshAgentFactory(socket)));
    }

    /**
     * The agent's ML-KEM key as a {@code publickey-kem} identity whose challenges the agent answers, or empty when the
     * agent has none, is unreachable, or lacks the extension. The first user certificate of a KEM key the agent lists
     * ({@code mlkemN-cert-v01@pqssh.io}, added by {@code pqssh add} from {@code FILE-cert.pub}) is offered instead of
     * the bare key, as one beside an identity file is; else the first KEM key.
     */
    public static Optional<KemClientIdentity> kemIdentity(Path socket, KeyPair signatureKey) {
        List<AgentClient.Identity> ids;
        try (AgentClient a = AgentClient.connect(socket)) {
            ids = a.kemIdentities();
        } catch (IOException e) {
            return Optional.empty();
        }
        Optional<KemClientIdentity> first = Optional.empty();
        for (AgentClient.Identity id : ids) {
            Optional<KemClientIdentity> k = identity(socket, id.blob(), signatureKey);
            if (k.isPresent() && k.get().certificate().isPresent()) {
                return k;
            }
            if (first.isEmpty()) {
                first = k;
            }
        }
        return first;
    }

    /** One listed blob ({@code string key type, string ek}, or a KEM certificate); empty for anything else. */
    private static Optional<KemClientIdentity> identity(Path socket, byte[] blob, KeyPair signatureKey) {
        try {
            SshReader r = new SshReader(blob);
            String type = new String(r.getString(), java.nio.charset.StandardCharsets.US_ASCII);
            if (io.pqssh.client.ssh.KemCertificates.isKemCertificateType(type)) {
                SshCertificate cert = SshCertificate.parse(blob);
                if (cert.type() != CertificateType.USER) {
                    return Optional.empty();
                }
                KemPublicKey ek = KemPublicKey.fromBlob(cert.certifiedKey());
                return Optional.of(KemClientIdentity.remote(ek.algorithm(), ek.raw(), responder(socket, blob),
                        signatureKey).withCertificate(cert));
            }
            byte[] pk = r.getString();
            Optional<KemAlgorithm> alg = KemAlgorithm.fromName(type.toLowerCase(Locale.ROOT));
            if (alg.isEmpty() || pk.length != alg.get().publicKeyBytes()) {
                return Optional.empty();
            }
            return Optional.of(KemClientIdentity.remote(alg.get(), pk, responder(socket, blob), signatureKey));
        } catch (MalformedMessageException | KeyFileException | IllegalArgumentException e) {
            return Optional.empty(); // not a KEM key blob, or a certificate that does not parse: skip it
        }
    }

    /** Asks the agent for each response with the key listed as {@code blob} (the certificate, if that was listed). */
    private static KemClientIdentity.Responder responder(Path socket, byte[] blob) {
        return (session, request, challenge) -> {
            try (AgentClient a = AgentClient.connect(socket)) {
                PqsshAgentFactory.bind(a, session); // as for signatures: destination constraints
                return a.kemResponse(new KemAuthExtension.ResponseRequest(blob, session.getSessionId(),
                        request.user(), request.service(), request.method(), request.credential().alg(),
                        challenge));
            }
        };
    }
}
