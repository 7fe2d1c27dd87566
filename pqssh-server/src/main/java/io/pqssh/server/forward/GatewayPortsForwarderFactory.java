package io.pqssh.server.forward;

import java.io.IOException;
import java.net.InetSocketAddress;

import org.apache.sshd.common.forward.DefaultForwarder;
import org.apache.sshd.common.forward.Forwarder;
import org.apache.sshd.common.forward.ForwarderFactory;
import org.apache.sshd.common.io.IoAcceptor;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.util.net.SshdSocketAddress;

/**
 * MINA's forwarder with sshd's {@code GatewayPorts}: a remote (-R) listener binds the loopback address ({@code no},
 * the default), the wildcard address ({@code yes}), or what the client asked for ({@code clientspecified}: empty or
 * {@code *} is the wildcard, {@code localhost} loopback). The forwarded-tcpip channels still name the address the
 * client requested, which is how clients match them to their forwardings.
 */
public final class GatewayPortsForwarderFactory implements ForwarderFactory {
    private final ForwardingPolicy.GatewayPorts mode;

    public GatewayPortsForwarderFactory(ForwardingPolicy.GatewayPorts mode) {
        this.mode = mode;
    }

    @Override
    public Forwarder create(ConnectionService service) {
        return new DefaultForwarder(service) {
            @Override
            protected InetSocketAddress doBind(SshdSocketAddress address, IoAcceptor acceptor) throws IOException {
                // a Match block's GatewayPorts for this connection, if any
                ForwardingPolicy.GatewayPorts m = io.pqssh.server.ConnectionConfig.get(service.getSession(),
                        c -> c.forwarding.gatewayPorts(), mode);
                return super.doBind(bindAddress(m, address), acceptor);
            }
        };
    }

    static SshdSocketAddress bindAddress(ForwardingPolicy.GatewayPorts mode, SshdSocketAddress requested) {
        String host = requested.getHostName();
        int port = requested.getPort();
        switch (mode) {
            case YES:
                return new SshdSocketAddress("0.0.0.0", port);
            case CLIENTSPECIFIED:
                if (host == null || host.isEmpty() || host.equals("*")) {
                    return new SshdSocketAddress("0.0.0.0", port);
                }
                if (host.equalsIgnoreCase("localhost")) {
                    return new SshdSocketAddress("127.0.0.1", port);
                }
                return requested;
            case NO:
            default:
                return new SshdSocketAddress("127.0.0.1", port);
        }
    }
}
