package io.pqssh.inventory.scan;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

/**
 * One unauthenticated probe: connect, exchange identification lines and KEXINITs, disconnect. Every read is bounded
 * by what is left of one overall deadline, so a peer that dribbles bytes cannot hold a worker longer than
 * connect + read timeout.
 */
public final class RawProbe {
    public static final String CLIENT_VERSION = "pqssh_scan_0.1";

    private final Duration connectTimeout;
    private final Duration readTimeout;

    public RawProbe(Duration connectTimeout, Duration readTimeout) {
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
    }

    /** Thrown for timeouts, the only failures worth retrying. */
    public static final class ProbeTimeout extends IOException {
        private static final long serialVersionUID = 1L;

        ProbeTimeout(String message) {
            super(message);
        }
    }

    /** The client KEXINIT we send: OpenSSH 10's KEX list with pqssh's extras and the strict-KEX marker. */
    static KexInit clientKexInit() {
        List<String> kex = new java.util.ArrayList<>(Algorithms.OPENSSH10_CLIENT_KEX);
        for (String k : Algorithms.PQSSH_KEX) {
            if (!kex.contains(k)) {
                kex.add(k);
            }
        }
        kex.add("ext-info-c");
        kex.add("kex-strict-c-v00@openssh.com");
        List<String> ciphers = List.of("chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
                "aes128-gcm@openssh.com", "aes256-gcm@openssh.com");
        List<String> macs = List.of("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
                "hmac-sha2-256", "hmac-sha2-512");
        List<String> hk = List.of("ssh-mldsa44-ed25519", "ssh-mldsa44-ed25519@openssh.com", "ssh-ed25519", "ecdsa-sha2-nistp256",
                "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "rsa-sha2-512", "rsa-sha2-256");
        return new KexInit(kex, hk, ciphers, ciphers, macs, macs, List.of("none"), List.of("none"), List.of(),
                List.of(), false);
    }

    public ScanResult probe(Target t) throws ProbeTimeout {
        long start = System.nanoTime();
        try (Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            try {
                s.connect(new InetSocketAddress(t.host(), t.port()), (int) Math.max(1, connectTimeout.toMillis()));
            } catch (SocketTimeoutException e) {
                throw new ProbeTimeout("unreachable: connect timed out after " + connectTimeout.toMillis() + " ms");
            }
            long deadline = System.nanoTime() + readTimeout.toNanos();
            InputStream in = new BufferedInputStream(new DeadlineInputStream(s, deadline), 8192);
            OutputStream out = s.getOutputStream();
            SshTransport.writeBanner(out, CLIENT_VERSION);
            SshTransport.Banner banner = SshTransport.readBanner(in);
            SshTransport.writePacket(out, clientKexInit().encode(SshTransport.randomCookie()));
            KexInit k = SshTransport.readKexInit(in);
            return new ScanResult(t, ScanResult.Status.SSH, null, banner.line(), banner.software(), k,
                    Classification.of(k), List.of(), 1, millis(start));
        } catch (ProbeTimeout e) {
            throw e;
        } catch (SocketTimeoutException e) {
            throw new ProbeTimeout("not ssh: no SSH identification/KEXINIT within " + readTimeout.toMillis() + " ms");
        } catch (SshTransport.PenaltyRefusal e) {
            return failed(t, ScanResult.Status.UNREACHABLE, Zgrab2Reader.penalty(), start);
        } catch (SshTransport.NotSshException e) {
            return failed(t, ScanResult.Status.NOT_SSH, "not ssh: " + e.getMessage(), start);
        } catch (UnknownHostException e) {
            return failed(t, ScanResult.Status.UNREACHABLE, "unreachable: unknown host " + t.host(), start);
        } catch (ConnectException e) {
            String m = e.getMessage() == null ? "" : e.getMessage().toLowerCase(java.util.Locale.ROOT);
            return failed(t, ScanResult.Status.UNREACHABLE, "unreachable: "
                    + (m.contains("refused") ? "connection refused" : m), start);
        } catch (NoRouteToHostException e) {
            return failed(t, ScanResult.Status.UNREACHABLE, "unreachable: no route to host", start);
        } catch (IOException e) {
            String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            // a reset after connecting means something answered and hung up: not a working SSH server
            return failed(t, ScanResult.Status.NOT_SSH, "not ssh: " + m, start);
        }
    }

    static ScanResult failed(Target t, ScanResult.Status st, String error, long start) {
        return new ScanResult(t, st, error, null, null, null, null, List.of(), 1, millis(start));
    }

    static long millis(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** Socket input whose every read waits at most until one deadline. */
    private static final class DeadlineInputStream extends InputStream {
        private final Socket socket;
        private final InputStream in;
        private final long deadline;

        DeadlineInputStream(Socket socket, long deadline) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
            this.deadline = deadline;
        }

        private void arm() throws IOException {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new SocketTimeoutException("deadline reached");
            }
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
        }

        @Override
        public int read() throws IOException {
            arm();
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            arm();
            return in.read(b, off, len);
        }
    }
}
