package io.pqssh.client.jump;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.channel.StreamingChannel;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.client.transport.PipeTransport;

/**
 * The transport of a client whose SSH connections are {@code direct-tcpip} channels of {@code hop}, an authenticated
 * session to the previous jump host: connecting to {@code host:port} asks the hop to connect there, and no socket is
 * opened or bound on this machine for it. Only the connector of MINA's SSH session factory is tunnelled; the port
 * forwarding of the sessions made this way (their listeners and their connections to local targets) uses
 * {@code inner}, an ordinary transport. The target is sent as the caller named it (the hop resolves it,
 * as with OpenSSH's {@code -W}); the originator is 127.0.0.1 port 65535, as OpenSSH's stdio forwarding sends.
 */
public final class DirectTcpipTransport extends PipeTransport {
    private static final SshdSocketAddress ORIGINATOR = new SshdSocketAddress("127.0.0.1", 65535);

    private final ClientSession hop;

    public DirectTcpipTransport(ClientSession hop, IoServiceFactoryFactory inner) {
        super("jump", inner);
        this.hop = Objects.requireNonNull(hop, "hop session");
    }

    /** Target as the SSH layer names it: host string as given (never a reverse lookup), port. */
    static SshdSocketAddress target(SocketAddress a) {
        if (a instanceof SshdSocketAddress) {
            return (SshdSocketAddress) a;
        }
        if (a instanceof InetSocketAddress) {
            InetSocketAddress i = (InetSocketAddress) a;
            return new SshdSocketAddress(i.getHostString(), i.getPort());
        }
        throw new IllegalArgumentException("not a host and port: " + a);
    }

    @Override
    protected void connect(Connection c) throws IOException {
        TunnelChannel channel = new TunnelChannel(ORIGINATOR, target(c.target()));
        channel.setStreaming(StreamingChannel.Streaming.Async);
        ConnectionService service = hop.getService(ConnectionService.class);
        service.registerChannel(channel);
        ChannelIoSession session = new ChannelIoSession(c.service(), c.handler(), channel,
                hop.getIoSession().getLocalAddress(), c.target());
        c.onCancel(() -> channel.close(true));
        channel.open().addListener(opened -> {
            Throwable t = opened.getException();
            if (t != null || !opened.isOpened()) {
                channel.close(true);
                c.fail(t != null ? t : new IOException("direct-tcpip channel not opened"));
                return;
            }
            c.start(session, "pqssh-jump-" + session.getId());
        });
    }
}
