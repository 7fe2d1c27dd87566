package io.pqssh.client.forward;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.EnumSet;

import org.apache.sshd.client.channel.ChannelDirectTcpip;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.client.config.ConfigException;
import io.pqssh.client.ssh.ClientLog;

/**
 * {@code -W host:port}: standard input and output become a {@code direct-tcpip} channel to {@code host:port}, opened
 * by the server, as OpenSSH's stdio forwarding (so {@code ProxyCommand pqssh ssh -W %h:%p jump} works). End of input
 * sends CHANNEL_EOF and output keeps flowing until the server closes the channel. Originator 127.0.0.1 port 65535,
 * as OpenSSH sends for stdio forwarding.
 */
public final class StdioForward {
    static final SshdSocketAddress ORIGINATOR = new SshdSocketAddress("127.0.0.1", 65535);

    private final String host;
    private final int port;

    private StdioForward(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /** {@code host:port} or {@code [address]:port}; anything else is ssh's "Bad stdio forwarding specification". */
    public static StdioForward parse(String spec) throws ConfigException {
        String bad = "Bad stdio forwarding specification '" + spec + "'";
        int colon = spec.lastIndexOf(':');
        if (colon <= 0 || colon == spec.length() - 1) {
            throw new ConfigException(bad);
        }
        String h = spec.substring(0, colon);
        String p = spec.substring(colon + 1);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        } else if (h.contains(":")) {
            throw new ConfigException(bad);
        }
        if (h.isEmpty() || !p.matches("\\d{1,5}") || Integer.parseInt(p) == 0 || Integer.parseInt(p) > 65535) {
            throw new ConfigException(bad);
        }
        return new StdioForward(h, Integer.parseInt(p));
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /**
     * Runs the forwarding until the channel closes; 0 then, 255 (after ssh's messages) when the server refuses to
     * open it.
     */
    public int run(ClientSession session, InputStream in, OutputStream out, ClientLog log, Duration openTimeout)
            throws IOException {
        log.debug1("Connecting to " + host + " port " + port + " through the server (stdio forwarding).");
        try (ChannelDirectTcpip ch = session.createDirectTcpipChannel(ORIGINATOR, new SshdSocketAddress(host, port))) {
            ch.setIn(in);
            ch.setOut(out);
            try {
                ch.open().verify(openTimeout);
            } catch (IOException e) {
                String refused = openFailure(e);
                log.fatal(refused != null ? refused : "channel " + ch.getChannelId() + ": open failed: "
                        + e.getMessage());
                log.fatal("stdio forwarding failed");
                return 255;
            }
            ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), 0L);
            out.flush();
            return 0;
        }
    }

    /** ssh's line for a refused channel open ({@code channel N: open failed: reason: text}), or null if none. */
    public static String openFailure(Throwable e) {
        return io.pqssh.common.forward.OpenFailure.line(e);
    }
}
