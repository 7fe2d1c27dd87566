package io.pqssh.client.mux;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.apache.sshd.client.channel.ChannelDirectTcpip;
import org.apache.sshd.client.channel.ChannelSession;
import org.apache.sshd.client.channel.ClientChannel;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.channel.PtyCapableChannelSession;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.util.net.SshdSocketAddress;

import io.pqssh.client.config.ForwardSpec;
import io.pqssh.client.ssh.ClientLog;
import io.pqssh.client.ssh.EscapeFilter;
import io.pqssh.client.ssh.PtyChannels;
import io.pqssh.client.x11.X11Forwarding;

/**
 * The ControlMaster side of OpenSSH's connection sharing (PROTOCOL.mux, version 4): a Unix socket at the
 * ControlPath where later {@code ssh}/{@code pqssh ssh} processes of the same user ask for a session on this
 * process's authenticated connection instead of logging in again. Each client passes its stdin, stdout and stderr
 * (SCM_RIGHTS); the session channel's data flows between those descriptors and the channel here, and the remote exit
 * status goes back as MUX_S_EXIT_MESSAGE. As ssh, a peer whose uid (SO_PEERCRED) is neither ours nor root's is
 * dropped before the first message, whatever the socket's mode.
 */
public final class MuxMaster implements AutoCloseable {
    /** What the master needs of the ssh configuration. */
    public record Options(Predicate<String> sendEnv, boolean forwardAgent, Duration openTimeout) {
    }

    private final ClientSession session;
    private final Path path;
    private final UnixSocket listener;
    private final Options options;
    private final ClientLog log;
    private final MuxProxy proxy;
    private final int ownUid;
    private final AtomicInteger clients = new AtomicInteger();
    private final AtomicInteger nextSessionId = new AtomicInteger(1);
    private final Thread acceptor;
    private volatile boolean listening = true;
    private volatile boolean terminated;
    private volatile long idleSince = System.nanoTime();
    /** When the master was set up, just after authenticating: -O conninfo's duration counts from here. */
    private final long started = System.nanoTime();
    /** Pty sessions and the client terminal each follows, for SIGWINCH (ssh's clients relay theirs to the master). */
    private final java.util.Set<TtySession> ttys = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private record TtySession(PtyCapableChannelSession channel, int fd, int[] last) {
    }

    private MuxMaster(ClientSession session, Path path, UnixSocket listener, Options options, ClientLog log) {
        this.session = session;
        this.path = path;
        this.listener = listener;
        this.options = options;
        this.log = log;
        this.proxy = MuxProxy.install(session, log, options.forwardAgent());
        this.ownUid = UnixSocket.uid();
        this.acceptor = new Thread(this::acceptLoop, "pqssh-mux-listener");
        acceptor.setDaemon(true);
    }

    /**
     * Listens at {@code path}; null when a file is already there ("ControlSocket ... already exists, disabling
     * multiplexing", as ssh: the connection goes on without sharing).
     */
    public static MuxMaster start(ClientSession session, Path path, Options options, ClientLog log)
            throws IOException {
        log.debug1("setting up multiplex master socket");
        UnixSocket l;
        try {
            l = UnixSocket.listen(path, tempSuffix());
        } catch (UnixSocket.SysError e) {
            if (e.errno() == UnixSocket.EEXIST || e.errno() == UnixSocket.EADDRINUSE
                    || e.errno() == UnixSocket.EINVAL) {
                log.error("ControlSocket " + path + " already exists, disabling multiplexing");
                return null;
            }
            throw new IOException("ControlPath " + path + ": " + e.getMessage(), e);
        }
        MuxMaster m = new MuxMaster(session, path, l, options, log);
        // as ssh's cleanup_exit: the socket goes with the process, also on SIGTERM/SIGINT
        Runtime.getRuntime().addShutdownHook(new Thread(m::stopListening, "pqssh-mux-unlink"));
        m.followWindowChanges();
        m.acceptor.start();
        return m;
    }

    /**
     * A mux client cannot send window changes in the protocol: ssh's client sends SIGWINCH to the master's pid, and
     * the master reads each pty session's terminal size from the descriptor it was given. Same mechanism as
     * pqssh server's SIGHUP ({@code sun.misc.Signal}); without it, sessions keep their first size.
     */
    private void followWindowChanges() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), s -> windowChanged());
        } catch (IllegalArgumentException | LinkageError e) {
            log.debug1("mux: SIGWINCH not followed: " + e);
        }
    }

    private void windowChanged() {
        for (TtySession t : ttys) {
            int[] now = UnixSocket.windowSize(t.fd());
            if (now == null || (now[0] == t.last()[0] && now[1] == t.last()[1])) {
                continue;
            }
            t.last()[0] = now[0];
            t.last()[1] = now[1];
            try {
                t.channel().sendWindowChange(now[0], now[1]);
                log.debug2("mux: window change " + now[0] + "x" + now[1]);
            } catch (IOException e) {
                log.debug1("mux: window change not sent: " + e.getMessage());
            }
        }
    }

    /** ssh's temporary name beside the ControlPath: 16 random letters and digits. */
    private static String tempSuffix() {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        SecureRandom r = new SecureRandom();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    public Path path() {
        return path;
    }

    /** True once a client asked the master to exit (MUX_C_TERMINATE, {@code ssh -O exit}). */
    public boolean terminated() {
        return terminated;
    }

    /** Clients connected now (each running session holds its client's connection). */
    public int activeClients() {
        return clients.get();
    }

    /**
     * Blocks until the master should end: a terminate request, the SSH connection closing, or, with {@code idle}
     * (ControlPersist's time), that long without any client. {@code idle} null waits for the first two only.
     */
    public void awaitEnd(Duration idle) throws InterruptedException {
        while (!terminated && session.isOpen()) {
            if (idle != null && clients.get() == 0
                    && System.nanoTime() - idleSince > idle.toNanos()) {
                log.debug1("ControlPersist timeout expired");
                return;
            }
            Thread.sleep(100);
        }
    }

    /** Waits until no client is connected (ssh's master outlives its own session while others still run). */
    public void awaitClients() throws InterruptedException {
        while (clients.get() > 0 && session.isOpen() && !terminated) {
            Thread.sleep(100);
        }
    }

    private void acceptLoop() {
        try {
            while (listening) {
                UnixSocket c = listener.accept();
                if (c == null) {
                    break;
                }
                int uid;
                try {
                    uid = c.peerUid();
                } catch (IOException e) {
                    log.error("getpeereid failed: " + e.getMessage());
                    c.close();
                    continue;
                }
                if (uid != 0 && uid != ownUid) {
                    // ssh's check and words (channels.c): the socket's mode is not the only barrier
                    log.error("multiplex uid mismatch: peer euid " + Integer.toUnsignedString(uid) + " != uid "
                            + Integer.toUnsignedString(ownUid));
                    c.close();
                    continue;
                }
                clients.incrementAndGet();
                Thread t = new Thread(() -> serve(c), "pqssh-mux-client");
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException e) {
            log.error("mux listener: " + e.getMessage());
        } finally {
            listener.close();
        }
    }

    /** MUX_C_STOP_LISTENING and the end of the master: no new clients, and the socket file goes. */
    private void stopListening() {
        if (listening) {
            listening = false;
            listener.stopAccepting();
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                log.debug1("unlink " + path + ": " + e.getMessage());
            }
        }
    }

    private void serve(UnixSocket c) {
        Connection conn = new Connection(c);
        try {
            conn.run();
        } catch (IOException e) {
            log.debug1("mux client: " + e.getMessage());
        } finally {
            conn.end();
            c.close();
            if (clients.decrementAndGet() == 0) {
                idleSince = System.nanoTime();
            }
        }
    }

    /** One client connection: its messages in order, and at most one session (as ssh). */
    private final class Connection {
        private final UnixSocket sock;
        private boolean helloReceived;
        private volatile ClientChannel channel;
        private volatile boolean sessionOver;
        private volatile TtySession tty;
        private final List<Integer> fds = new ArrayList<>();

        Connection(UnixSocket sock) {
            this.sock = sock;
        }

        private synchronized void send(MuxBuffer m) throws IOException {
            Mux.write(sock, m);
        }

        void run() throws IOException {
            // the "info" extension, as OpenSSH 10.3's master: its clients may then send MUX_C_EXT_INFO
            send(MuxBuffer.writing(Mux.MSG_HELLO).u32(Mux.VERSION).string(Mux.EXT_INFO).string("0"));
            byte[] body;
            while ((body = Mux.read(sock)) != null) {
                MuxBuffer m = MuxBuffer.reading(body);
                int type = m.u32();
                if (type == Mux.MSG_HELLO) {
                    if (!hello(m)) {
                        return;
                    }
                    continue;
                }
                if (!helloReceived) {
                    log.error("mux: expected MUX_MSG_HELLO(0x00000001), received 0x" + String.format("%08x", type));
                    return;
                }
                int rid = m.u32();
                if (!handle(type, rid, m)) {
                    return;
                }
            }
        }

        private boolean hello(MuxBuffer m) throws IOException {
            if (helloReceived) {
                log.error("mux: HELLO received twice");
                return false;
            }
            int version = m.u32();
            if (version != Mux.VERSION) {
                log.error("mux: unsupported multiplexing protocol version " + Integer.toUnsignedString(version)
                        + " (expected " + Mux.VERSION + ")");
                return false;
            }
            while (m.hasMore()) {
                String name = m.string();
                m.bytes();
                log.debug2("mux: unrecognised extension \"" + name + "\"");
            }
            helloReceived = true;
            return true;
        }

        /** False when the connection must close (as ssh after a malformed request). */
        private boolean handle(int type, int rid, MuxBuffer m) throws IOException {
            switch (type) {
                case Mux.C_ALIVE_CHECK -> send(MuxBuffer.writing(Mux.S_ALIVE).u32(rid)
                        .u32((int) ProcessHandle.current().pid()));
                case Mux.C_TERMINATE -> {
                    send(MuxBuffer.writing(Mux.S_OK).u32(rid));
                    terminate();
                }
                case Mux.C_STOP_LISTENING -> {
                    stopListening();
                    send(MuxBuffer.writing(Mux.S_OK).u32(rid));
                }
                case Mux.C_NEW_SESSION -> {
                    return newSession(rid, m);
                }
                case Mux.C_NEW_STDIO_FWD -> {
                    return stdioForward(rid, m);
                }
                case Mux.C_OPEN_FWD, Mux.C_CLOSE_FWD -> {
                    return forward(type == Mux.C_OPEN_FWD, rid, m);
                }
                case Mux.C_EXT_INFO -> {
                    String name = m.string();
                    String text = switch (name) {
                        case "connection" -> MuxInfo.connection(session, started);
                        case "channels" -> MuxInfo.channels(session, proxy);
                        default -> null;
                    };
                    log.debug2("mux: info request " + name);
                    send(MuxBuffer.writing(Mux.S_EXT_INFO).u32(rid).u32(text == null ? 0 : 1)
                            .string(text == null ? "info request type not supported" : text));
                }
                case Mux.C_PROXY -> {
                    // ssh -O proxy: from here on the socket carries SSH connection-protocol packets (MuxProxy)
                    if (channel != null || sessionOver) {
                        send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("Multiple sessions not supported"));
                        return true;
                    }
                    log.debug1("mux: proxy request");
                    send(MuxBuffer.writing(Mux.S_PROXY).u32(rid));
                    proxy.serve(sock);
                    return false;
                }
                default -> {
                    log.debug1("mux: unsupported mux message 0x" + String.format("%08x", type));
                    send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("unsupported request"));
                }
            }
            return true;
        }

        /**
         * MUX_C_OPEN_FWD / MUX_C_CLOSE_FWD ({@code ssh -O forward|cancel -L/-R/-D}): the forwarding is added to or
         * cancelled on this connection through the code {@code -L/-R/-D} and {@code ~C} use; ssh's replies and
         * failure reasons.
         */
        private boolean forward(boolean open, int rid, MuxBuffer m) throws IOException {
            int ftype = m.u32();
            String listenHost = m.string();
            int listenPort = m.u32();
            String connectHost = m.string();
            int connectPort = m.u32();
            ForwardSpec.Kind kind = switch (ftype) {
                case 1 -> ForwardSpec.Kind.LOCAL;
                case 2 -> ForwardSpec.Kind.REMOTE;
                case 3 -> ForwardSpec.Kind.DYNAMIC;
                default -> null;
            };
            if (kind == null || !portOrPath(listenPort) || !portOrPath(connectPort)) {
                log.error("mux: malformed forwarding request");
                return false;
            }
            boolean listenPath = listenPort == PORT_STREAMLOCAL;
            boolean connectPath = connectPort == PORT_STREAMLOCAL;
            if (!connectPath && connectPort == 0 && connectHost.equals("socks")) {
                connectHost = ""; // ssh's name for a dynamic forwarding's target (parse_forward)
            }
            ForwardSpec spec = new ForwardSpec(kind, listenPath || listenHost.isEmpty() ? null : listenHost,
                    listenPath ? null : listenPort, listenPath ? listenHost : null,
                    connectPath || connectHost.isEmpty() ? null : connectHost,
                    connectPath || connectHost.isEmpty() ? null : connectPort, connectPath ? connectHost : null);
            io.pqssh.client.forward.PortForwards forwards = io.pqssh.client.forward.PortForwards.of(session);
            log.debug1("mux: " + (open ? "open" : "close") + " forwarding " + kind.name().toLowerCase(
                    java.util.Locale.ROOT) + " " + spec);
            if (!open) {
                boolean found;
                try {
                    found = forwards != null && forwards.cancel(kind, spec);
                } catch (IOException e) {
                    found = false;
                }
                send(found ? MuxBuffer.writing(Mux.S_OK).u32(rid)
                        : MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("port not forwarded"));
                return true;
            }
            if (forwards == null) {
                send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("Port forwarding failed"));
                return true;
            }
            if (forwards.isActive(spec)) {
                send(MuxBuffer.writing(Mux.S_OK).u32(rid)); // ssh: "already forwarded" is success
                return true;
            }
            try {
                int bound = forwards.add(spec);
                send(kind == ForwardSpec.Kind.REMOTE && !listenPath && listenPort == 0
                        ? MuxBuffer.writing(Mux.S_REMOTE_PORT).u32(rid).u32(bound)
                        : MuxBuffer.writing(Mux.S_OK).u32(rid));
            } catch (IOException | RuntimeException e) {
                log.debug1("mux: forwarding failed: " + e.getMessage());
                send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string(kind == ForwardSpec.Kind.REMOTE
                        ? io.pqssh.client.forward.PortForwards.failure(spec, e) : "Port forwarding failed"));
            }
            return true;
        }

        private boolean receiveFds(int count, int rid) throws IOException {
            for (int i = 0; i < count; i++) {
                try {
                    fds.add(sock.receiveFd());
                } catch (IOException e) {
                    log.error("mux: failed to receive fd " + i + " from client: " + e.getMessage());
                    send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("did not receive file descriptors"));
                    return false;
                }
            }
            return true;
        }

        private boolean newSession(int rid, MuxBuffer m) throws IOException {
            m.bytes(); // reserved
            boolean wantTty = m.u32() != 0;
            boolean wantX11 = m.u32() != 0;
            boolean wantAgent = m.u32() != 0;
            boolean subsystem = m.u32() != 0;
            int escape = m.u32(); // run here for the client's pty session, as ssh's master does
            String term = m.string();
            String command = m.string();
            List<String[]> env = new ArrayList<>();
            while (m.hasMore()) {
                String e = m.string();
                int eq = e.indexOf('=');
                // the master's SendEnv decides, as ssh's env_permitted: a client cannot set what we would not send
                if (eq > 0 && env.size() < 4096 && options.sendEnv().test(e.substring(0, eq))) {
                    env.add(new String[] {e.substring(0, eq), e.substring(eq + 1)});
                }
            }
            if (!receiveFds(3, rid)) {
                return false;
            }
            if (channel != null || sessionOver) {
                send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("Multiple sessions not supported"));
                closeFds();
                return true;
            }
            int in = fds.get(0);
            int out = fds.get(1);
            int err = fds.get(2);
            // ssh's mux_session_confirm: X11 for a client that asks (its -X/-Y) when this master forwards X11 itself
            // (its ForwardX11 and DISPLAY, its cookie and XAuthLocation); a refusal is the master's warning line
            X11Forwarding x11 = wantX11 && !subsystem ? X11Forwarding.of(session) : null;
            if (x11 != null) {
                log.debug1("Requesting X11 forwarding with authentication spoofing.");
            }
            int sid = nextSessionId.getAndIncrement();
            SessionRefusals replies = new SessionRefusals(sid, err);
            PtyChannels.Refusals refusals = new PtyChannels.Refusals(replies::ptyRefused,
                    id -> replies.report("X11 forwarding", id));
            ChannelSession ch;
            if (subsystem) {
                ch = session.createSubsystemChannel(command);
            } else if (command.isEmpty()) {
                ch = PtyChannels.shell(session, refusals, x11);
            } else {
                ch = PtyChannels.exec(session, command, refusals, x11);
            }
            if (ch instanceof PtyCapableChannelSession pty) {
                pty.setUsePty(wantTty);
                pty.setAgentForwarding(wantAgent && options.forwardAgent());
                if (wantTty) {
                    int[] size = UnixSocket.windowSize(in);
                    pty.setPtyType(term.isEmpty() ? "dumb" : term);
                    pty.setPtyColumns(size != null && size[0] > 0 ? size[0] : 80);
                    pty.setPtyLines(size != null && size[1] > 0 ? size[1] : 24);
                }
                for (String[] e : env) {
                    pty.setEnv(e[0], e[1]);
                }
            }
            ch.setOut(FdStreams.output(out));
            ch.setErr(FdStreams.output(err));
            log.debug1("mux: session for a client: " + (subsystem ? "subsystem " : "") + (command.isEmpty()
                    ? "shell" : "\"" + command + "\"") + (wantTty ? " with a pty" : ""));
            try {
                ch.open().verify(options.openTimeout());
            } catch (IOException | RuntimeException e) {
                log.debug1("mux: session open failed: " + e.getMessage());
                ch.close(true);
                closeFds();
                send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("Session open refused by peer"));
                return true;
            }
            channel = ch;
            if (wantTty && ch instanceof PtyCapableChannelSession pty) {
                // stdout: open until the channel closes (the stdin relay closes stdin when that ends)
                tty = new TtySession(pty, out, new int[] {pty.getPtyColumns(), pty.getPtyLines()});
                ttys.add(tty);
            }
            send(MuxBuffer.writing(Mux.S_SESSION_OPENED).u32(rid).u32(sid));
            replies.sessionOpened();
            EscapeFilter filter = wantTty && escape != Mux.NO_ESCAPE && escape >= 0 && escape < 256
                    ? EscapeFilter.forMuxClient(escape, session, ch, new PrintStream(FdStreams.output(err), true), log)
                    : null;
            relayInput(in, ch.getInvertedIn(), filter);
            Thread waiter = new Thread(() -> finishSession(ch, sid), "pqssh-mux-session");
            waiter.setDaemon(true);
            waiter.start();
            return true;
        }

        private boolean stdioForward(int rid, MuxBuffer m) throws IOException {
            m.bytes(); // reserved
            String host = m.string();
            int port = m.u32();
            if (!receiveFds(2, rid)) {
                return false;
            }
            if (channel != null || sessionOver) {
                send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("Multiple sessions not supported"));
                closeFds();
                return true;
            }
            if (port <= 0 || port > 65535) {
                log.error("mux: invalid port 0x" + Integer.toHexString(port));
                closeFds();
                return false;
            }
            log.debug1("mux: stdio forward to " + host + ":" + port);
            ChannelDirectTcpip ch = session.createDirectTcpipChannel(
                    new SshdSocketAddress("127.0.0.1", 65535), new SshdSocketAddress(host, port));
            ch.setOut(FdStreams.output(fds.get(1)));
            try {
                ch.open().verify(options.openTimeout());
            } catch (IOException | RuntimeException e) {
                ch.close(true);
                closeFds();
                send(MuxBuffer.writing(Mux.S_FAILURE).u32(rid).string("Session open refused by peer"));
                return true;
            }
            channel = ch;
            int sid = nextSessionId.getAndIncrement();
            send(MuxBuffer.writing(Mux.S_SESSION_OPENED).u32(rid).u32(sid));
            relayInput(fds.get(0), ch.getInvertedIn(), null);
            Thread waiter = new Thread(() -> finishSession(ch, -1), "pqssh-mux-stdio");
            waiter.setDaemon(true);
            waiter.start();
            return true;
        }

        /**
         * Copies the client's stdin to the channel on a thread of its own, which also closes that descriptor when it
         * stops: closing it from another thread could let this one read a number already given to a new file.
         */
        private void relayInput(int fd, OutputStream toRemote, EscapeFilter filter) {
            synchronized (fds) {
                fds.remove(Integer.valueOf(fd));
            }
            InputStream from = FdStreams.input(fd, () -> sessionOver);
            Thread t = new Thread(() -> {
                byte[] buf = new byte[32768];
                try {
                    int n;
                    while ((n = from.read(buf, 0, buf.length)) >= 0) {
                        byte[] data = buf;
                        if (filter != null) {
                            data = filter.filter(buf, n, from);
                            if (data == null) {
                                return; // ~. : the filter closed this session
                            }
                            n = data.length;
                        }
                        toRemote.write(data, 0, n);
                        toRemote.flush();
                    }
                    if (!sessionOver) {
                        toRemote.close(); // the client's end of input: CHANNEL_EOF
                    }
                } catch (IOException e) {
                    log.debug2("mux: input relay ended: " + e.getMessage());
                } finally {
                    UnixSocket.closeFd(fd);
                }
            }, "pqssh-mux-stdin");
            t.setDaemon(true);
            t.start();
        }

        /**
         * ssh's client_status_confirm for a client's session: a refused request's line goes to the client's stderr
         * (ssh appends it to the channel's stderr, as {@code PTY allocation request failed}); a refused pty also
         * tells the client to leave raw mode (MUX_S_TTY_ALLOC_FAIL), never before MUX_S_SESSION_OPENED, which the
         * client reads first.
         */
        private final class SessionRefusals {
            private final int sid;
            private final int err;
            private boolean opened; // guarded by this
            private boolean ttyFailed; // guarded by this

            SessionRefusals(int sid, int err) {
                this.sid = sid;
                this.err = err;
            }

            void report(String request, int channelId) {
                log.debug1("mux: " + request + " request failed on channel " + channelId);
                try {
                    // without the channel number, which names the master's channel: ssh's text for a mux client
                    FdStreams.output(err).write((request + " request failed\r\n").getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    log.debug1("mux: client's stderr: " + e.getMessage());
                }
            }

            void ptyRefused(int channelId) {
                report("PTY allocation", channelId);
                boolean now;
                synchronized (this) {
                    ttyFailed = true;
                    now = opened;
                }
                if (now) {
                    sendTtyFailed();
                }
            }

            void sessionOpened() {
                boolean failed;
                synchronized (this) {
                    opened = true;
                    failed = ttyFailed;
                }
                if (failed) {
                    sendTtyFailed();
                }
            }

            private void sendTtyFailed() {
                try {
                    send(MuxBuffer.writing(Mux.S_TTY_ALLOC_FAIL).u32(sid));
                } catch (IOException e) {
                    log.debug1("mux: tty failure not sent: " + e.getMessage());
                }
            }
        }

        /** After the channel closes: the client's descriptors go, then the exit status, then the connection. */
        private void finishSession(ClientChannel ch, int sid) {
            ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), 0L);
            sessionOver = true;
            if (tty != null) {
                ttys.remove(tty);
            }
            closeFds();
            Integer status = ch.getExitStatus();
            if (sid >= 0 && status != null) {
                try {
                    send(MuxBuffer.writing(Mux.S_EXIT_MESSAGE).u32(sid).u32(status));
                } catch (IOException e) {
                    log.debug1("mux: exit message not sent: " + e.getMessage());
                }
            }
            sock.shutdown();
        }

        private void closeFds() {
            synchronized (fds) {
                for (int fd : fds) {
                    UnixSocket.closeFd(fd);
                }
                fds.clear();
            }
        }

        /** The client went away (or broke the protocol): its session ends with it, as ssh's control cleanup. */
        void end() {
            ClientChannel ch = channel;
            if (ch != null && !sessionOver) {
                sessionOver = true;
                ch.close(false);
                ch.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), Duration.ofSeconds(5).toMillis());
            }
            if (ch == null) {
                closeFds();
            }
        }
    }

    /** PROTOCOL.mux's port number for "a Unix socket path in the host field". */
    private static final int PORT_STREAMLOCAL = -2;

    private static boolean portOrPath(int port) {
        return port == PORT_STREAMLOCAL || (port >= 0 && port <= 65535);
    }

    private void terminate() {
        terminated = true;
        stopListening();
        log.debug1("mux: terminate request; closing the connection");
        session.close(false);
    }

    @Override
    public void close() {
        stopListening();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
