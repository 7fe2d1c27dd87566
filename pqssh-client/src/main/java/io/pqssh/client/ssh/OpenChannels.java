package io.pqssh.client.ssh;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

import org.apache.sshd.client.channel.ChannelSession;
import org.apache.sshd.common.channel.AbstractChannel;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.forward.TcpipClientChannel;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.helpers.AbstractConnectionService;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.common.forward.OutgoingRelayChannel;

/**
 * ssh's {@code ~#} listing ({@code channel_open_message}): a header, then one line per open channel with its number,
 * ssh's name for it ({@code client-session}, {@code direct-tcpip: listening port ...}) and, in parentheses, the
 * status fields pqssh has of ssh's: state {@code t4} (open), the type, the peer's channel number, the input and
 * output states (0 open, 3 closed). ssh's descriptor numbers and buffer counts have no counterpart and are left out.
 */
public final class OpenChannels {
    private OpenChannels() {
    }

    /** The listing, CR LF line ends (also a master's answer to {@code ssh -O channels}). */
    public static String message(Session session) {
        StringBuilder b = new StringBuilder("The following connections are open:\r\n");
        if (!(session.getService(ConnectionService.class) instanceof AbstractConnectionService cs)) {
            return b.toString();
        }
        java.util.List<Channel> open = new java.util.ArrayList<>(cs.getChannels());
        open.sort(java.util.Comparator.comparingLong(Channel::getChannelId));
        for (Channel c : open) {
            if (c.isClosing()) {
                continue;
            }
            int in = c instanceof AbstractChannel a && a.isEofSent() ? 3 : 0;
            int out = c instanceof AbstractChannel a && a.isEofSignalled() ? 3 : 0;
            b.append("  #").append(c.getChannelId()).append(' ').append(name(c)).append(" (t4 [").append(type(c))
                    .append("] r").append(c.getRecipient()).append(" i").append(in).append("/0 o").append(out)
                    .append("/0)\r\n");
        }
        return b.toString();
    }

    private static String type(Channel c) {
        if (c instanceof ChannelSession) {
            return "session";
        }
        if (c instanceof org.apache.sshd.client.channel.AbstractClientChannel a) {
            return a.getChannelType();
        }
        return c.getClass().getSimpleName();
    }

    private static String name(Channel c) {
        if (c instanceof ChannelSession) {
            return "client-session";
        }
        if (c instanceof TcpipClientChannel t && t.getTunnelEntrance() != null && t.getTunnelExit() != null) {
            SshdSocketAddress from = t.getTunnelEntrance();
            SshdSocketAddress to = t.getTunnelExit();
            return "direct-tcpip: listening port " + from.getPort() + " for " + to.getHostName() + " port "
                    + to.getPort();
        }
        if (c instanceof OutgoingRelayChannel r) {
            try {
                SocketAddress peer = r.local().getRemoteAddress();
                SocketAddress local = r.local().getLocalAddress();
                if (peer instanceof InetSocketAddress p && local instanceof InetSocketAddress l) {
                    return r.getChannelType() + ": listening port " + l.getPort() + ", connect from "
                            + p.getAddress().getHostAddress() + " port " + p.getPort() + " to "
                            + l.getAddress().getHostAddress() + " port " + l.getPort();
                }
            } catch (IOException e) {
                // closed meanwhile: the type alone
            }
            return r.getChannelType();
        }
        return type(c);
    }
}
