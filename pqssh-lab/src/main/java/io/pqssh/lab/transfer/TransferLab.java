package io.pqssh.lab.transfer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.core.CoreModuleProperties;
import org.apache.sshd.scp.client.ScpClient;
import org.apache.sshd.scp.client.ScpClientCreator;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.SftpClientFactory;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.pqssh.lab.load.LabKeys;
import io.pqssh.lab.load.ServerProcess;
import io.pqssh.client.PqsshClient;

/**
 * {@code pqssh lab transfer}: SFTP and SCP upload and download of files of the given sizes against pqssh server
 * (MINA's SFTP subsystem and ScpCommandFactory) and OpenSSH's sshd (sftp-server, scp -t/-f), over loopback, Ed25519
 * user key, sntrup761 KEX; the client is MINA's (SftpClient, ScpClient). Every transfer is checked: SHA-256 of source
 * and destination must match, else {@link IntegrityException}.
 */
public final class TransferLab {
    public static final Path DEBIAN_SFTP_SERVER = Path.of("/usr/lib/openssh/sftp-server");

    /** Protocols {@link #run} knows, in the order it runs them. */
    public static final List<String> PROTOCOLS = List.of("sftp", "scp");

    /**
     * @param warmup transfers per server and protocol (of the first size) before the measured ones, recorded with
     *               phase "warmup" but left out of the ratios: the first transfers run while the JIT of the lab's
     *               client JVM (shared by both servers) and of the pqssh server JVM is still compiling
     * @param warmClient first one transfer per server and protocol (phase "client-warmup") with the JIT of the
     *               lab's client, then every server is restarted: warm-up round 0 is then a fresh server against a
     *               warm client, the cold cost of the server alone
     * @param repeat measured rounds; each round runs every server in turn (reversed every other round), so load
     *               from other work on the machine falls on both servers alike
     */
    public record Settings(List<String> servers, List<Long> sizes, List<String> ciphers, Path workDir,
            Path opensshBin, Duration timeout, List<String> protocols, boolean warmClient, int warmup, int repeat) {
        public Settings {
            protocols = List.copyOf(protocols);
            if (protocols.isEmpty()) {
                throw new IllegalArgumentException("no protocol (known: " + String.join(", ", PROTOCOLS) + ")");
            }
            for (String p : protocols) {
                if (!PROTOCOLS.contains(p)) {
                    throw new IllegalArgumentException("unknown protocol '" + p + "' (known: "
                            + String.join(", ", PROTOCOLS) + ")");
                }
            }
            if (warmup < 0 || repeat < 1) {
                throw new IllegalArgumentException("warmup must be >= 0 and repeat >= 1 (got " + warmup + ", "
                        + repeat + ")");
            }
        }

        /** No warm-up, one round. */
        public Settings(List<String> servers, List<Long> sizes, List<String> ciphers, Path workDir, Path opensshBin,
                Duration timeout, List<String> protocols) {
            this(servers, sizes, ciphers, workDir, opensshBin, timeout, protocols, false, 0, 1);
        }

        /** SFTP and SCP, no warm-up, one round. */
        public Settings(List<String> servers, List<Long> sizes, List<String> ciphers, Path workDir, Path opensshBin,
                Duration timeout) {
            this(servers, sizes, ciphers, workDir, opensshBin, timeout, PROTOCOLS);
        }
    }

    /** One transfer. */
    public record Result(@JsonProperty("server") String server, @JsonProperty("protocol") String protocol,
            @JsonProperty("direction") String direction, @JsonProperty("bytes") long bytes,
            @JsonProperty("seconds") double seconds, @JsonProperty("mb_per_s") double mbPerS,
            @JsonProperty("cipher_c2s") String cipherC2s, @JsonProperty("cipher_s2c") String cipherS2c,
            @JsonProperty("mac") String mac, @JsonProperty("kex") String kex,
            @JsonProperty("sha256_source") String sha256Source,
            @JsonProperty("sha256_destination") String sha256Destination, @JsonProperty("match") boolean match,
            @JsonProperty("phase") String phase, @JsonProperty("run") int run) {
        public boolean measured() {
            return MEASURED.equals(phase);
        }
    }

    public static final String CLIENT_WARMUP = "client-warmup";
    public static final String WARMUP = "warmup";
    public static final String MEASURED = "measured";

    private TransferLab() {
    }

    /** Parses {@code 100M}, {@code 4MiB}, {@code 512k}, {@code 1G} or plain bytes (M = 10^6 … as in the PQC papers). */
    public static long parseSize(String s) {
        String t = s.strip().toUpperCase(Locale.ROOT);
        long mul = 1;
        boolean binary = t.endsWith("IB");
        if (binary) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        if (t.endsWith("K")) {
            mul = binary ? 1024L : 1000L;
        } else if (t.endsWith("M")) {
            mul = binary ? 1024L * 1024 : 1_000_000L;
        } else if (t.endsWith("G")) {
            mul = binary ? 1024L * 1024 * 1024 : 1_000_000_000L;
        }
        if (mul != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t) * mul;
            if (v <= 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad size '" + s + "' (e.g. 100M, 4MiB, 512k, 1G)");
        }
    }

    /** SFTP read/write request size of the lab's client (MINA's default is 32 KiB). */
    static final int SFTP_BUFFER = 255 * 1024;

    /** JVM options of the pqssh server child. */
    static final List<String> PQSSH_SERVER_JVM = List.of("-Xmx512m");

    private static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buf = new byte[SFTP_BUFFER];
        int n;
        while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
        }
    }

    public static String sha256(Path f) throws IOException {
        try (InputStream in = Files.newInputStream(f)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Compares SHA-256 of source and destination; a difference is an {@link IntegrityException}. */
    public static String[] checkIntegrity(Path source, Path destination) throws IOException {
        String a = sha256(source);
        String b = sha256(destination);
        if (!a.equals(b) || Files.size(source) != Files.size(destination)) {
            throw new IntegrityException("INTEGRITY FAILURE: " + destination + " (sha256 " + b + ", "
                    + Files.size(destination) + " bytes) differs from " + source + " (sha256 " + a + ", "
                    + Files.size(source) + " bytes)");
        }
        return new String[] {a, b};
    }

    static void randomFile(Path f, long size) throws IOException {
        SplittableRandom r = new SplittableRandom(size * 31 + System.nanoTime());
        byte[] buf = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(f)) {
            long left = size;
            while (left > 0) {
                for (int i = 0; i < buf.length; i += 8) {
                    long v = r.nextLong();
                    for (int j = 0; j < 8 && i + j < buf.length; j++) {
                        buf[i + j] = (byte) (v >>> (8 * j));
                    }
                }
                int n = (int) Math.min(buf.length, left);
                out.write(buf, 0, n);
                left -= n;
            }
        }
    }

    public static List<Result> run(Settings s, PrintStream progress) throws Exception {
        LabKeys keys = LabKeys.create(s.workDir().resolve("keys"));
        Path data = s.workDir().resolve("data");
        Files.createDirectories(data);
        List<Result> out = new ArrayList<>();
        List<ServerProcess> servers = new ArrayList<>();
        try {
            // every server runs for the whole lab so that rounds can alternate between them
            for (String serverName : s.servers()) {
                ServerProcess server = switch (serverName) {
                    case "pqssh" -> new ServerProcess.Pqssh(s.workDir().resolve("pqssh"), keys,
                            "sntrup761x25519-sha512", null, List.of(), PQSSH_SERVER_JVM);
                    case "openssh" -> new ServerProcess.OpenSsh(s.workDir().resolve("openssh"), s.opensshBin(), keys,
                            ServerProcess.OpenSsh.sntrupName(s.opensshBin()),
                            List.of("Subsystem sftp " + DEBIAN_SFTP_SERVER));
                    default -> throw new IllegalArgumentException("unknown server '" + serverName
                            + "' (known: pqssh, openssh)");
                };
                servers.add(server);
                server.start();
            }
            PqsshClient.Builder b = PqsshClient.builder()
                    .kex(List.of("sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com"))
                    .warnWeakCrypto(false).timeout(s.timeout()).identity(keys.ed25519)
                    .preferredAuthentications(List.of("publickey"))
                    .serverKeyVerifier((sess, addr, key) -> KeyUtils.compareKeys(keys.hostPublicKey, key));
            // one client for all servers: whatever it costs, it costs every server the same
            try (PqsshClient client = b.start()) {
                if (!s.ciphers().isEmpty()) {
                    List<NamedFactory<Cipher>> cs = new ArrayList<>();
                    for (String c : s.ciphers()) {
                        BuiltinCiphers bc = BuiltinCiphers.fromFactoryName(c);
                        if (bc == null || !bc.isSupported()) {
                            throw new IllegalArgumentException("cipher '" + c + "' is not supported by MINA");
                        }
                        cs.add(bc);
                    }
                    client.sshClient().setCipherFactories(cs);
                }
                // bulk-transfer client tuning: larger window and packets, 255 KiB SFTP requests
                CoreModuleProperties.WINDOW_SIZE.set(client.sshClient(), 8L * 1024 * 1024);
                CoreModuleProperties.MAX_PACKET_SIZE.set(client.sshClient(), 64L * 1024);
                // MINA's ScpClient would open downloaded files with SYNC (a disk flush per write); scp does not
                org.apache.sshd.scp.ScpModuleProperties.PROP_AUTO_SYNC_FILE_ON_WRITE.set(client.sshClient(), false);
                for (long size : s.sizes()) {
                    Path src = data.resolve("src-" + size);
                    if (!Files.exists(src) || Files.size(src) != size) {
                        randomFile(src, size);
                    }
                }
                if (s.warmClient()) {
                    for (ServerProcess server : servers) {
                        for (String protocol : s.protocols()) {
                            transferOnce(client, s, data, server, protocol, s.sizes().get(0), CLIENT_WARMUP, 0, out,
                                    progress);
                        }
                    }
                    // a fresh server for the warm-up rounds, so that round 0 shows its own start-up cost
                    for (ServerProcess server : servers) {
                        server.close();
                        server.start();
                    }
                }
                int rounds = s.warmup() + s.repeat();
                for (int round = 0; round < rounds; round++) {
                    boolean warm = round < s.warmup();
                    String phase = warm ? WARMUP : MEASURED;
                    int run = warm ? round : round - s.warmup();
                    List<Long> sizes = warm ? List.of(s.sizes().get(0)) : s.sizes();
                    // odd rounds run the servers in reverse order, so neither always follows the other's
                    // page-cache and CPU-frequency state
                    List<ServerProcess> order = new ArrayList<>(servers);
                    if (round % 2 == 1) {
                        java.util.Collections.reverse(order);
                    }
                    for (ServerProcess server : order) {
                        for (long size : sizes) {
                            for (String protocol : s.protocols()) {
                                transferOnce(client, s, data, server, protocol, size, phase, run, out, progress);
                            }
                        }
                    }
                }
            }
        } finally {
            for (ServerProcess server : servers) {
                server.close();
            }
        }
        return out;
    }

    private static void transferOnce(PqsshClient client, Settings s, Path data, ServerProcess server,
            String protocol, long size, String phase, int run, List<Result> out, PrintStream progress)
            throws Exception {
        String name = server.name();
        transfer(client, server.port(), name, protocol, size, data.resolve("src-" + size),
                s.workDir().resolve(name + "-" + protocol + "-remote-" + size).toAbsolutePath(),
                data.resolve(name + "-" + protocol + "-back-" + size), phase, run, out, progress);
    }

    /** One upload (src to remote) and one download (remote to back) over a fresh session, both checked. */
    private static void transfer(PqsshClient client, int port, String serverName, String protocol, long size,
            Path src, Path remote, Path back, String phase, int run, List<Result> out, PrintStream progress)
            throws Exception {
        Files.deleteIfExists(remote);
        Files.deleteIfExists(back);
        try (ClientSession session = client.login(System.getProperty("user.name"), "127.0.0.1", port)) {
            String c2s = session.getNegotiatedKexParameter(KexProposalOption.C2SENC);
            String s2c = session.getNegotiatedKexParameter(KexProposalOption.S2CENC);
            String mac = session.getNegotiatedKexParameter(KexProposalOption.C2SMAC);
            String kex = session.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS);
            SftpClient sftp = protocol.equals("sftp") ? SftpClientFactory.instance().createSftpClient(session) : null;
            ScpClient scp = protocol.equals("scp") ? ScpClientCreator.instance().createScpClient(session) : null;
            try {
                long t0 = System.nanoTime();
                if (sftp != null) {
                    try (InputStream in = Files.newInputStream(src);
                            OutputStream o = sftp.write(remote.toString(), SFTP_BUFFER)) {
                        copy(in, o);
                    }
                } else {
                    scp.upload(src, remote.toString());
                }
                double up = (System.nanoTime() - t0) / 1e9;
                String[] h = checkIntegrity(src, remote);
                out.add(result(serverName, protocol, "upload", size, up, c2s, s2c, mac, kex, h, phase, run));
                report(progress, out.get(out.size() - 1));
                t0 = System.nanoTime();
                if (sftp != null) {
                    try (InputStream in = sftp.read(remote.toString(), SFTP_BUFFER);
                            OutputStream o = Files.newOutputStream(back)) {
                        copy(in, o);
                    }
                } else {
                    scp.download(remote.toString(), back);
                }
                double down = (System.nanoTime() - t0) / 1e9;
                h = checkIntegrity(remote, back);
                out.add(result(serverName, protocol, "download", size, down, c2s, s2c, mac, kex, h, phase, run));
                report(progress, out.get(out.size() - 1));
            } finally {
                if (sftp != null) {
                    sftp.close();
                }
            }
        } finally {
            Files.deleteIfExists(remote);
            Files.deleteIfExists(back);
        }
    }

    private static void report(PrintStream p, Result r) {
        if (p != null) {
            p.printf(Locale.ROOT, "%s %d: %s %s %s %d bytes: %.1f MB/s (%s), sha256 ok%n", r.phase(), r.run(),
                    r.server(), r.protocol(), r.direction(), r.bytes(), r.mbPerS(), r.cipherC2s());
        }
    }

    static Result result(String server, String protocol, String dir, long size, double secs, String c2s, String s2c,
            String mac, String kex, String[] h, String phase, int run) {
        return new Result(server, protocol, dir, size, Math.round(secs * 1e6) / 1e6,
                Math.round(size / 1e6 / secs * 100) / 100.0, c2s, s2c, mac, kex, h[0], h[1], h[0].equals(h[1]),
                phase, run);
    }

    /**
     * pqssh / OpenSSH MB/s per protocol, direction and size over the measured rounds (ratio of the means, and the
     * lowest and highest ratio of one round), for the 0.8x target (set for SFTP).
     */
    public static List<String> ratios(List<Result> rs) {
        return ratios(rs, MEASURED, "target ≥ 0.8");
    }

    /** The same for the first warm-up round: each server's first transfer after its start (JIT still cold). */
    public static List<String> coldRatios(List<Result> rs) {
        return ratios(rs.stream().filter(r -> r.run() == 0).toList(), WARMUP, null);
    }

    private static List<String> ratios(List<Result> rs, String phase, String target) {
        List<String> out = new ArrayList<>();
        List<Result> ps = rs.stream().filter(r -> r.phase().equals(phase) && r.server().equals("pqssh")).toList();
        java.util.Set<String> done = new java.util.HashSet<>();
        for (Result p : ps) {
            if (!done.add(p.protocol() + " " + p.direction() + " " + p.bytes())) {
                continue;
            }
            List<Result> mine = ps.stream().filter(x -> same(x, p)).toList();
            List<Result> theirs = rs.stream().filter(o -> o.phase().equals(phase) && o.server().equals("openssh")
                    && same(o, p)).toList();
            if (theirs.isEmpty()) {
                continue;
            }
            double pm = mine.stream().mapToDouble(Result::mbPerS).average().orElseThrow();
            double om = theirs.stream().mapToDouble(Result::mbPerS).average().orElseThrow();
            double r = pm / om;
            double lo = Double.MAX_VALUE;
            double hi = 0;
            for (Result x : mine) {
                for (Result o : theirs) {
                    if (o.run() == x.run()) {
                        lo = Math.min(lo, x.mbPerS() / o.mbPerS());
                        hi = Math.max(hi, x.mbPerS() / o.mbPerS());
                    }
                }
            }
            boolean sameCipher = mine.stream().allMatch(x -> theirs.stream().allMatch(
                    o -> x.cipherC2s().equals(o.cipherC2s()) && x.mac().equals(o.mac())));
            out.add(String.format(Locale.ROOT, "%s %s %d bytes: pqssh/OpenSSH %.2f× (%d run%s; pqssh %.1f MB/s %s,"
                    + " OpenSSH %.1f MB/s %s; per round %.2f–%.2f×; %s %s%s)", p.protocol(), p.direction(),
                    p.bytes(), r, mine.size(), mine.size() == 1 ? "" : "s", pm, spread(mine), om, spread(theirs),
                    lo, hi, p.cipherC2s(), p.mac(), target == null ? "" : "; " + target + ": "
                            + (r >= 0.8 ? "met" : "missed"))
                    + (sameCipher ? "" : " [different ciphers or MACs: compare with --ciphers]"));
        }
        return out;
    }

    private static boolean same(Result a, Result b) {
        return a.protocol().equals(b.protocol()) && a.direction().equals(b.direction()) && a.bytes() == b.bytes();
    }

    private static String spread(List<Result> rs) {
        double lo = rs.stream().mapToDouble(Result::mbPerS).min().orElseThrow();
        double hi = rs.stream().mapToDouble(Result::mbPerS).max().orElseThrow();
        return String.format(Locale.ROOT, "[%.1f–%.1f]", lo, hi);
    }

    public static void write(Path dir, List<Result> rs) throws IOException {
        Files.createDirectories(dir);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("transfer.json").toFile(),
                rs);
        StringBuilder csv = new StringBuilder("server,protocol,direction,bytes,seconds,mb_per_s,cipher_c2s,cipher_s2c,"
                + "mac,kex,sha256_source,sha256_destination,match,phase,run\n");
        StringBuilder md = new StringBuilder("# Transfer (pqssh lab transfer)\n\nSFTP and SCP over loopback, Ed25519 user key;"
                + " MB = 10^6 bytes; each transfer's SHA-256 of source and destination compared. Warm-up rounds"
                + " (JIT of client and pqssh server still compiling) are listed but not in the ratios.\n\n"
                + "| phase | run | server | protocol | direction | bytes | MB/s | cipher | MAC | KEX | SHA-256 match |\n"
                + "|---|---:|---|---|---|---:|---:|---|---|---|---|\n");
        for (Result r : rs) {
            csv.append(String.join(",", r.server(), r.protocol(), r.direction(), Long.toString(r.bytes()),
                    Double.toString(r.seconds()), Double.toString(r.mbPerS()), r.cipherC2s(), r.cipherS2c(), r.mac(),
                    r.kex(), r.sha256Source(), r.sha256Destination(), Boolean.toString(r.match()), r.phase(),
                    Integer.toString(r.run()))).append('\n');
            md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %d | %.2f | %s | %s | %s | %s |%n",
                    r.phase(), r.run(), r.server(), r.protocol(), r.direction(), r.bytes(), r.mbPerS(), r.cipherC2s(),
                    r.mac(), r.kex(), r.match() ? "yes" : "NO"));
        }
        List<String> ratios = ratios(rs);
        if (!ratios.isEmpty()) {
            md.append("\n");
            ratios.forEach(x -> md.append("- ").append(x).append('\n'));
        }
        List<String> cold = coldRatios(rs);
        if (!cold.isEmpty()) {
            md.append("\nFirst transfer after each server's start (warm-up round 0):\n\n");
            cold.forEach(x -> md.append("- ").append(x).append('\n'));
        }
        Files.writeString(dir.resolve("transfer.csv"), csv);
        Files.writeString(dir.resolve("transfer.md"), md);
    }
}
