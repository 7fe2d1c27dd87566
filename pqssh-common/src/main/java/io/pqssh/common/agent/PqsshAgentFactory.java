package io.pqssh.common.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.apache.sshd.agent.SshAgent;
import org.apache.sshd.agent.SshAgentFactory;
import org.apache.sshd.agent.SshAgentServer;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;

import io.pqssh.core.agent.AgentClient;
import io.pqssh.mina.internal.kex.InitialKexSignature;

/**
 * Agents for MINA, over Unix sockets (MINA's own Unix agent needs Tomcat's native APR library): on a client, the
 * agent at {@code socket} signs for {@code publickey} and serves forwarded-agent channels, each agent connection
 * first bound to the session with {@code session-bind@openssh.com} as OpenSSH's ssh does; on a server,
 * {@link #createServer} makes the forwarded agent's socket for a session.
 */
public final class PqsshAgentFactory implements SshAgentFactory {
    private final Path socket;

    /** @param socket the local agent ({@code SSH_AUTH_SOCK}), or null for none (a server's factory) */
    public PqsshAgentFactory(Path socket) {
        this.socket = socket;
    }

    public static PqsshAgentFactory forServer() {
        return new PqsshAgentFactory(null);
    }

    @Override
    public List<ChannelFactory> getChannelForwardingFactories(FactoryManager manager) {
        if (socket == null) {
            return List.of();
        }
        return List.of(new ChannelFactory() {
            @Override
            public String getName() {
                return ForwardedAgentServer.CHANNEL_TYPE;
            }

            @Override
            public org.apache.sshd.common.channel.Channel createChannel(Session session) {
                return new AgentRelayChannel(socket, InitialKexSignature.of(session));
            }
        });
    }

    @Override
    public SshAgent createClient(Session session, FactoryManager manager) throws IOException {
        if (socket == null) {
            return null;
        }
        try {
            AgentClient agent = AgentClient.connect(socket);
            bind(agent, session);
            return new SocketSshAgent(agent);
        } catch (IOException e) {
            // as ssh: an unreachable agent is not fatal, the other methods still run
            org.slf4j.LoggerFactory.getLogger(PqsshAgentFactory.class).debug("agent: {}", e.getMessage());
            return null;
        }
    }

    /**
     * As ssh before user authentication: binds the agent connection to this session (session-bind@openssh.com), so
     * that an agent holding destination-constrained keys lets them sign for this host only. A refusal is not an
     * error (an agent without the extension, an unverifiable host key type): unconstrained keys still work.
     */
    public static boolean bind(AgentClient agent, Session session) throws IOException {
        Optional<InitialKexSignature.Binding> b = InitialKexSignature.of(session);
        return b.isPresent() && agent.bindSession(b.get().hostKey(), b.get().sessionId(), b.get().signature(), false);
    }

    @Override
    public SshAgentServer createServer(ConnectionService service) throws IOException {
        return new ForwardedAgentServer(service);
    }
}
