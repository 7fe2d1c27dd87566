package io.pqssh.client.mux;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.exception.SshChannelNotFoundException;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.UnknownChannelReferenceHandler;
import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.client.ssh.ClientLog;

/**
 * The master side of PROTOCOL.mux's proxy mode (MUX_C_PROXY, {@code ssh -O proxy}): after MUX_S_PROXY the mux
 * client ("downstream") speaks unencrypted SSH connection-protocol packets on the control socket ({@code uint32
 * length, byte 0 (padding length), byte type, payload}), and this master relays its channel messages to the real
 * connection. Each channel a downstream opens gets a channel number of the master's (from {@link #FIRST_ID} up, a
 * range MINA's own numbering, counting from 0, does not reach); the server's messages for that number are not
 * MINA channels, so they arrive at this class as MINA's "unknown channel" references and go back to the
 * downstream with its own number. Windows are the downstream's and the server's business: the master only relays.
 *
 * <p>As OpenSSH's master, a downstream's channels are closed when it goes away. Stricter than OpenSSH's master: a
 * downstream may address only the server's numbers of channels it opened itself (not the master's or another
 * client's), may not send open confirmations (the server's channel opens are never routed to a downstream), and
 * its global requests (tcpip-forward, keepalives) are answered with REQUEST_FAILURE here, not sent on; X11
 * requests are refused and agent forwarding is allowed only if the master's ForwardAgent is on. Anything else —
 * a malformed packet, another message type — ends that downstream only, with one error line.
 */
final class MuxProxy {
    /** The first channel number given to a downstream's channel on the real connection. */
    static final long FIRST_ID = 0x40000000L;
    private static final long LAST_ID = 0x7fffffffL;
    /** Channels one downstream may have open at once (ssh's clients open a handful). */
    private static final int MAX_CHANNELS_PER_DOWNSTREAM = 1024;

    private final ClientSession session;
    private final ClientLog log;
    private final boolean allowAgent;
    private final Map<Long, ProxyChannel> byLocal = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(FIRST_ID);
    private final Set<Downstream> downstreams = ConcurrentHashMap.newKeySet();

    private MuxProxy(ClientSession session, ClientLog log, boolean allowAgent) {
        this.session = session;
        this.log = log;
        this.allowAgent = allowAgent;
    }

    /** Hooks the relay into the session's connection service; messages for MINA's own channels are untouched. */
    static MuxProxy install(ClientSession session, ClientLog log, boolean allowAgent) {
        MuxProxy p = new MuxProxy(session, log, allowAgent);
        ConnectionService cs = session.getService(ConnectionService.class);
        UnknownChannelReferenceHandler previous = cs.getUnknownChannelReferenceHandler();
        cs.setUnknownChannelReferenceHandler((service, cmd, id, buffer) -> {
            if (id >= FIRST_ID && id <= LAST_ID) {
                p.fromServer(cmd, id, buffer);
                return null;
            }
            UnknownChannelReferenceHandler h = previous != null ? previous
                    : session.resolveUnknownChannelReferenceHandler();
            if (h == null) {
                throw new SshChannelNotFoundException(id, "Received " + SshConstants.getCommandMessageName(cmd)
                        + " on unknown channel " + id);
            }
            return h.handleUnknownChannelCommand(service, cmd, id, buffer);
        });
        session.addCloseFutureListener(f -> p.closeAll());
        return p;
    }

    /**
     * {@code -O channels}' lines for the relayed channels, in the form of ssh's listing of its mux-proxy channels:
     * our number, then in parentheses the type, the server's number ({@code r}) and the client's ({@code m}).
     */
    String channelLines() {
        StringBuilder b = new StringBuilder();
        java.util.List<ProxyChannel> all = new java.util.ArrayList<>(byLocal.values());
        all.sort(java.util.Comparator.comparingLong(c -> c.localId));
        for (ProxyChannel c : all) {
            long server;
            synchronized (c) {
                server = c.serverId;
            }
            b.append("  #").append(c.localId).append(" mux-proxy ([").append(c.ctype).append("] ")
                    .append(server >= 0 ? "r" + server : "nr").append(" m").append(c.downId).append(")\r\n");
        }
        return b.toString();
    }

    private void closeAll() {
        for (Downstream d : downstreams) {
            d.sock.shutdown();
        }
    }

    /**
     * Relays one downstream until it disconnects or breaks the protocol; its channels are then closed. Runs on the
     * control connection's thread, after MUX_S_PROXY was sent.
     */
    void serve(UnixSocket sock) {
        Downstream d = new Downstream(sock);
        downstreams.add(d);
        try {
            d.run();
        } finally {
            downstreams.remove(d);
            d.end();
        }
    }

    /** One of a downstream's channels: its number, ours on the connection, and the server's. */
    private static final class ProxyChannel {
        final Downstream owner;
        final String ctype;
        final long downId;
        final long localId;
        long serverId = -1; // guarded by this
        boolean closeSent; // guarded by this: CHANNEL_CLOSE went to the server
        boolean closeReceived; // guarded by this
        boolean orphan; // guarded by this: the downstream is gone

        ProxyChannel(Downstream owner, String ctype, long downId, long localId) {
            this.owner = owner;
            this.ctype = ctype;
            this.downId = downId;
            this.localId = localId;
        }
    }

    /** A downstream's protocol error: ends that downstream. */
    private static final class ProxyException extends IOException {
        private static final long serialVersionUID = 1L;

        ProxyException(String message) {
            super(message);
        }
    }

    private long allocateId() throws ProxyException {
        for (int i = 0; i < 1_000_000; i++) {
            long id = nextId.getAndIncrement();
            if (id > LAST_ID) {
                nextId.compareAndSet(id + 1, FIRST_ID);
                continue;
            }
            if (!byLocal.containsKey(id)) {
                return id;
            }
        }
        throw new ProxyException("no free channel number");
    }

    private void toServer(byte type, byte[] payload, int off, int len) throws IOException {
        Buffer b = session.createBuffer(type, len);
        b.putRawBytes(payload, off, len);
        session.writePacket(b);
    }

    private void closeToServer(long serverId) {
        try {
            Buffer b = session.createBuffer(SshConstants.SSH_MSG_CHANNEL_CLOSE, Integer.BYTES);
            b.putUInt(serverId);
            session.writePacket(b);
        } catch (IOException e) {
            log.debug1("mux proxy: close not sent: " + e.getMessage());
        }
    }

    /** A message from the server for one of the downstreams' channels (MINA's I/O thread: never blocks). */
    private void fromServer(byte cmd, long localId, Buffer buffer) {
        ProxyChannel c = byLocal.get(localId);
        if (c == null) {
            log.debug2("mux proxy: " + SshConstants.getCommandMessageName(cmd) + " for channel " + localId
                    + ", which is gone");
            return;
        }
        byte[] rest = buffer.getCompactData();
        boolean forward;
        long closeTo = -1;
        synchronized (c) {
            forward = !c.orphan;
            switch (cmd) {
                case SshConstants.SSH_MSG_CHANNEL_OPEN_CONFIRMATION -> {
                    if (rest.length >= 4) {
                        c.serverId = u32(rest, 0);
                        c.owner.byServer.put(c.serverId, c);
                    }
                    if (c.orphan && !c.closeSent && c.serverId >= 0) {
                        c.closeSent = true;
                        closeTo = c.serverId;
                    }
                }
                case SshConstants.SSH_MSG_CHANNEL_OPEN_FAILURE -> forget(c);
                case SshConstants.SSH_MSG_CHANNEL_CLOSE -> {
                    c.closeReceived = true;
                    if (c.orphan && !c.closeSent) {
                        c.closeSent = true;
                        closeTo = c.serverId;
                    }
                    if (c.closeSent) {
                        forget(c);
                    }
                }
                default -> {
                    // data, requests, replies: relayed as they are
                }
            }
        }
        if (closeTo >= 0) {
            closeToServer(closeTo);
        }
        if (forward) {
            byte[] p = new byte[4 + 2 + 4 + rest.length];
            int n = p.length - 4;
            p[0] = (byte) (n >>> 24);
            p[1] = (byte) (n >>> 16);
            p[2] = (byte) (n >>> 8);
            p[3] = (byte) n;
            p[4] = 0; // padding length
            p[5] = cmd;
            putU32(p, 6, c.downId);
            System.arraycopy(rest, 0, p, 10, rest.length);
            c.owner.queue(p);
        }
    }

    private void forget(ProxyChannel c) {
        byLocal.remove(c.localId);
        c.owner.channels.remove(c);
        if (c.serverId >= 0) {
            c.owner.byServer.remove(c.serverId, c);
        }
    }

    static long u32(byte[] b, int off) {
        return ((b[off] & 0xffL) << 24) | ((b[off + 1] & 0xffL) << 16) | ((b[off + 2] & 0xffL) << 8)
                | (b[off + 3] & 0xffL);
    }

    static void putU32(byte[] b, int off, long v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    /** One proxy-mode client: its reader (the calling thread) and a writer thread of its own. */
    private final class Downstream {
        private final UnixSocket sock;
        final Set<ProxyChannel> channels = ConcurrentHashMap.newKeySet();
        final Map<Long, ProxyChannel> byServer = new ConcurrentHashMap<>();
        private final BlockingQueue<byte[]> out = new LinkedBlockingQueue<>();
        private final Thread writer;
        private volatile boolean closed;
        private static final byte[] END = new byte[0];

        Downstream(UnixSocket sock) {
            this.sock = sock;
            this.writer = new Thread(this::writeLoop, "pqssh-mux-proxy-out");
            writer.setDaemon(true);
        }

        void queue(byte[] packet) {
            if (!closed) {
                out.add(packet);
            }
        }

        private void writeLoop() {
            try {
                while (true) {
                    byte[] p = out.take();
                    if (p == END) {
                        return;
                    }
                    sock.write(p);
                }
            } catch (IOException e) {
                log.debug1("mux proxy: write to client: " + e.getMessage());
                sock.shutdown(); // the reader sees its end
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void run() {
            writer.start();
            log.debug1("mux: proxy client connected");
            try {
                byte[] body;
                while ((body = readPacket()) != null) {
                    handle(body);
                }
                log.debug1("mux: proxy client disconnected");
            } catch (ProxyException | MuxBuffer.MuxException e) {
                log.error("mux proxy client: " + e.getMessage() + "; closing it");
            } catch (IOException e) {
                if (!closed) {
                    log.debug1("mux proxy client: " + e.getMessage());
                }
            }
        }

        /** The next packet (padding length, type, payload); null at a clean end of stream. */
        private byte[] readPacket() throws IOException {
            byte[] len = sock.readFully(4);
            if (len == null) {
                return null;
            }
            long n = u32(len, 0);
            if (n > Mux.MAX_PACKET) {
                throw new ProxyException("bad packet length " + n);
            }
            byte[] body = sock.readFully((int) n);
            if (body == null) {
                throw new ProxyException("connection closed inside a packet");
            }
            return body;
        }

        private void handle(byte[] b) throws IOException {
            if (b.length < 2) {
                throw new ProxyException("short message");
            }
            byte type = b[1];
            int off = 2;
            int len = b.length - 2;
            switch (type) {
                case SshConstants.SSH_MSG_CHANNEL_OPEN -> open(b, off, len);
                case SshConstants.SSH_MSG_CHANNEL_WINDOW_ADJUST, SshConstants.SSH_MSG_CHANNEL_DATA,
                        SshConstants.SSH_MSG_CHANNEL_EXTENDED_DATA, SshConstants.SSH_MSG_CHANNEL_EOF,
                        SshConstants.SSH_MSG_CHANNEL_CLOSE, SshConstants.SSH_MSG_CHANNEL_REQUEST,
                        SshConstants.SSH_MSG_CHANNEL_SUCCESS, SshConstants.SSH_MSG_CHANNEL_FAILURE ->
                    onChannel(type, b, off, len);
                case SshConstants.SSH_MSG_GLOBAL_REQUEST -> globalRequest(b, off, len);
                default -> throw new ProxyException("unexpected message type " + (type & 0xff));
            }
        }

        /** CHANNEL_OPEN: string type, uint32 sender (the downstream's number), then the rest unchanged. */
        private void open(byte[] b, int off, int len) throws IOException {
            MuxBuffer m = MuxBuffer.reading(java.util.Arrays.copyOfRange(b, off, off + len));
            byte[] ctype = m.bytes();
            long downId = Integer.toUnsignedLong(m.u32());
            int restOff = off + 4 + ctype.length + 4;
            if (channels.size() >= MAX_CHANNELS_PER_DOWNSTREAM) {
                throw new ProxyException("too many channels");
            }
            long localId = allocateId();
            ProxyChannel c = new ProxyChannel(this, new String(ctype, StandardCharsets.UTF_8), downId, localId);
            byLocal.put(localId, c);
            channels.add(c);
            log.debug2("mux proxy: channel " + downId + " (" + new String(ctype, StandardCharsets.UTF_8)
                    + ") is " + localId + " on the connection");
            byte[] p = new byte[len];
            putU32(p, 0, ctype.length);
            System.arraycopy(ctype, 0, p, 4, ctype.length);
            putU32(p, 4 + ctype.length, localId);
            System.arraycopy(b, restOff, p, 8 + ctype.length, off + len - restOff);
            toServer(SshConstants.SSH_MSG_CHANNEL_OPEN, p, 0, p.length);
        }

        /** A message for a channel: its recipient must be the server's number of one of this client's channels. */
        private void onChannel(byte type, byte[] b, int off, int len) throws IOException {
            if (len < 4) {
                throw new ProxyException("short " + SshConstants.getCommandMessageName(type));
            }
            long serverId = u32(b, off);
            ProxyChannel c = byServer.get(serverId);
            if (c == null) {
                throw new ProxyException(SshConstants.getCommandMessageName(type) + " for channel " + serverId
                        + ", which is not one of this client's");
            }
            if (type == SshConstants.SSH_MSG_CHANNEL_REQUEST && refusedRequest(c, b, off + 4, len - 4)) {
                return;
            }
            if (type == SshConstants.SSH_MSG_CHANNEL_CLOSE) {
                synchronized (c) {
                    if (c.closeSent) {
                        return;
                    }
                    c.closeSent = true;
                    if (c.closeReceived) {
                        forget(c);
                    }
                }
            }
            toServer(type, b, off, len); // not under the channel's lock: a write may wait for a key exchange
        }

        /** x11-req always, auth-agent-req when the master does not forward its agent: CHANNEL_FAILURE here. */
        private boolean refusedRequest(ProxyChannel c, byte[] b, int off, int len) throws IOException {
            MuxBuffer m = MuxBuffer.reading(java.util.Arrays.copyOfRange(b, off, off + len));
            byte[] raw = m.bytes();
            if (!m.hasMore()) {
                throw new ProxyException("malformed channel request");
            }
            String name = new String(raw, StandardCharsets.UTF_8);
            boolean wantReply = b[off + 4 + raw.length] != 0;
            boolean refuse = name.equals("x11-req")
                    || (name.equals("auth-agent-req@openssh.com") && !allowAgent);
            if (!refuse) {
                return false;
            }
            log.debug1("mux proxy: " + name + " refused on channel " + c.downId);
            if (wantReply) {
                byte[] p = new byte[4 + 2 + 4];
                putU32(p, 0, 6);
                p[5] = SshConstants.SSH_MSG_CHANNEL_FAILURE;
                putU32(p, 6, c.downId);
                queue(p);
            }
            return true;
        }

        /** Not sent on: answered REQUEST_FAILURE when a reply is wanted (tcpip-forward, keepalive@openssh.com). */
        private void globalRequest(byte[] b, int off, int len) throws IOException {
            MuxBuffer m = MuxBuffer.reading(java.util.Arrays.copyOfRange(b, off, off + len));
            byte[] raw = m.bytes();
            String name = new String(raw, StandardCharsets.UTF_8);
            int at = off + 4 + raw.length;
            if (at >= off + len) {
                throw new ProxyException("malformed global request");
            }
            boolean wantReply = b[at] != 0;
            log.debug1("mux proxy: global request " + name + " refused");
            if (wantReply) {
                // OpenSSH's mux packet reader refuses a packet under 5 bytes ("incomplete message"), and a bare
                // REQUEST_FAILURE is 2: it goes with 3 bytes of padding, said so in the padding length byte
                byte[] p = new byte[4 + 2 + 3];
                putU32(p, 0, 5);
                p[4] = 3;
                p[5] = SshConstants.SSH_MSG_REQUEST_FAILURE;
                queue(p);
            }
        }

        /** The downstream is gone: its channels are closed on the connection (as ssh's master). */
        void end() {
            closed = true;
            out.clear();
            out.add(END);
            sock.shutdown();
            for (ProxyChannel c : channels) {
                long closeTo = -1;
                synchronized (c) {
                    c.orphan = true;
                    if (c.serverId >= 0 && !c.closeSent) {
                        c.closeSent = true;
                        closeTo = c.serverId;
                    }
                    if (c.closeSent && c.closeReceived) {
                        forget(c);
                    }
                }
                if (closeTo >= 0) {
                    log.debug2("mux proxy: closing channel " + c.localId + " of a client that went away");
                    closeToServer(closeTo);
                }
            }
        }
    }
}
