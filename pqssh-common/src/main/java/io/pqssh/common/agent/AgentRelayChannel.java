package io.pqssh.common.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Optional;

import org.apache.sshd.client.future.DefaultOpenFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.ChannelOutputStream;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.channel.AbstractServerChannel;

import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.agent.AgentProtocol;
import io.pqssh.mina.internal.kex.InitialKexSignature;

/**
 * The client's end of a forwarded agent connection: an {@code auth-agent@openssh.com} channel the server opened,
 * relayed byte for byte to the local agent socket ({@code SSH_AUTH_SOCK}), so every message, pqssh's KEM extensions
 * included, reaches the agent unchanged. The agent's framing is its own business.
 */
final class AgentRelayChannel extends AbstractServerChannel {
    private final Path socket;
    private final Optional<InitialKexSignature.Binding> binding;
    private SocketChannel agent;
    private OutputStream toAgent;

    AgentRelayChannel(Path socket, Optional<InitialKexSignature.Binding> binding) {
        super("", Collections.emptyList(), null);
        this.socket = socket;
        this.binding = binding;
    }

    @Override
    protected OpenFuture doInit(Buffer buffer) {
        OpenFuture f = new DefaultOpenFuture(this, this);
        try {
            agent = SocketChannel.open(StandardProtocolFamily.UNIX);
            agent.connect(UnixDomainSocketAddress.of(socket));
            toAgent = Channels.newOutputStream(agent);
            addCloseFutureListener(cf -> closeAgent());
            OutputStream toServer = new ChannelOutputStream(this, getRemoteWindow(), log,
                    SshConstants.SSH_MSG_CHANNEL_DATA, true);
            InputStream fromAgent = Channels.newInputStream(agent);
            bindForForwarding(fromAgent);
            Thread pump = new Thread(() -> {
                byte[] buf = new byte[8192];
                try {
                    int n;
                    while ((n = fromAgent.read(buf)) > 0) {
                        toServer.write(buf, 0, n);
                        toServer.flush();
                    }
                } catch (IOException e) {
                    // agent or channel gone
                } finally {
                    close(false);
                }
            }, "agent-relay");
            pump.setDaemon(true);
            pump.start();
            signalChannelOpenSuccess();
            f.setOpened();
        } catch (IOException | RuntimeException e) {
            closeAgent();
            signalChannelOpenFailure(e);
            f.setException(e);
        }
        return f;
    }

    /**
     * As ssh's client_request_agent: before relaying, binds the new agent connection to this session for forwarding
     * ({@code is_forwarding} 1), so the agent knows the hop a destination-constrained key would be used through.
     * The agent's answer is read here, never relayed; a refusal is not an error.
     */
    private void bindForForwarding(InputStream fromAgent) throws IOException {
        if (binding.isEmpty()) {
            return;
        }
        InitialKexSignature.Binding b = binding.get();
        AgentProtocol.writeMessage(toAgent,
                AgentClient.sessionBindMessage(b.hostKey(), b.sessionId(), b.signature(), true));
        if (AgentProtocol.readMessage(fromAgent) == null) {
            throw new IOException("the agent closed the connection");
        }
    }

    @Override
    protected void doWriteData(byte[] data, int off, long len) throws IOException {
        toAgent.write(data, off, (int) len);
        getLocalWindow().release(len);
    }

    @Override
    protected void doWriteExtendedData(byte[] data, int off, long len) throws IOException {
        throw new IOException("an agent channel carries no extended data");
    }

    @Override
    public void handleEof() throws IOException {
        super.handleEof();
        closeAgent();
    }

    private void closeAgent() {
        try {
            if (agent != null) {
                agent.close();
            }
        } catch (IOException e) {
            // already closed
        }
    }
}
