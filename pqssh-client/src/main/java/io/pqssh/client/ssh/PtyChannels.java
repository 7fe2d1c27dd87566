package io.pqssh.client.ssh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.function.IntConsumer;

import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ChannelShell;
import org.apache.sshd.client.channel.PtyCapableChannelSession;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.io.IoWriteFuture;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * Shell and exec channels that learn whether the server allocated the pty, as ssh does: MINA sends {@code pty-req}
 * without asking for a reply, so a refusal (sshd's {@code PermitTTY no}) went unnoticed. These channels set the
 * want-reply flag of their {@code pty-req} on its way out and match the server's SUCCESS/FAILURE replies to the
 * requests that asked for one, in order (RFC 4254 §5.4: replies come in request order); a refused pty calls
 * {@code onPtyRefused} with the channel's id. With X11 forwarding they send {@code x11-req} first (asking for a reply,
 * as ssh) and report its refusal the same way.
 */
public final class PtyChannels {
    private PtyChannels() {
    }

    /** What to do when the server refuses a request: ssh's lines, by channel id. */
    public record Refusals(IntConsumer pty, IntConsumer x11) {
    }

    static PtyCapableChannelSession shell(ClientSession session, IntConsumer onPtyRefused) throws IOException {
        return shell(session, new Refusals(onPtyRefused, id -> {
        }), null);
    }

    /** As above; with {@code x11} not null, {@code x11-req} goes first, as ssh sends it. */
    public static PtyCapableChannelSession shell(ClientSession session, Refusals refusals,
            io.pqssh.client.x11.X11Forwarding x11) throws IOException {
        Shell ch = new Shell(refusals, x11);
        session.getService(ConnectionService.class).registerChannel(ch);
        return ch;
    }

    static PtyCapableChannelSession exec(ClientSession session, String command, IntConsumer onPtyRefused)
            throws IOException {
        return exec(session, command, new Refusals(onPtyRefused, id -> {
        }), null);
    }

    public static PtyCapableChannelSession exec(ClientSession session, String command, Refusals refusals,
            io.pqssh.client.x11.X11Forwarding x11) throws IOException {
        Exec ch = new Exec(command, refusals, x11);
        session.getService(ConnectionService.class).registerChannel(ch);
        return ch;
    }

    /** ssh's order: x11-req (when forwarding X11) before the agent and pty requests MINA sends next. */
    private static void requestX11(PtyCapableChannelSession ch, io.pqssh.client.x11.X11Forwarding x11)
            throws IOException {
        if (x11 != null) {
            ch.writePacket(x11.request(ch.getSession(), ch.getRecipient()));
        }
    }

    /** The requests of one channel that asked for a reply, oldest first. */
    private static final class Replies {
        private final ArrayDeque<String> pending = new ArrayDeque<>();
        private final Refusals refusals;

        Replies(Refusals refusals) {
            this.refusals = refusals;
        }

        /** Notes a CHANNEL_REQUEST about to be sent; a pty-req is made to ask for its reply. */
        synchronized void outgoing(Buffer b) {
            byte[] a = b.array();
            int p = b.rpos();
            if (b.available() < 10 || a[p] != SshConstants.SSH_MSG_CHANNEL_REQUEST) {
                return;
            }
            int len = ((a[p + 5] & 0xff) << 24) | ((a[p + 6] & 0xff) << 16) | ((a[p + 7] & 0xff) << 8)
                    | (a[p + 8] & 0xff);
            int flag = p + 9 + len;
            if (len < 0 || flag >= b.wpos()) {
                return;
            }
            String name = new String(a, p + 9, len, StandardCharsets.US_ASCII);
            if (name.equals("pty-req")) {
                a[flag] = 1;
            }
            if (a[flag] != 0) {
                pending.add(name);
            }
        }

        synchronized void reply(boolean success, int channelId) {
            String name = pending.poll();
            if (!success && "pty-req".equals(name)) {
                refusals.pty().accept(channelId);
            } else if (!success && "x11-req".equals(name)) {
                refusals.x11().accept(channelId);
            }
        }
    }

    private static final class Shell extends ChannelShell {
        private final Replies replies;
        private final io.pqssh.client.x11.X11Forwarding x11;

        Shell(Refusals refusals, io.pqssh.client.x11.X11Forwarding x11) {
            super(null, Map.of());
            this.replies = new Replies(refusals);
            this.x11 = x11;
        }

        @Override
        protected void doOpenPty() throws IOException {
            requestX11(this, x11);
            super.doOpenPty();
        }

        @Override
        public IoWriteFuture writePacket(Buffer buffer) throws IOException {
            replies.outgoing(buffer);
            return super.writePacket(buffer);
        }

        @Override
        public void handleSuccess() throws IOException {
            replies.reply(true, (int) getChannelId());
            super.handleSuccess();
        }

        @Override
        public void handleFailure() throws IOException {
            replies.reply(false, (int) getChannelId());
            super.handleFailure();
        }
    }

    private static final class Exec extends ChannelExec {
        private final Replies replies;
        private final io.pqssh.client.x11.X11Forwarding x11;

        Exec(String command, Refusals refusals, io.pqssh.client.x11.X11Forwarding x11) {
            super(command, null, Map.of());
            this.replies = new Replies(refusals);
            this.x11 = x11;
        }

        @Override
        protected void doOpenPty() throws IOException {
            requestX11(this, x11);
            super.doOpenPty();
        }

        @Override
        public IoWriteFuture writePacket(Buffer buffer) throws IOException {
            replies.outgoing(buffer);
            return super.writePacket(buffer);
        }

        @Override
        public void handleSuccess() throws IOException {
            replies.reply(true, (int) getChannelId());
            super.handleSuccess();
        }

        @Override
        public void handleFailure() throws IOException {
            replies.reply(false, (int) getChannelId());
            super.handleFailure();
        }
    }
}
