package io.pqssh.client.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.client.transport.PipeTransport;

/**
 * The transport of a client whose SSH connections run over a {@code ProxyCommand} (its stdin and stdout) or over the
 * socket a {@code ProxyUseFdpass} command hands back. Only the connector of MINA's SSH session factory goes through
 * the proxy (see {@link PipeTransport}). The session's remote address is the destination as named ({@code %h},
 * {@code %p}); nothing on this machine listens for it.
 */
public final class ProxyTransport extends PipeTransport {
    /** Opens one proxied byte stream; called once per SSH connection. */
    @FunctionalInterface
    public interface Opener {
        Streams open() throws IOException;
    }

    /** What ends the transport underneath: hangs the proxy command up, or shuts the passed socket down. */
    @FunctionalInterface
    public interface Endpoint {
        void close();
    }

    /** The two directions of a proxied connection and what ends it. */
    public record Streams(InputStream in, OutputStream out, Endpoint endpoint) {
    }

    /** The local end as ssh names a proxied connection ("UNKNOWN port 65535"). */
    private static final SshdSocketAddress LOCAL = new SshdSocketAddress("UNKNOWN", 65535);

    private final Opener opener;

    public ProxyTransport(Opener opener, IoServiceFactoryFactory inner) {
        super("proxy", inner);
        this.opener = Objects.requireNonNull(opener, "opener");
    }

    /** A {@code ProxyCommand} opener: each connection starts the command. */
    public static Opener command(ProxyCommand command) {
        return () -> {
            Process p = command.start();
            return new Streams(p.getInputStream(), p.getOutputStream(), () -> ProxyCommand.hangUp(p, 3000));
        };
    }

    @Override
    protected void connect(Connection c) throws IOException {
        Streams s = opener.open();
        StreamIoSession session = new StreamIoSession(c.service(), c.handler(), s.in(), s.out(), s.endpoint(), LOCAL,
                c.target());
        c.onCancel(() -> session.close(true));
        c.start(session, "pqssh-proxy-read-" + session.getId());
    }
}
