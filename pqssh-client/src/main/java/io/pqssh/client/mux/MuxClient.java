package io.pqssh.client.mux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The client side of OpenSSH's connection sharing (PROTOCOL.mux, version 4), for {@code pqssh ssh} with a live
 * ControlPath and for {@code -O check|exit|stop}: it speaks to an OpenSSH or pqssh master. Messages that end the
 * process are {@link MuxFailure}s carrying ssh's words; the caller prints them and exits 255.
 */
public final class MuxClient implements AutoCloseable {
    /** An error that ends a mux client, with ssh's words for it. */
    public static final class MuxFailure extends Exception {
        private static final long serialVersionUID = 1L;

        public MuxFailure(String message) {
            super(message);
        }

        MuxFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A session request: ssh's MUX_C_NEW_SESSION fields. */
    public record SessionRequest(boolean tty, boolean forwardX11, boolean forwardAgent, boolean subsystem,
            int escapeChar, String term,
            String command, List<String> environment, boolean stdinNull) {
    }

    private final UnixSocket sock;
    private int requestId;
    /** The master offered OpenSSH 10.3's "info" extension ({@code -O conninfo|channels}). */
    private boolean infoExtension;

    private MuxClient(UnixSocket sock) {
        this.sock = sock;
    }

    /** How connecting to a ControlPath went: a client, or why there is none. */
    public record Attempt(MuxClient client, int errno, String reason) {
        public boolean connected() {
            return client != null;
        }
    }

    /**
     * Connects to the master at {@code path} and exchanges hellos. A socket nobody listens on (ECONNREFUSED) is
     * unlinked when {@code unlinkStale}, as ssh does unless ControlMaster is no.
     */
    public static Attempt connect(Path path, boolean unlinkStale, io.pqssh.client.ssh.ClientLog log)
            throws MuxFailure {
        UnixSocket s;
        try {
            s = UnixSocket.connect(path);
        } catch (UnixSocket.SysError e) {
            if (e.errno() == UnixSocket.ECONNREFUSED && unlinkStale) {
                log.debug1("Stale control socket " + path + ", unlinking");
                try {
                    Files.deleteIfExists(path);
                } catch (IOException ignored) {
                    // the next master's link(2) reports it
                }
            } else if (e.errno() == UnixSocket.ENOENT) {
                log.debug1("Control socket \"" + path + "\" does not exist");
            }
            return new Attempt(null, e.errno(), e.reason());
        } catch (IOException e) {
            throw new MuxFailure(e.getMessage(), e);
        }
        MuxClient c = new MuxClient(s);
        try {
            c.hello(log);
        } catch (IOException | MuxFailure e) {
            log.error("mux_client_hello_exchange: master hello exchange failed");
            c.close();
            return new Attempt(null, 0, "master hello exchange failed");
        }
        return new Attempt(c, 0, null);
    }

    private void hello(io.pqssh.client.ssh.ClientLog log) throws IOException, MuxFailure {
        Mux.write(sock, MuxBuffer.writing(Mux.MSG_HELLO).u32(Mux.VERSION));
        MuxBuffer m = reply();
        int type = m.u32();
        if (type != Mux.MSG_HELLO) {
            throw new MuxFailure("expected HELLO (1) got " + Integer.toUnsignedString(type));
        }
        int version = m.u32();
        if (version != Mux.VERSION) {
            throw new MuxFailure("Unsupported multiplexing protocol version " + version + " (expected "
                    + Mux.VERSION + ")");
        }
        while (m.hasMore()) {
            String name = m.string();
            m.bytes();
            if (name.equals(Mux.EXT_INFO)) {
                log.debug1("Received 'info' extension");
                infoExtension = true;
            } else {
                log.debug2("Unrecognised master extension \"" + name + "\"");
            }
        }
    }

    private MuxBuffer reply() throws IOException, MuxFailure {
        byte[] body = Mux.read(sock);
        if (body == null) {
            throw new MuxFailure("read from master failed: Broken pipe");
        }
        return MuxBuffer.reading(body);
    }

    private MuxBuffer request(MuxBuffer m) throws IOException, MuxFailure {
        Mux.write(sock, m);
        return reply();
    }

    private void checkId(int rid) throws MuxFailure {
        if (rid != requestId) {
            throw new MuxFailure("out of sequence reply: my id " + requestId + " theirs " + rid);
        }
    }

    /** MUX_C_ALIVE_CHECK: the master's process id. */
    public long aliveCheck() throws MuxFailure {
        try {
            MuxBuffer m = request(MuxBuffer.writing(Mux.C_ALIVE_CHECK).u32(requestId));
            int type = m.u32();
            if (type != Mux.S_ALIVE) {
                throw new MuxFailure("master returned error: " + errorText(type, m));
            }
            checkId(m.u32());
            long pid = Integer.toUnsignedLong(m.u32());
            requestId++;
            return pid;
        } catch (IOException e) {
            throw new MuxFailure("master alive check failed: " + e.getMessage(), e);
        }
    }

    /**
     * MUX_C_EXT_INFO ({@code -O conninfo} with "connection", {@code -O channels} with "channels"): the master's text,
     * as ssh's {@code mux_client_request_info}.
     */
    public String info(String name) throws MuxFailure {
        if (!infoExtension) {
            throw new MuxFailure("mux server does not support info request");
        }
        try {
            MuxBuffer m = request(MuxBuffer.writing(Mux.C_EXT_INFO).u32(requestId).string(name));
            int type = m.u32();
            if (type != Mux.S_EXT_INFO) {
                throw new MuxFailure("mux_client_request_info: master returned error: " + errorText(type, m));
            }
            checkId(m.u32());
            m.u32(); // status: ssh prints the text either way
            String text = m.string();
            requestId++;
            return text;
        } catch (IOException e) {
            throw new MuxFailure("mux_client_request_info: info request failed: " + e.getMessage(), e);
        }
    }

    /** MUX_C_TERMINATE ({@code -O exit}). A master that is gone before it answers counts as done, as in ssh. */
    public void terminate() throws MuxFailure {
        try {
            Mux.write(sock, MuxBuffer.writing(Mux.C_TERMINATE).u32(requestId));
            byte[] body = Mux.read(sock);
            if (body == null) {
                return;
            }
            okOrFail(MuxBuffer.reading(body), "Master refused termination request: ", "termination request failed: ");
        } catch (IOException e) {
            if (e instanceof UnixSocket.SysError s && s.errno() == UnixSocket.EPIPE) {
                return;
            }
            throw new MuxFailure("read from master failed: " + e.getMessage(), e);
        }
    }

    /** MUX_C_STOP_LISTENING ({@code -O stop}). */
    public void stopListening() throws MuxFailure {
        try {
            okOrFail(request(MuxBuffer.writing(Mux.C_STOP_LISTENING).u32(requestId)),
                    "Master refused stop listening request: ", "stop listening request failed: ");
        } catch (IOException e) {
            throw new MuxFailure("read from master failed: " + e.getMessage(), e);
        }
    }

    /**
     * MUX_C_OPEN_FWD / MUX_C_CLOSE_FWD ({@code -O forward|cancel}) for one forwarding, encoded as ssh's
     * {@code mux_client_forward}.
     *
     * @return the port the master's server allocated for {@code -R 0:…} ({@code MUX_S_REMOTE_PORT}), else -1
     * @throws MuxFailure with ssh's whole error line ("mux_client_forward: forwarding request failed: port not
     *     forwarded", "Master refused forwarding request: …")
     */
    public int forward(boolean open, io.pqssh.client.config.ForwardSpec f) throws MuxFailure {
        int type = switch (f.kind()) {
            case LOCAL -> 1;
            case REMOTE -> 2;
            case DYNAMIC -> 3;
        };
        String listen = f.bindPath() != null ? f.bindPath() : f.bindAddress() == null ? ""
                : f.bindAddress().isEmpty() ? "*" : f.bindAddress();
        // ssh's parse_forward names the target of a dynamic forwarding (-D, and -R without a target) "socks", port 0
        String connect = f.targetPath() != null ? f.targetPath() : f.targetHost() == null ? "socks" : f.targetHost();
        int listenPort = f.bindPath() != null ? PORT_STREAMLOCAL : f.bindPort();
        int connectPort = f.targetPath() != null ? PORT_STREAMLOCAL : f.targetPort() == null ? 0 : f.targetPort();
        try {
            MuxBuffer m = request(MuxBuffer.writing(open ? Mux.C_OPEN_FWD : Mux.C_CLOSE_FWD).u32(requestId).u32(type)
                    .string(listen).u32(listenPort).string(connect).u32(connectPort));
            int reply = m.u32();
            checkId(m.u32());
            switch (reply) {
                case Mux.S_OK -> {
                    requestId++;
                    return -1;
                }
                case Mux.S_REMOTE_PORT -> {
                    requestId++;
                    return m.u32();
                }
                case Mux.S_PERMISSION_DENIED -> throw new MuxFailure("Master refused forwarding request: "
                        + m.string());
                case Mux.S_FAILURE -> throw new MuxFailure("mux_client_forward: forwarding request failed: "
                        + m.string());
                default -> throw new MuxFailure("unexpected response from master 0x" + String.format("%08x", reply));
            }
        } catch (IOException e) {
            throw new MuxFailure("read from master failed: " + e.getMessage(), e);
        }
    }

    /** PROTOCOL.mux's port for "the host field is a Unix socket path". */
    private static final int PORT_STREAMLOCAL = -2;

    private void okOrFail(MuxBuffer m, String denied, String failed) throws MuxFailure, IOException {
        int type = m.u32();
        checkId(m.u32());
        switch (type) {
            case Mux.S_OK -> requestId++;
            case Mux.S_PERMISSION_DENIED -> throw new MuxFailure(denied + m.string());
            case Mux.S_FAILURE -> throw new MuxFailure(failed + m.string());
            default -> throw new MuxFailure("unexpected response from master 0x" + String.format("%08x", type));
        }
    }

    private static String errorText(int type, MuxBuffer m) {
        try {
            m.u32(); // request id
            return m.string();
        } catch (IOException e) {
            return "unexpected response 0x" + String.format("%08x", type);
        }
    }

    /**
     * A session on the master's connection with this process's stdin, stdout and stderr; blocks until it ends and
     * returns the remote exit status (255 when the master closes without one, as ssh). {@code ttyMode} is called
     * once the session is open with true (enter raw mode) and at the end or on MUX_S_TTY_ALLOC_FAIL with false.
     */
    public int session(SessionRequest r, java.util.function.Consumer<Boolean> ttyMode,
            io.pqssh.client.ssh.ClientLog log) throws MuxFailure {
        long masterPid = aliveCheck();
        log.debug2("master pid " + masterPid);
        MuxBuffer m = MuxBuffer.writing(Mux.C_NEW_SESSION).u32(requestId).string(new byte[0])
                .u32(r.tty() ? 1 : 0).u32(r.forwardX11() ? 1 : 0).u32(r.forwardAgent() ? 1 : 0)
                .u32(r.subsystem() ? 1 : 0)
                .u32(r.escapeChar() < 0 ? Mux.NO_ESCAPE : r.escapeChar()).string(r.term() == null ? "" : r.term())
                .string(r.command() == null ? "" : r.command());
        for (String e : r.environment()) {
            m.string(e);
        }
        int sid;
        int devNull = -1;
        try {
            Mux.write(sock, m);
            // -n: the master reads /dev/null, not our stdin (ssh's stdfd_devnull before sending)
            devNull = r.stdinNull() ? UnixSocket.openDevNull() : -1;
            sock.sendFd(devNull >= 0 ? devNull : 0);
            sock.sendFd(1);
            sock.sendFd(2);
            log.debug3("session request sent");
            byte[] body = Mux.read(sock);
            if (body == null) {
                throw new MuxFailure("read from master failed: Broken pipe");
            }
            MuxBuffer a = MuxBuffer.reading(body);
            int type = a.u32();
            checkId(a.u32());
            switch (type) {
                case Mux.S_SESSION_OPENED -> sid = a.u32();
                case Mux.S_PERMISSION_DENIED -> throw new MuxFailure("Master refused session request: " + a.string());
                case Mux.S_FAILURE -> throw new MuxFailure("session request failed: " + a.string());
                default -> throw new MuxFailure("unexpected response from master 0x" + String.format("%08x", type));
            }
            requestId++;
        } catch (IOException e) {
            throw new MuxFailure("read from master failed: " + e.getMessage(), e);
        } finally {
            if (devNull >= 0) {
                UnixSocket.closeFd(devNull);
            }
        }
        log.debug1("master session id: " + Integer.toUnsignedString(sid));
        boolean raw = r.tty();
        if (raw) {
            ttyMode.accept(true);
            relayWindowChanges(masterPid, log);
        }
        Integer exit = null;
        try {
            byte[] body;
            while ((body = Mux.read(sock)) != null) {
                MuxBuffer e = MuxBuffer.reading(body);
                int type = e.u32();
                switch (type) {
                    case Mux.S_TTY_ALLOC_FAIL -> {
                        if (e.u32() != sid) {
                            throw new MuxFailure("tty alloc fail on unknown session");
                        }
                        if (raw) {
                            ttyMode.accept(false);
                            raw = false;
                        }
                    }
                    case Mux.S_EXIT_MESSAGE -> {
                        int esid = e.u32();
                        if (esid != sid) {
                            throw new MuxFailure("exit on unknown session: my id " + sid + " theirs " + esid);
                        }
                        if (exit != null) {
                            throw new MuxFailure("exitval sent twice");
                        }
                        exit = e.u32();
                    }
                    default -> throw new MuxFailure("master returned error: " + errorText(type, e));
                }
            }
        } catch (IOException e) {
            log.debug2("mux: " + e.getMessage());
        } finally {
            close();
            if (raw) {
                ttyMode.accept(false);
            }
        }
        if (exit == null) {
            log.debug2("Control master terminated unexpectedly");
            return 255;
        }
        log.debug2("Received exit status from master " + exit);
        return exit;
    }

    /** As ssh's mux client: SIGWINCH is passed on to the master, which reads the new size from our terminal. */
    private static void relayWindowChanges(long masterPid, io.pqssh.client.ssh.ClientLog log) {
        if (masterPid <= 1) {
            return;
        }
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), s -> UnixSocket.kill(masterPid, s.getNumber()));
        } catch (IllegalArgumentException | LinkageError e) {
            log.debug1("mux: SIGWINCH not relayed: " + e);
        }
    }

    /** MUX_C_NEW_STDIO_FWD ({@code -W} through a master): returns when the master closes the forwarding. */
    public int stdioForward(String host, int port, io.pqssh.client.ssh.ClientLog log) throws MuxFailure {
        aliveCheck();
        try {
            Mux.write(sock, MuxBuffer.writing(Mux.C_NEW_STDIO_FWD).u32(requestId).string(new byte[0]).string(host)
                    .u32(port));
            sock.sendFd(0);
            sock.sendFd(1);
            MuxBuffer a = reply();
            int type = a.u32();
            checkId(a.u32());
            switch (type) {
                case Mux.S_SESSION_OPENED -> log.debug1("master session id: " + Integer.toUnsignedString(a.u32()));
                case Mux.S_PERMISSION_DENIED -> throw new MuxFailure("Master refused stdio forwarding request: "
                        + a.string());
                case Mux.S_FAILURE -> throw new MuxFailure("Stdio forwarding request failed: " + a.string());
                default -> throw new MuxFailure("unexpected response from master 0x" + String.format("%08x", type));
            }
            requestId++;
            byte[] body = Mux.read(sock);
            if (body != null) {
                throw new MuxFailure("master returned unexpected message");
            }
            return 0;
        } catch (IOException e) {
            if (e instanceof UnixSocket.SysError s && s.errno() == UnixSocket.EPIPE) {
                return 0;
            }
            throw new MuxFailure("read from master failed: " + e.getMessage(), e);
        } finally {
            close();
        }
    }

    @Override
    public void close() {
        sock.close();
    }
}
