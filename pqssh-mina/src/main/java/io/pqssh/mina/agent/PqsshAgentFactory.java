package io.pqssh.mina.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.apache.sshd.agent.SshAgent;
import org.apache.sshd.agent.SshAgentFactory;
import org.apache.sshd.agent.SshAgentServer;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;

import io.pqssh.core.agent.AgentClient;

/**
 * Agents for MINA, over Unix sockets (MINA's own Unix agent needs Tomcat's native APR library): on a client, the
 * agent at {@code socket} signs for {@code publickey} and serves forwarded-agent channels; on a server,
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
                return new AgentRelayChannel(socket);
            }
        });
    }

    @Override
    public SshAgent createClient(Session session, FactoryManager manager) throws IOException {
        if (socket == null) {
            return null;
        }
        try {
            return new SocketSshAgent(AgentClient.connect(socket));
        } catch (IOException e) {
            // as ssh: an unreachable agent is not fatal, the other methods still run
            org.slf4j.LoggerFactory.getLogger(PqsshAgentFactory.class).debug("agent: {}", e.getMessage());
            return null;
        }
    }

    @Override
    public SshAgentServer createServer(ConnectionService service) throws IOException {
        return new ForwardedAgentServer(service);
    }
}
