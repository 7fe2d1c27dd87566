package io.pqssh.server.sftp;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A raw SFTP client for protocol tests: builds packets, sends them, reads one reply packet each. */
final class RawSftp implements AutoCloseable {
    final OutputStream toServer;
    final DataInputStream fromServer;
    final CompletableFuture<Integer> exit;
    private final Process process;
    private final java.util.concurrent.ExecutorService READER =
            java.util.concurrent.Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().unstarted(r));

    private RawSftp(OutputStream to, InputStream from, CompletableFuture<Integer> exit, Process p) {
        this.toServer = to;
        this.fromServer = new DataInputStream(from);
        this.exit = exit;
        this.process = p;
    }

    /** SftpFileServer in this JVM over pipes. */
    static RawSftp engine(SftpServerOptions o, List<String> log) throws IOException {
        PipedOutputStream clientOut = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(clientOut, 1 << 20);
        PipedOutputStream serverOut = new PipedOutputStream();
        PipedInputStream clientIn = new PipedInputStream(serverOut, 1 << 20);
        SftpFileServer server = new SftpFileServer(o, log == null ? null : s -> { synchronized (log) { log.add(s); } });
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("sftp-engine").start(() -> {
            try (serverOut) {
                exit.complete(server.serve(serverIn, serverOut));
            } catch (Throwable e) {
                exit.completeExceptionally(e);
            }
        });
        return new RawSftp(clientOut, clientIn, exit, null);
    }

    /** OpenSSH's sftp-server with the given flags, started in {@code cwd}. */
    static RawSftp openssh(Path cwd, String... flags) throws IOException {
        List<String> cmd = new java.util.ArrayList<>(List.of(SftpTools.SFTP_SERVER.toString()));
        cmd.addAll(List.of(flags));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("LC_ALL", "C.UTF-8");
        Process p = pb.start();
        return new RawSftp(p.getOutputStream(), p.getInputStream(), p.onExit().thenApply(Process::exitValue), p);
    }

    /** Sends one packet made of the given fields: Integer → uint32, Long → uint64, String → string, byte[] → string. */
    void send(int type, Object... fields) throws IOException {
        sendRaw(packet(type, fields));
    }

    static byte[] packet(int type, Object... fields) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(type);
        for (Object f : fields) put(b, f);
        byte[] body = b.toByteArray();
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        u32(p, body.length);
        p.writeBytes(body);
        return p.toByteArray();
    }

    static void put(ByteArrayOutputStream b, Object f) {
        switch (f) {
            case Integer i -> u32(b, i);
            case Long l -> { u32(b, (int) (l >>> 32)); u32(b, (int) (long) l); }
            case String s -> { byte[] x = s.getBytes(StandardCharsets.UTF_8); u32(b, x.length); b.writeBytes(x); }
            case byte[] x -> { u32(b, x.length); b.writeBytes(x); }
            case Byte x -> b.write(x);
            default -> throw new IllegalArgumentException(String.valueOf(f));
        }
    }

    static void u32(ByteArrayOutputStream b, int v) {
        b.write(v >>> 24);
        b.write(v >>> 16);
        b.write(v >>> 8);
        b.write(v);
    }

    void sendRaw(byte[] bytes) throws IOException {
        toServer.write(bytes);
        toServer.flush();
    }

    /** The next reply packet's body (type first), or fails after 20 s. */
    byte[] reply() throws IOException {
        CompletableFuture<byte[]> f = CompletableFuture.supplyAsync(() -> {
            try {
                int n = fromServer.readInt();
                byte[] b = new byte[n];
                fromServer.readFully(b);
                return b;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, READER);
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof java.io.UncheckedIOException u) throw u.getCause();
            throw new IOException(e.getCause());
        } catch (Exception e) {
            fail("no reply within 20 s: " + e);
            return null;
        }
    }

    /** Request then reply. */
    byte[] call(int type, Object... fields) throws IOException {
        send(type, fields);
        return reply();
    }

    /** Ends the input; the server's exit status. */
    int finish() throws Exception {
        toServer.close();
        return exit.get(20, TimeUnit.SECONDS);
    }

    /** True when the server closed its output (no reply will come). */
    boolean atEof() throws IOException {
        try {
            fromServer.readByte();
            return false;
        } catch (EOFException e) {
            return true;
        }
    }

    static int u32At(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    static long u64At(byte[] b, int at) {
        return ((long) u32At(b, at) << 32) | (u32At(b, at + 4) & 0xffffffffL);
    }

    /** A STATUS reply's code. */
    static int status(byte[] r) {
        if (r[0] != SftpFileServer.STATUS) fail("not a STATUS reply: " + hex(r));
        return u32At(r, 5);
    }

    /** A HANDLE reply's handle. */
    static byte[] handle(byte[] r) {
        if (r[0] != SftpFileServer.HANDLE) fail("not a HANDLE reply: " + hex(r));
        int n = u32At(r, 5);
        return java.util.Arrays.copyOfRange(r, 9, 9 + n);
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Override
    public void close() {
        READER.shutdownNow();
        try {
            toServer.close();
        } catch (IOException ignored) {
            // closed
        }
        if (process != null) {
            process.destroy();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
