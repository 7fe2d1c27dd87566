package io.pqssh.lab.handshake;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.pqssh.lab.link.Connection;
import io.pqssh.lab.link.LinkConfig;
import io.pqssh.lab.link.LinkEmulator;
import io.pqssh.lab.link.Netns;
import io.pqssh.lab.report.HandshakeReport;

/**
 * Runs configurations × network settings through the link emulator: the pqssh server in namespace A and the client
 * agent in namespace B (child JVMs via {@code ip netns exec}), interleaved and shuffled per round, warm-up rounds
 * not counted; every login is timed on the emulator's clock.
 */
public final class HandshakeLab {
    /** One network setting. */
    public record Net(double rttMs, double lossPct, int initcwnd) {
    }

    /**
     * Peers: {@code pqssh} (pqssh client and server), {@code openssh} (ssh and sshd), {@code pqssh-to-openssh}
     * (the pqssh client agent against the OpenSSH peer's sshd, same keys and KEX as {@code openssh}).
     */
    public static final String PQSSH_TO_OPENSSH = "pqssh-to-openssh";
    static final List<String> PEERS = List.of("pqssh", "openssh", PQSSH_TO_OPENSSH);

    /** What to run. */
    public record Plan(List<HandshakeConfig> configs, List<Double> rtts, List<Double> losses, List<Integer> initcwnds,
            int runs, int warmup, long seed, Path out, boolean loopback, List<String> peers, Path opensshBin) {

        public Plan {
            peers = List.copyOf(peers);
            for (String p : peers) {
                if (!PEERS.contains(p)) {
                    throw new IllegalArgumentException("unknown peer '" + p + "' (" + String.join(", ", PEERS) + ")");
                }
            }
            if (loopback && (peers.contains("openssh") || peers.contains(PQSSH_TO_OPENSSH))) {
                throw new IllegalArgumentException("--peer openssh and " + PQSSH_TO_OPENSSH
                        + " need the emulated link (not --loopback)");
            }
        }

        /** The pqssh peer only. */
        public Plan(List<HandshakeConfig> configs, List<Double> rtts, List<Double> losses, List<Integer> initcwnds,
                int runs, int warmup, long seed, Path out, boolean loopback) {
            this(configs, rtts, losses, initcwnds, runs, warmup, seed, out, loopback, List.of("pqssh"), null);
        }
    }

    private final Plan plan;
    private final PrintStream progress;

    public HandshakeLab(Plan plan, PrintStream progress) {
        this.plan = plan;
        this.progress = progress;
    }

    /** Runs the plan, writes the outputs, returns the counted samples. */
    public List<Sample> run() throws IOException, InterruptedException {
        List<HandshakeConfig> runnable = plan.configs().stream().filter(HandshakeConfig::supported).toList();
        for (HandshakeConfig c : plan.configs()) {
            if (!c.supported()) {
                progress.println("skipped " + c.name() + ": unsupported: " + c.unsupported());
            }
        }
        if (runnable.isEmpty()) {
            throw new IllegalArgumentException("none of the selected configurations can run (see the reasons above)");
        }
        List<Net> nets = new ArrayList<>();
        for (double r : plan.rtts()) {
            for (double l : plan.losses()) {
                for (int iw : plan.initcwnds()) {
                    nets.add(new Net(r, l, iw));
                }
            }
        }
        List<String> profiles = runnable.stream().map(HandshakeConfig::serverProfile).distinct().toList();
        List<Sample> samples = new ArrayList<>();
        if (plan.loopback()) {
            runLoopback(runnable, profiles, samples);
        } else {
            runLinked(runnable, nets, profiles, samples);
        }
        HandshakeReport.write(plan.out(), samples, plan.configs(), plan.loopback());
        return samples.stream().filter(s -> !s.warmup()).toList();
    }

    private void runLinked(List<HandshakeConfig> configs, List<Net> nets, List<String> profiles, List<Sample> samples)
            throws IOException, InterruptedException {
        Net first = nets.get(0);
        try (LinkEmulator link = LinkEmulator.start(LinkConfig.of(first.rttMs(), first.lossPct(), first.initcwnd())
                .withSeed(plan.seed()))) {
            Child server = startServer(link, LinkEmulator.ADDR_A, profiles, true);
            Child client = startClient(link, true);
            OpenSshPeer openssh = null;
            List<HandshakeConfig> sshConfigs = List.of();
            if (plan.peers().contains("openssh") || plan.peers().contains(PQSSH_TO_OPENSSH)) {
                openssh = new OpenSshPeer(plan.opensshBin());
                openssh.start(link, plan.opensshBin());
                OpenSshPeer o = openssh;
                sshConfigs = configs.stream().filter(c -> {
                    String why = o.unsupported(c);
                    if (why != null) {
                        progress.println("openssh: skipped " + c.name() + ": " + why);
                    } else if (o.kexSubstitution(c) != null) {
                        progress.println("openssh: " + c.name() + " " + o.kexSubstitution(c));
                    }
                    return why == null;
                }).toList();
            }
            Net current = first;
            List<Object[]> trials = trials(plan.peers().contains("pqssh") ? configs : List.of(),
                    plan.peers().contains("openssh") ? sshConfigs : List.of(),
                    plan.peers().contains(PQSSH_TO_OPENSSH) ? sshConfigs : List.of(), nets);
            Progress bar = new Progress(progress, trials.size());
            for (Object[] t : trials) {
                HandshakeConfig c = (HandshakeConfig) t[0];
                Net n = (Net) t[1];
                int round = (int) t[2];
                if (!n.equals(current)) {
                    link.reconfigure(LinkConfig.of(n.rttMs(), n.lossPct(), n.initcwnd()).withSeed(plan.seed()));
                    current = n;
                }
                link.flushTcpMetrics();
                link.clearConnections();
                long retx0 = link.kernelRetransmissions();
                if (t[3].equals("openssh")) {
                    OpenSshPeer.Run run = openssh.login(link, c);
                    Thread.sleep(Math.max(50, (long) (n.rttMs() * 2)));
                    long retx = link.kernelRetransmissions() - retx0;
                    link.checkHealthy();
                    samples.add(opensshSample(c, n, round, run, link, retx));
                    bar.step("openssh " + c.name());
                    continue;
                }
                if (t[3].equals(PQSSH_TO_OPENSSH)) {
                    String reply = client.request("RUN " + LinkEmulator.ADDR_A + " " + OpenSshPeer.PORT + " "
                            + String.join(",", openssh.kexFor(c)) + " " + c.hostKey() + " " + c.auth() + " "
                            + OpenSshPeer.USER + " " + openssh.userKeyFile());
                    Thread.sleep(Math.max(50, (long) (n.rttMs() * 2)));
                    long retx = link.kernelRetransmissions() - retx0;
                    link.checkHealthy();
                    samples.add(sample(c, n, round, reply, link, retx, PQSSH_TO_OPENSSH));
                    bar.step(PQSSH_TO_OPENSSH + " " + c.name());
                    continue;
                }
                int port = server.ports.get(profiles.indexOf(c.serverProfile()));
                String reply = client.request("RUN " + LinkEmulator.ADDR_A + " " + port + " "
                        + String.join(",", c.clientKex()) + " " + c.hostKey() + " " + c.auth());
                Thread.sleep(Math.max(50, (long) (n.rttMs() * 2))); // let the close handshake cross the link
                long retx = link.kernelRetransmissions() - retx0;
                link.checkHealthy();
                samples.add(withMinaCounts(sample(c, n, round, reply, link, retx), reply, server, link));
                bar.step(c.name());
            }
            bar.done();
            if (openssh != null) {
                openssh.close();
            }
        }
    }

    private Sample opensshSample(HandshakeConfig c, Net n, int round, OpenSshPeer.Run r, LinkEmulator link, long retx) {
        boolean warm = round < plan.warmup();
        Connection conn = null;
        for (Connection x : link.connections()) {
            if (x.server.endsWith(":" + OpenSshPeer.PORT)) {
                conn = x;
            }
        }
        String err = r.err() != null ? r.err() : conn == null ? "the emulator saw no connection to sshd" : null;
        if (err != null) {
            return Sample.of(c.suite(), c.name(), "openssh", n.rttMs(), n.lossPct(), n.initcwnd(), round, warm, -1, -1,
                    -1, -1, (r.end() - r.start()) / 1e6, -1, -1, -1, -1, -1, -1, -1, -1, retx, -1, r.kex(), r.hostKey(),
                    c.method(), err, null);
        }
        long syn = conn.firstSynNanos();
        long done = r.exitStatus() != 0 ? r.exitStatus() : r.end();
        long[] toAuth = conn.countsUntil(r.auth());
        return Sample.of(c.suite(), c.name(), "openssh", n.rttMs(), n.lossPct(), n.initcwnd(), round, warm,
                (r.auth() - syn) / 1e6, (done - syn) / 1e6, conn.durationMs(), (r.auth() - r.start()) / 1e6,
                (r.end() - r.start()) / 1e6, conn.bytesC2s(), conn.bytesS2c(), conn.packetsC2s(), conn.packetsS2c(),
                toAuth[0], toAuth[1], conn.roundTripsUntil(done), conn.roundTripsUntil(r.auth()), retx,
                conn.retransmissions(), r.kex(), r.hostKey(), c.method(), null, wire(conn, r.auth()));
    }

    /** Bytes per message type, c2s then s2c (see {@link SshWire}). */
    static long[] wire(Connection conn, long tAuth) {
        long[] c = SshWire.dissect(conn.stream(true), conn.payloadUntil(true, tAuth),
                conn.payloadUntil(true, Long.MAX_VALUE));
        long[] s = SshWire.dissect(conn.stream(false), conn.payloadUntil(false, tAuth),
                conn.payloadUntil(false, Long.MAX_VALUE));
        long[] r = new long[c.length + s.length];
        System.arraycopy(c, 0, r, 0, c.length);
        System.arraycopy(s, 0, r, c.length, s.length);
        return r;
    }

    private void runLoopback(List<HandshakeConfig> configs, List<String> profiles, List<Sample> samples)
            throws IOException, InterruptedException {
        List<Child> children = new ArrayList<>();
        try {
            Child server = startServer(null, "127.0.0.1", profiles, false);
            children.add(server);
            Child client = startClient(null, false);
            children.add(client);
            List<Object[]> trials = trials(configs, List.of(), List.of(), List.of(new Net(0, 0, 10)));
            Progress bar = new Progress(progress, trials.size());
            for (Object[] t : trials) {
                HandshakeConfig c = (HandshakeConfig) t[0];
                int port = server.ports.get(profiles.indexOf(c.serverProfile()));
                String reply = client.request("RUN 127.0.0.1 " + port + " " + String.join(",", c.clientKex()) + " "
                        + c.hostKey() + " " + c.auth());
                samples.add(withMinaCounts(sample(c, (Net) t[1], (int) t[2], reply, null, -1), reply, server, null));
                bar.step(c.name());
            }
            bar.done();
        } finally {
            for (Child ch : children) {
                ch.close();
            }
        }
    }

    private List<Object[]> trials(List<HandshakeConfig> configs, List<HandshakeConfig> sshConfigs,
            List<HandshakeConfig> crossConfigs, List<Net> nets) {
        Random rnd = new Random(plan.seed());
        List<Object[]> all = new ArrayList<>();
        for (int round = 0; round < plan.warmup() + plan.runs(); round++) {
            List<Object[]> r = new ArrayList<>();
            for (Net n : nets) {
                for (HandshakeConfig c : configs) {
                    r.add(new Object[] {c, n, round, "pqssh"});
                }
                for (HandshakeConfig c : sshConfigs) {
                    r.add(new Object[] {c, n, round, "openssh"});
                }
                for (HandshakeConfig c : crossConfigs) {
                    r.add(new Object[] {c, n, round, PQSSH_TO_OPENSSH});
                }
            }
            Collections.shuffle(r, rnd);
            all.addAll(r);
        }
        return all;
    }

    private Sample sample(HandshakeConfig c, Net n, int round, String reply, LinkEmulator link, long retx) {
        return sample(c, n, round, reply, link, retx, "pqssh");
    }

    /** A sample of the pqssh client agent's reply; {@code peer} names the server side's pairing. */
    private Sample sample(HandshakeConfig c, Net n, int round, String reply, LinkEmulator link, long retx,
            String peer) {
        boolean warm = round < plan.warmup();
        if (reply == null || !reply.startsWith("OK ")) {
            return Sample.of(c.suite(), c.name(), peer, n.rttMs(), n.lossPct(), n.initcwnd(), round, warm, -1, -1,
                    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, retx, -1, "", "", c.method(),
                    reply == null ? "client agent gave no answer" : reply, null);
        }
        String[] f = reply.split(" ");
        int localPort = Integer.parseInt(f[1]);
        long t0 = Long.parseLong(f[2]);
        long tAuth = Long.parseLong(f[4]);
        long tDone = Long.parseLong(f[5]);
        String kex = f.length > 7 ? f[7] : "";
        String hk = f.length > 8 ? f[8] : "";
        double clientAuth = (tAuth - t0) / 1e6;
        double clientWall = (tDone - t0) / 1e6;
        String err = "0".equals(f[6]) ? null : "remote true exited with " + f[6];
        if (link == null) {
            return Sample.of(c.suite(), c.name(), peer, n.rttMs(), n.lossPct(), n.initcwnd(), round, warm,
                    clientAuth, clientWall, -1, clientAuth, clientWall, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, kex, hk,
                    c.method(), err, null);
        }
        Connection conn = null;
        for (Connection x : link.connections()) {
            if (x.client.endsWith(":" + localPort)) {
                conn = x;
            }
        }
        if (conn == null) {
            return Sample.of(c.suite(), c.name(), peer, n.rttMs(), n.lossPct(), n.initcwnd(), round, warm, -1, -1,
                    -1, clientAuth, clientWall, -1, -1, -1, -1, -1, -1, -1, -1, retx, -1, kex, hk, c.method(),
                    "the emulator saw no connection from port " + localPort, null);
        }
        long syn = conn.firstSynNanos();
        long[] toAuth = conn.countsUntil(tAuth);
        return Sample.of(c.suite(), c.name(), peer, n.rttMs(), n.lossPct(), n.initcwnd(), round, warm,
                (tAuth - syn) / 1e6, (tDone - syn) / 1e6, conn.durationMs(), clientAuth, clientWall, conn.bytesC2s(),
                conn.bytesS2c(), conn.packetsC2s(), conn.packetsS2c(), toAuth[0], toAuth[1],
                conn.roundTripsUntil(tDone), conn.roundTripsUntil(tAuth), retx, conn.retransmissions(), kex, hk,
                c.method(), err, wire(conn, tAuth));
    }

    /**
     * Adds the emulator's TCP payload counts (if there is a link) and the MINA-side counts: the client agent's from
     * its reply, the server's by asking it ({@code BYTES clientPort}) once the connection has closed.
     */
    private static Sample withMinaCounts(Sample s, String reply, Child server, LinkEmulator link) throws IOException {
        if (reply == null || !reply.startsWith("OK ")) {
            return s;
        }
        String[] f = reply.split(" ");
        String localPort = f[1];
        long cw = f.length > 10 ? Long.parseLong(f[9]) : -1;
        long cr = f.length > 10 ? Long.parseLong(f[10]) : -1;
        String[] b = server.request("BYTES " + localPort).split(" ");
        long sr = b.length == 3 && b[0].equals("BYTES") ? Long.parseLong(b[1]) : -1;
        long sw = b.length == 3 && b[0].equals("BYTES") ? Long.parseLong(b[2]) : -1;
        long pc = -1;
        long ps = -1;
        if (link != null) {
            for (Connection x : link.connections()) {
                if (x.client.endsWith(":" + localPort)) {
                    pc = x.payloadUntil(true, Long.MAX_VALUE);
                    ps = x.payloadUntil(false, Long.MAX_VALUE);
                }
            }
        }
        return s.withCounts(pc, ps, cw, cr, sr, sw);
    }

    /** A child process speaking lines. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final BufferedReader out;
        final Writer in;
        final List<Integer> ports = new ArrayList<>();

        Child(Process p) {
            this.process = p;
            this.out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            this.in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
        }

        void awaitReady(String what) throws IOException {
            for (String line; (line = out.readLine()) != null;) {
                if (line.equals("READY")) {
                    return;
                }
                if (line.startsWith("PORT ")) {
                    ports.add(Integer.parseInt(line.split(" ")[2]));
                }
            }
            throw new IOException(what + " exited before it was ready (exit " + waitExit() + ")");
        }

        private int waitExit() {
            try {
                return process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        String request(String line) throws IOException {
            in.write(line + "\n");
            in.flush();
            String r = out.readLine();
            if (r == null) {
                throw new IOException("lab child process died (exit " + waitExit() + ")");
            }
            return r;
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException ignored) {
                // already gone
            }
            try {
                if (!process.waitFor(3, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private Child startServer(LinkEmulator link, String addr, List<String> profiles, boolean inNs) throws IOException {
        List<String> args = new ArrayList<>(List.of(addr));
        args.addAll(profiles);
        List<String> cmd = LinkEmulator.java(LabServer.class.getName(), args);
        Process p = inNs ? link.spawn(link.nsA(), cmd, ProcessBuilder.Redirect.DISCARD)
                : new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Child c = new Child(p);
        c.awaitReady("lab server");
        if (c.ports.size() != profiles.size()) {
            throw new IOException("lab server reported " + c.ports.size() + " ports for " + profiles.size() + " profiles");
        }
        return c;
    }

    private Child startClient(LinkEmulator link, boolean inNs) throws IOException {
        List<String> cmd = LinkEmulator.java(LabClient.class.getName(), List.of());
        Process p = inNs ? link.spawn(link.nsB(), cmd, ProcessBuilder.Redirect.DISCARD)
                : new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Child c = new Child(p);
        c.awaitReady("lab client");
        return c;
    }

    /** A one-line progress bar with ETA. */
    static final class Progress {
        private final PrintStream out;
        private final int total;
        private final long start = System.nanoTime();
        private int done;

        Progress(PrintStream out, int total) {
            this.out = out;
            this.total = total;
        }

        void step(String what) {
            done++;
            double el = (System.nanoTime() - start) / 1e9;
            double eta = done == 0 ? 0 : el / done * (total - done);
            int w = 30;
            int filled = (int) ((long) w * done / total);
            out.printf("\r[%s%s] %d/%d  %.0f s elapsed, ETA %.0f s  %-28s", "#".repeat(filled), ".".repeat(w - filled),
                    done, total, el, eta, what.length() > 28 ? what.substring(0, 28) : what);
            out.flush();
        }

        void done() {
            out.println();
        }
    }

    /** Parses "a,b,c" into doubles. */
    public static List<Double> doubles(String spec, String what) {
        List<Double> r = new ArrayList<>();
        for (String s : spec.split(",")) {
            try {
                double v = Double.parseDouble(s.trim());
                if (v < 0) {
                    throw new NumberFormatException();
                }
                r.add(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + ": not a non-negative number: '" + s + "'");
            }
        }
        return r;
    }

    /** Parses "3,10" into initcwnd values. */
    public static List<Integer> ints(String spec, String what) {
        List<Integer> r = new ArrayList<>();
        for (String s : spec.split(",")) {
            try {
                int v = Integer.parseInt(s.trim());
                if (v < 1 || v > 1000) {
                    throw new NumberFormatException();
                }
                r.add(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + ": not within 1..1000: '" + s + "'");
            }
        }
        return r;
    }

    /** Fails clearly unless a linked (non-loopback) run can start here. */
    public static void requireUsable() throws Netns.LabUnavailableException {
        Netns.requireUsable();
    }
}
