package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import com.sun.net.httpserver.HttpServer;

/**
 * For the forwarding, agent and transfer tests: {@code pqssh server} on a thread (stopped by interrupt),
 * {@code pqssh} client processes (a separate JVM, since {@code -N} and the agent run until stopped; ended by PID),
 * loopback test servers (echo, reply-after-EOF, HTTP) and SOCKS clients (curl, a raw SOCKS5 CONNECT).
 */
final class ForwardingHarness implements AutoCloseable {
    private final Path dir;
    private final List<Thread> servers = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    ForwardingHarness(Path dir) {
        this.dir = dir;
    }

    /**
     * The test user's Ed25519 key ({@code id_ed25519}, made by ssh-keygen), with its public half as the only line of
     * {@link #authorizedKeys()}.
     */
    Path userKey() throws Exception {
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Files.writeString(authorizedKeys(), Files.readString(CliHarness.pub(key)));
        return key;
    }

    /** The authorized_keys file {@link #userKey()} writes. */
    Path authorizedKeys() {
        return dir.resolve("authorized_keys");
    }

    /** {@code pqssh server} with its own host key and the given authorized_keys; returns the port. */
    int startServer(Path authorizedKeys, String... extra) throws Exception {
        Path hostKey = dir.resolve("ssh_host_ed25519_key");
        if (!Files.exists(hostKey)) {
            CliHarness.sshKeygen(hostKey, "ed25519");
        }
        Path portFile = dir.resolve("port-" + servers.size());
        List<String> args = new ArrayList<>(List.of("server", "-D", "-p", "0", "--port-file", portFile.toString(),
                "-o", "AuthorizedKeysFile=" + authorizedKeys.toAbsolutePath(),
                "-o", "AuthorizedKEMKeysFile=none", "-o", "HostKey=" + hostKey.toAbsolutePath()));
        args.addAll(List.of(extra));
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        Thread t = new Thread(() -> rc.set(Main.run(args.toArray(String[]::new))), "pqssh-server-" + servers.size());
        t.setDaemon(true);
        servers.add(t);
        t.start();
        CliHarness.waitUntil(Duration.ofSeconds(60),
                () -> !t.isAlive() || CliHarness.read(portFile).matches("\\d+\\n"),
                () -> "pqssh server wrote no port file");
        assertTrue(t.isAlive(), "pqssh server exited with " + rc.get());
        return Integer.parseInt(CliHarness.read(portFile).strip());
    }

    private Path sshdLog;

    /**
     * Debian's OpenSSH sshd on a free loopback port (up to three ports tried), Ed25519 host key, public-key logins
     * of this test's user from the given authorized_keys, plus {@code extraConfig} lines; stopped by {@link #close}.
     */
    int startSshd(Path authorizedKeys, String... extraConfig) throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.ensureSshdPrivsepDir();
        // made once per test directory, so that a test can certify it (HostCertificate) before starting sshd
        Path hostKey = Files.exists(dir.resolve("sshd_host_key")) ? dir.resolve("sshd_host_key")
                : CliHarness.sshKeygen(dir.resolve("sshd_host_key"), "ed25519");
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = CliHarness.freePort();
            Path cfg = dir.resolve("sshd_config-" + port);
            List<String> lines = new ArrayList<>(List.of("ListenAddress 127.0.0.1", "HostKey " + hostKey,
                    "AuthorizedKeysFile " + authorizedKeys, "StrictModes no", "UsePAM no", "PidFile none",
                    "PermitRootLogin yes", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                    "AllowUsers " + CliHarness.user()));
            lines.addAll(List.of(extraConfig));
            lines.add("");
            Files.writeString(cfg, String.join("\n", lines));
            Path log = dir.resolve("sshd-" + port + ".log");
            sshdLog = log;
            Process p = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", cfg.toString(), "-p",
                    String.valueOf(port)).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            processes.add(p);
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> !p.isAlive()
                    || CliHarness.read(log).contains("Server listening on 127.0.0.1 port " + port),
                    () -> "sshd did not start: " + CliHarness.read(log));
            if (p.isAlive()) {
                return port;
            }
        }
        throw new AssertionError("sshd did not start: " + CliHarness.read(sshdLog));
    }

    /** The log of the sshd last started by {@link #startSshd}. */
    Path sshdLog() {
        return sshdLog;
    }

    /** A {@code pqssh ARGS} process (this test JVM's class path), output in files under the test directory. */
    Proc startPqssh(Map<String, String> env, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(
                System.getProperty("java.home") + "/bin/java");
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        String system = System.getProperty(io.pqssh.client.config.ClientConfig.SYSTEM_CONFIG_PROPERTY);
        if (system != null) {
            // the same system-wide ssh_config as in-process runs (the build sets "none": not this machine's /etc/ssh)
            cmd.add("-D" + io.pqssh.client.config.ClientConfig.SYSTEM_CONFIG_PROPERTY + "=" + system);
        }
        cmd.add("io.pqssh.cli.Main");
        cmd.addAll(List.of(args));
        return startProcess(cmd, env, "pqssh " + String.join(" ", args));
    }

    /**
     * {@code pqssh ssh -N} with {@code identity} to {@code CliHarness.user()@127.0.0.1:serverPort} (host key taken on
     * first use into the test directory's known_hosts), plus {@code extra} options such as forwardings.
     */
    Proc startPqsshClient(Path identity, int serverPort, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("ssh", "-N", "-i", identity.toString(),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + dir.resolve("known_hosts"),
                "-p", String.valueOf(serverPort)));
        args.addAll(List.of(extra));
        args.add(CliHarness.user() + "@127.0.0.1");
        return startPqssh(Map.of(), args.toArray(String[]::new));
    }

    /** Any process (stdin /dev/null, output in files under the test directory), ended by {@link #close}. */
    Proc startProcess(List<String> cmd, Map<String, String> env, String label) throws IOException {
        int n = processes.size();
        Path out = dir.resolve("proc-" + n + ".out");
        Path err = dir.resolve("proc-" + n + ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        processes.add(p);
        return new Proc(p, out, err, label);
    }

    /** A running process ({@code label}: its command line, for messages). */
    record Proc(Process process, Path out, Path err, String label) {
        String output() {
            return label + (process.isAlive() ? " (running)" : " (exit " + process.exitValue() + ")")
                    + "\n--- stdout\n" + CliHarness.read(out) + "\n--- stderr\n" + CliHarness.read(err);
        }

        int waitFor(Duration d) throws InterruptedException {
            if (!process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("did not finish within " + d + ": " + output());
            }
            return process.exitValue();
        }
    }

    /** Waits until something listens on 127.0.0.1:port (or the process died: then fails with its output). */
    void awaitListening(Proc p, int port) throws InterruptedException {
        CliHarness.waitUntil(Duration.ofSeconds(90), () -> !p.process().isAlive() || CliHarness.portOpen(port),
                p::output);
        assertTrue(p.process().isAlive(), p.output());
    }

    /**
     * A Unix-socket echo server at {@code name} in the test directory (closed and its file removed by {@link #close});
     * returns the socket's path.
     */
    Path startUnixEchoServer(String name) throws IOException {
        Path p = dir.resolve(name);
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(p));
        closeables.add(() -> {
            s.close();
            Files.deleteIfExists(p);
        });
        Thread t = new Thread(() -> {
            while (s.isOpen()) {
                try {
                    SocketChannel c = s.accept();
                    Thread e = new Thread(() -> {
                        try (c) {
                            Channels.newInputStream(c).transferTo(Channels.newOutputStream(c));
                        } catch (IOException ex) {
                            // dropped
                        }
                    }, "unix-echo-conn");
                    e.setDaemon(true);
                    e.start();
                } catch (IOException ex) {
                    return;
                }
            }
        }, "unix-echo");
        t.setDaemon(true);
        t.start();
        return p;
    }

    /** Waits until the Unix socket {@code socket} accepts connections (or the process died: then fails). */
    void awaitSocket(Proc p, Path socket) throws InterruptedException {
        CliHarness.waitUntil(Duration.ofSeconds(90), () -> !p.process().isAlive() || connectable(socket), p::output);
        assertTrue(p.process().isAlive(), p.output());
    }

    private static boolean connectable(Path socket) {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A loopback server that echoes every connection's bytes; returns its port. */
    int startEchoServer() throws IOException {
        return startLoopbackServer("echo", (s, in, out) -> in.transferTo(out), e -> {
            // connection dropped: nothing to echo
        });
    }

    /**
     * A loopback request/reply server: it reads each connection to its end (the client's half-close), only then sends
     * back what it read, and closes. Returns its port.
     */
    int startReplyAfterEofServer() throws IOException {
        return startLoopbackServer("reply-after-eof", (s, in, out) -> out.write(in.readAllBytes()), e -> {
            // connection dropped: the client sees no reply
        });
    }

    /**
     * A loopback server that sends {@code greeting}, shuts down its sending side, then reads the connection to its end
     * and puts what it read into {@code received}. Returns its port.
     */
    int startGreetThenReadServer(byte[] greeting, BlockingQueue<byte[]> received) throws IOException {
        return startLoopbackServer("greet-then-read", (s, in, out) -> {
            out.write(greeting);
            out.flush();
            s.shutdownOutput();
            received.add(in.readAllBytes());
        }, e -> received.add(("failed: " + e).getBytes(StandardCharsets.UTF_8)));
    }

    /** curl, the SOCKS client of the dynamic forwarding tests. */
    static final Path CURL = Path.of("/usr/bin/curl");

    /** A loopback HTTP server (stopped by {@link #close}) answering {@code hello from PATH}; returns its port. */
    int startHttpServer() throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        http.createContext("/", ex -> {
            byte[] body = ("hello from " + ex.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        http.start();
        closeables.add(() -> http.stop(0));
        return http.getAddress().getPort();
    }

    /** {@code curl -sS --max-time 20 PROXYOPTION 127.0.0.1:proxyPort url} (fails loudly without curl). */
    CliHarness.Result curl(String proxyOption, int proxyPort, String url) throws Exception {
        CliHarness.requireBinary(CURL, "curl");
        return CliHarness.exec(dir, List.of(CURL.toString(), "-sS", "--max-time", "20", proxyOption,
                "127.0.0.1:" + proxyPort, url));
    }

    /** A raw SOCKS5 CONNECT by host name on a fresh connection; returns the reply code (0 granted). */
    static int socks5Reply(int proxy, String host, int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy)) {
            return socks5Connect(s, host, port);
        }
    }

    /**
     * SOCKS5 without authentication and CONNECT to {@code host} (as a domain name) on {@code s}; returns the reply
     * code (0 granted: the socket then carries the connection).
     */
    static int socks5Connect(Socket s, String host, int port) throws IOException {
        byte[] h = host.getBytes(StandardCharsets.US_ASCII);
        byte[] address = new byte[h.length + 2];
        address[0] = 3;
        address[1] = (byte) h.length;
        System.arraycopy(h, 0, address, 2, h.length);
        return socks5(s, address, port);
    }

    /** {@link #socks5Connect} to an IPv4 address (address type 1). */
    static int socks5ConnectIpv4(Socket s, byte[] ipv4, int port) throws IOException {
        return socks5(s, new byte[] {1, ipv4[0], ipv4[1], ipv4[2], ipv4[3]}, port);
    }

    /** {@code address}: ATYP and DST.ADDR of the request (RFC 1928 section 4). */
    private static int socks5(Socket s, byte[] address, int port) throws IOException {
        s.setSoTimeout(20_000);
        OutputStream out = s.getOutputStream();
        DataInputStream in = new DataInputStream(s.getInputStream());
        out.write(new byte[] {5, 1, 0});
        byte[] choice = new byte[2];
        in.readFully(choice);
        assertArrayEquals(new byte[] {5, 0}, choice, "SOCKS5 method choice");
        java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream();
        req.write(new byte[] {5, 1, 0});
        req.write(address);
        req.write(new byte[] {(byte) (port >> 8), (byte) port});
        out.write(req.toByteArray());
        byte[] reply = new byte[10];
        in.readFully(reply);
        assertEquals(5, reply[0], "SOCKS5 reply version");
        return reply[1];
    }

    /** What a loopback test server does with one accepted connection (closed after it). */
    @FunctionalInterface
    private interface Connection {
        void serve(Socket s, InputStream in, OutputStream out) throws IOException;
    }

    /**
     * A loopback server (closed by {@link #close}) that serves each connection on a thread of its own; {@code failed}
     * gets what a connection threw. Returns its port.
     */
    private int startLoopbackServer(String name, Connection serve, Consumer<IOException> failed) throws IOException {
        ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        closeables.add(ss);
        Thread t = new Thread(() -> {
            while (!ss.isClosed()) {
                try {
                    Socket s = ss.accept();
                    Thread c = new Thread(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            serve.serve(s, in, out);
                        } catch (IOException e) {
                            failed.accept(e);
                        }
                    }, name + "-conn");
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, name + "-server");
        t.setDaemon(true);
        t.start();
        return ss.getLocalPort();
    }

    /**
     * Connects to 127.0.0.1:port, reads to the end of what the peer sends (it half-closed), then sends
     * {@code request} and closes; returns what it read.
     */
    static byte[] readToEndThenSend(int port, byte[] request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            byte[] got = s.getInputStream().readAllBytes();
            sendThenHalfClose(s, request);
            return got;
        }
    }

    /**
     * Connects to 127.0.0.1:port, sends {@code request}, shuts down its sending side (as {@code nc -N}) and reads the
     * reply to its end (bounded by a 20 s read timeout).
     */
    static byte[] requestThenHalfClose(int port, byte[] request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return requestThenHalfClose(s, request);
        }
    }

    /** {@link #requestThenHalfClose(int, byte[])} on a connected socket (say, once a SOCKS handshake is done). */
    static byte[] requestThenHalfClose(Socket s, byte[] request) throws IOException {
        s.setSoTimeout(20_000);
        sendThenHalfClose(s, request);
        return s.getInputStream().readAllBytes();
    }

    private static void sendThenHalfClose(Socket s, byte[] data) throws IOException {
        s.getOutputStream().write(data);
        s.getOutputStream().flush();
        s.shutdownOutput();
    }

    /**
     * Sends {@code data} on a connected socket (from a second thread) and reads until as many bytes came back or the
     * peer closed. No half-close (for that: {@link #requestThenHalfClose}).
     */
    static byte[] roundTrip(Socket s, byte[] data) throws IOException {
        s.setSoTimeout(20_000);
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = s.getOutputStream();
                out.write(data);
                out.flush();
            } catch (IOException e) {
                // the peer closed: the reader sees it
            }
        }, "round-trip-writer");
        writer.setDaemon(true);
        writer.start();
        return readUpTo(s.getInputStream(), data.length);
    }

    /**
     * Reads until {@code n} bytes came or the stream ended (bounded by the stream's own read timeout). A reset ends
     * it as an end of stream does: a forwarder that refuses the channel closes its local socket, and when our bytes
     * are still unread in it the kernel answers with RST instead of FIN (which of the two depends only on timing).
     */
    static byte[] readUpTo(InputStream in, int n) throws IOException {
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        byte[] buf = new byte[16384];
        while (got.size() < n) {
            int r;
            try {
                r = in.read(buf);
            } catch (java.net.SocketException e) {
                if (!"Connection reset".equals(e.getMessage())) {
                    throw e;
                }
                break;
            }
            if (r < 0) {
                break;
            }
            got.write(buf, 0, r);
        }
        return got.toByteArray();
    }

    static byte[] echoThrough(int port, byte[] data) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return roundTrip(s, data);
        }
    }

    /** {@code n} random bytes (test data no layer can compress or recognise). */
    static byte[] random(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /** Asserts the bytes came back unchanged. */
    static void assertEcho(byte[] sent, byte[] got, String what) {
        assertEquals(sent.length, got.length, what + ": length");
        assertTrue(java.util.Arrays.equals(sent, got), what + ": bytes differ");
    }

    @Override
    public void close() throws Exception {
        for (Process p : processes) {
            if (p.isAlive()) {
                p.destroy();
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
        for (AutoCloseable c : closeables) {
            c.close();
        }
        for (Thread t : servers) {
            t.interrupt();
            t.join(10_000);
        }
    }
}
