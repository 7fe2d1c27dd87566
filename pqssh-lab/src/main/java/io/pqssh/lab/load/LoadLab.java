package io.pqssh.lab.load;

import java.awt.Color;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.HdrHistogram.Histogram;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * {@code pqssh lab load}: for each server x method x workers, starts a fresh server, runs the
 * {@link LoadGenerator}, and reads the server's CPU time and memory. Writes load.json, load.csv, load.md, load.png.
 */
public final class LoadLab {
    /** Settings of one run. */
    /**
     * Settings of one run. {@code user}: the account the workers log in as (null: the lab's own; both servers then
     * get {@code SetEnv SHLVL=1}, see {@link #SKIP_SHELL_RC}); with {@code createUser} the lab creates it
     * ({@link LabAccount}, default name {@value LabAccount#DEFAULT_NAME}) and removes it at the end. For any account
     * but the lab's own, both servers run its shell as a real login does, start-up files included.
     */
    public record Settings(List<String> servers, List<LoadMethod> methods, List<Integer> workers, Duration warmup,
            Duration duration, Path workDir, Path opensshBin, String pqsshMain, Duration timeout, String user,
            boolean createUser) {
        public Settings(List<String> servers, List<LoadMethod> methods, List<Integer> workers, Duration warmup,
                Duration duration, Path workDir, Path opensshBin, String pqsshMain, Duration timeout) {
            this(servers, methods, workers, warmup, duration, workDir, opensshBin, pqsshMain, timeout, null, false);
        }

        /** The account the workers log in as. */
        public String loginUser() {
            return user != null ? user : createUser ? LabAccount.DEFAULT_NAME : System.getProperty("user.name");
        }

        /** Whether the lab logs in as its own account (then neither server runs the account's shell rc). */
        public boolean ownAccount() {
            return loginUser().equals(System.getProperty("user.name"));
        }
    }

    /** Published: KEMUAuth paper Appendix C (sshd on 2 dedicated cores, cgroup v2), medians of 5 runs. */
    static final Map<String, double[]> PUBLISHED = new LinkedHashMap<>();

    static {
        // method|N -> conn/s, cpu ms/conn, p95 ms, peak MB
        PUBLISHED.put("publickey-kem-mlkem768|1", new double[] {11.36, 19.67, 79, 9.3});
        PUBLISHED.put("publickey-mldsa65|1", new double[] {10.87, 19.70, 83, 9.3});
        PUBLISHED.put("publickey-kem-mlkem768|8", new double[] {84.48, 17.57, 94, 39.6});
        PUBLISHED.put("publickey-mldsa65|8", new double[] {81.75, 17.72, 97, 40.1});
        PUBLISHED.put("publickey-kem-mlkem768|16", new double[] {107.99, 18.06, 158, 74.4});
        PUBLISHED.put("publickey-mldsa65|16", new double[] {106.46, 18.22, 161, 74.6});
        PUBLISHED.put("publickey-kem-mlkem768|32", new double[] {107.65, 18.49, 317, 133.3});
        PUBLISHED.put("publickey-mldsa65|32", new double[] {106.48, 18.69, 321, 133.5});
        PUBLISHED.put("publickey-kem-mlkem768|64", new double[] {106.27, 18.97, 665, 242.9});
        PUBLISHED.put("publickey-mldsa65|64", new double[] {105.90, 19.06, 680, 244.4});
    }

    private LoadLab() {
    }

    /** Whether this build's MINA adapter has PQ signature user keys (io.pqssh.mina.keys). */
    public static boolean pqSignatureKeysAvailable() {
        try {
            Class.forName("io.pqssh.mina.keys.PqKeyPairs");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    public static List<LoadResult> run(Settings s, PrintStream progress) throws Exception {
        LabAccount account = s.createUser() ? LabAccount.create(s.loginUser()) : null;
        try {
            if (account != null && progress != null) {
                progress.printf("created the account %s (home %s) for the logins; removed at the end%n",
                        account.name(), account.home());
            }
            return runAs(s, progress);
        } finally {
            if (account != null) {
                account.close();
            }
        }
    }

    private static List<LoadResult> runAs(Settings s, PrintStream progress) throws Exception {
        LabKeys keys = LabKeys.create(s.workDir().resolve("keys"));
        if (!s.ownAccount()) {
            keys.shareAuthorizedKeys(s.workDir());
        }
        List<LoadResult> out = new ArrayList<>();
        int total = s.servers().size() * s.methods().size() * s.workers().size();
        int[] done = {0};
        // the servers take turns at every method and N (and swap who goes first from one N to the next), so the
        // lab JVM's own JIT warm-up and the load from other work on the machine fall on both alike; the report
        // is still ordered server by server
        int turn = 0;
        for (LoadMethod m : s.methods()) {
            for (int n : s.workers()) {
                List<String> order = new ArrayList<>(s.servers());
                if (turn++ % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (String serverName : order) {
                    done[0]++;
                    LoadResult r = runOne(s, keys, serverName, m, n, progress, done[0], total);
                    out.add(r);
                    if (progress != null) {
                        progress.printf(Locale.ROOT, "%n[%d/%d] %s %s N=%d: %s%n", done[0], total, serverName,
                                m.label(), n, summary(r));
                    }
                }
            }
        }
        List<String> methods = s.methods().stream().map(LoadMethod::label).toList();
        out.sort(java.util.Comparator.<LoadResult>comparingInt(r -> s.servers().indexOf(r.server()))
                .thenComparingInt(r -> methods.indexOf(r.method()))
                .thenComparingInt(r -> s.workers().indexOf(r.workers())));
        return out;
    }

    static String summary(LoadResult r) {
        if (r.connPerS() == null) {
            return r.status() + (r.note() == null ? "" : " (" + r.note() + ")");
        }
        return String.format(Locale.ROOT, "%s %.1f conn/s, %d failures %s, p95 %.1f ms, cpu %.2f ms/conn, peak %.1f MB",
                r.status(), r.connPerS(), r.failures(), r.failuresByCause(), r.p95Ms(), nz(r.cpuMsPerConn()),
                nz(r.peakMemMb()));
    }

    private static double nz(Double d) {
        return d == null ? Double.NaN : d;
    }

    /**
     * The config line both kinds of server get when the lab logs in as its own account, so that their configs ask
     * for the same thing: the user's bash should skip {@code ~/.bashrc} (Debian's bash reads it for a command
     * started over SSH when SHLVL < 2; SHLVL=1 becomes 2 in that bash). sshd 9.2 does so, and pqssh server does
     * since eef71a1 (before, its session trampoline's {@code exec} lowered SHLVL by one, and the user's bash still
     * read {@code ~/.bashrc}). Before 2026-12-06 only sshd got the line. With another account ({@code --user},
     * {@code --create-user}) neither server gets it.
     */
    static final String SKIP_SHELL_RC = "SetEnv SHLVL=1";

    static ServerProcess server(Settings s, LabKeys keys, String name, Path dir) {
        String user = s.loginUser();
        boolean skipRc = s.ownAccount();
        List<String> productRc = skipRc ? List.of(SKIP_SHELL_RC) : List.of();
        return switch (name) {
            case "pqssh" -> new ServerProcess.Pqssh(dir, keys, "sntrup761x25519-sha512", s.pqsshMain(),
                    List.of("MaxPendingKEMChallenges 4096:4096"), List.of("-Xmx512m", "-XX:+UseSerialGC"));
            case "openssh" -> new ServerProcess.OpenSsh(dir, s.opensshBin(), keys,
                    ServerProcess.OpenSsh.sntrupName(s.opensshBin()), List.of(), user, skipRc);
            // the product server (pqssh server -D -f) with and without the system's PAM, and sshd with it: what
            // UsePAM yes (Debian's default) costs each of them per login
            case "pqssh-nopam", "pqssh-pam" -> new ServerProcess.Pqssh(dir, keys, "sntrup761x25519-sha512",
                    productMain(s), concat(List.of("MaxPendingKEMChallenges 4096:4096",
                            name.equals("pqssh-pam") ? "UsePAM yes" : "UsePAM no"), productRc),
                    List.of("-Xmx512m", "-XX:+UseSerialGC"));
            case "openssh-pam" -> new ServerProcess.OpenSsh(dir, s.opensshBin(), keys,
                    ServerProcess.OpenSsh.sntrupName(s.opensshBin()), List.of("UsePAM yes"), user, skipRc);
            default -> throw new IllegalArgumentException("unknown server '" + name + "' (known: " + String.join(
                    ", ", SERVERS) + ")");
        };
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(b);
        return l;
    }

    /** The 1-minute load average (/proc/loadavg), or null. */
    static Double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Every server name {@code --servers} takes. */
    public static final List<String> SERVERS = List.of("pqssh", "openssh", "pqssh-nopam", "pqssh-pam", "openssh-pam");

    /** The product's main class: the PAM rows measure {@code pqssh server}, which the lab's launcher is not. */
    private static String productMain(Settings s) {
        String main = s.pqsshMain() != null ? s.pqsshMain() : "io.pqssh.cli.Main";
        try {
            Class.forName(main, false, LoadLab.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("pqssh-pam and pqssh-nopam run 'pqssh server' (" + main
                    + "), which is not on this class path: run them from the pqssh command");
        }
        return main;
    }

    static LoadResult runOne(Settings s, LabKeys keys, String serverName, LoadMethod m, int n, PrintStream progress,
            int index, int total) throws Exception {
        try (ServerProcess server = server(s, keys, serverName, s.workDir().resolve(serverName))) {
            if (!server.supports(m)) {
                return LoadResult.notMeasured(serverName, m.label(), n, "n/a", server.kex(),
                        serverName + " has no " + m.label() + " login");
            }
            if (m == LoadMethod.MLDSA65 && serverName.equals("pqssh") && !pqSignatureKeysAvailable()) {
                return LoadResult.notMeasured(serverName, m.label(), n, "unsupported", server.kex(),
                        "PQ signature user keys are not in this build's MINA adapter");
            }
            server.start();
            long pid = server.pid();
            // the server's own cgroup v2 for its CPU (ServerCgroup: sshd does not wait for all its children, so
            // /proc's cutime misses part of a non-root login); created now, after start, when nothing has forked
            ServerCgroup cpuGroup = null;
            String cpuSource = "proc";
            try {
                cpuGroup = ServerCgroup.create(serverName);
                cpuGroup.add(pid);
                cpuSource = "cgroup-v2 cpu.stat";
            } catch (IOException e) {
                if (cpuGroup != null) {
                    cpuGroup.close();
                    cpuGroup = null;
                }
                if (progress != null) {
                    progress.printf("%nno cgroup v2 for %s (%s): server CPU from /proc, which misses children the"
                            + " server does not wait for%n", serverName, e.getMessage());
                }
            }
            try {
                return measure(s, keys, server, serverName, m, n, progress, index, total, cpuGroup, cpuSource);
            } finally {
                server.close();
                if (cpuGroup != null) {
                    cpuGroup.close();
                }
            }
        }
    }

    private static LoadResult measure(Settings s, LabKeys keys, ServerProcess server, String serverName,
            LoadMethod m, int n, PrintStream progress, int index, int total, ServerCgroup cpuGroup, String cpuSource)
            throws Exception {
        {
            long pid = server.pid();
            Optional<Path> cgroup = ProcStats.ownCgroup(pid);
            AtomicLong peakTree = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    peakTree.accumulateAndGet(ProcStats.treeRssBytes(pid), Math::max);
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "lab-mem");
            sampler.setDaemon(true);
            sampler.start();
            List<String> kex = List.of("sntrup761x25519-sha512", "sntrup761x25519-sha512@openssh.com");
            LoadGenerator gen = new LoadGenerator(keys, m, kex, s.timeout(), s.loginUser());
            long[] cpu0 = {-1};
            long[] cg0 = {-1};
            Double[] load0 = {null};
            long[] jit0 = {-1};
            long[] self0 = {-1};
            long self = ProcessHandle.current().pid();
            boolean jvmServer = serverName.startsWith("pqssh");
            LoadGenerator.Window w;
            Consumer<Double> tick = progress == null ? null : f -> progress.printf(Locale.ROOT, "\r%s %s %s N=%d",
                    bar(index - 1 + f, total), serverName, m.label(), n);
            try {
                w = gen.run(server.port(), n, s.warmup(), s.duration(),
                        () -> {
                            cpu0[0] = ProcStats.cpuMillis(pid).orElse(-1L);
                            cg0[0] = cpuGroup == null ? -1L : cpuGroup.cpuMicros().orElse(-1L);
                            load0[0] = loadAverage();
                            jit0[0] = jvmServer ? ProcStats.threadCpuMillis(pid, ProcStats.JIT_THREADS).orElse(-1L)
                                    : -1L;
                            self0[0] = ProcStats.cpuMillis(self).orElse(-1L);
                        }, tick);
            } finally {
                gen.close();
            }
            Optional<Long> cpu1 = ProcStats.cpuMillis(pid);
            Optional<Long> cg1 = cpuGroup == null ? Optional.empty() : cpuGroup.cpuMicros();
            Double load1 = loadAverage();
            Optional<Long> jit1 = jvmServer ? ProcStats.threadCpuMillis(pid, ProcStats.JIT_THREADS) : Optional.empty();
            Optional<Long> self1 = ProcStats.cpuMillis(self);
            sampler.interrupt();
            sampler.join(2000);
            boolean alive = server.isAlive();
            // let the server count the last sessions before reading its counter
            Thread.sleep(200);
            Optional<Long> serverCount = server.authenticatedCount();
            Double procPerConn = cpu0[0] >= 0 && cpu1.isPresent() && w.successes() > 0
                    ? round((cpu1.get() - cpu0[0]) / (double) w.successes()) : null;
            Double cgPerConn = cg0[0] >= 0 && cg1.isPresent() && w.successes() > 0
                    ? round((cg1.get() - cg0[0]) / 1000.0 / w.successes()) : null;
            Double cpuPerConn = cpuGroup != null ? cgPerConn : procPerConn;
            Double jitPerConn = jit0[0] >= 0 && jit1.isPresent() && w.successes() > 0
                    ? round((jit1.get() - jit0[0]) / (double) w.successes()) : null;
            Double clientPerConn = self0[0] >= 0 && self1.isPresent() && w.successes() > 0
                    ? round((self1.get() - self0[0]) / (double) w.successes()) : null;
            long peakBytes;
            String memSource;
            if (cgroup.isPresent() && ProcStats.cgroupPeakBytes(cgroup.get()).isPresent()) {
                peakBytes = ProcStats.cgroupPeakBytes(cgroup.get()).get();
                memSource = "cgroup-v2 memory.peak";
            } else {
                long hwm = alive ? ProcStats.statusBytes(pid, "VmHWM").orElse(0L) : 0L;
                peakBytes = Math.max(peakTree.get(), hwm);
                memSource = "peak of sampled RSS of the server process tree (100 ms)";
            }
            Histogram h = w.latencyMicros();
            boolean ok = alive && w.failureCount() == 0 && w.successes() > 0;
            return new LoadResult(serverName, m.label(), n, ok ? "ok" : alive ? "failed" : "server-died", server.kex(),
                    round(w.successes() / w.seconds()), w.successes(), w.failureCount(), w.failures(),
                    h.getTotalCount() == 0 ? null : round(h.getValueAtPercentile(50) / 1000.0),
                    h.getTotalCount() == 0 ? null : round(h.getValueAtPercentile(95) / 1000.0),
                    h.getTotalCount() == 0 ? null : round(h.getValueAtPercentile(99) / 1000.0), cpuPerConn, jitPerConn, clientPerConn,
                    peakBytes == 0 ? null : round(peakBytes / 1048576.0), memSource, round(w.seconds()),
                    gen.loginsTotal(), serverCount.orElse(null), alive,
                    ok ? null : whyNotOk(alive, w, server.logText()), cpuSource, procPerConn, s.loginUser(),
                    load0[0], load1);
        }
    }

    /** A failed row says what the window saw and ends with the server's log, so a CI report alone explains it. */
    static String whyNotOk(boolean alive, LoadGenerator.Window w, String serverLog) {
        String what = alive ? String.format(Locale.ROOT, "%d logins completed in the %.1f s window, %d failed %s;"
                + " %d started in it finished after it; slowest login %d ms", w.successes(), w.seconds(),
                w.failureCount(), w.failures(), w.lateLogins(), w.slowestMs()) : "server process died during the run";
        return what + "\nserver log (tail):\n" + tail(serverLog);
    }

    static String tail(String s) {
        return s.length() <= 2000 ? s : s.substring(s.length() - 2000);
    }

    static String bar(double done, int total) {
        int w = 20;
        int f = (int) Math.round(done / total * w);
        return "[" + "#".repeat(Math.max(0, Math.min(w, f))) + ".".repeat(Math.max(0, w - f)) + "]";
    }

    static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    /** True when every measured row is "ok" (n/a and unsupported rows don't count against). */
    public static boolean allOk(List<LoadResult> rs) {
        return rs.stream().allMatch(r -> r.status().equals("ok") || r.status().equals("n/a")
                || r.status().equals("unsupported"));
    }

    /** pqssh / openssh logins per second for Ed25519 at each N (the issue's >= 5x target). */
    public static Map<Integer, Double> speedups(List<LoadResult> rs) {
        Map<Integer, Double> m = new LinkedHashMap<>();
        for (LoadResult p : rs) {
            if (!p.server().equals("pqssh") || !p.method().equals(LoadMethod.ED25519.label()) || p.connPerS() == null) {
                continue;
            }
            rs.stream().filter(o -> o.server().equals("openssh") && o.method().equals(p.method())
                    && o.workers() == p.workers() && o.connPerS() != null && o.connPerS() > 0).findFirst()
                    .ifPresent(o -> m.put(p.workers(), round(p.connPerS() / o.connPerS())));
        }
        return m;
    }

    public static void write(Path dir, List<LoadResult> rs) throws IOException {
        Files.createDirectories(dir);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("load.json").toFile(), rs);
        StringBuilder csv = new StringBuilder("server,method,workers,status,kex,conn_per_s,successes,failures,p50_ms,"
                + "p95_ms,p99_ms,cpu_ms_per_conn,peak_mem_mb,client_logins_total,server_logins_total,"
                + "server_jit_ms_per_conn,client_cpu_ms_per_conn,cpu_source,proc_cpu_ms_per_conn,login_user,"
                + "loadavg_start,loadavg_end\n");
        for (LoadResult r : rs) {
            csv.append(String.join(",", r.server(), r.method(), Integer.toString(r.workers()), r.status(), r.kex(),
                    s(r.connPerS()), Long.toString(r.successes()), Long.toString(r.failures()), s(r.p50Ms()),
                    s(r.p95Ms()), s(r.p99Ms()), s(r.cpuMsPerConn()), s(r.peakMemMb()),
                    Long.toString(r.clientLoginsTotal()), r.serverLoginsTotal() == null ? "" : r.serverLoginsTotal()
                            .toString(), s(r.serverJitMsPerConn()), s(r.clientCpuMsPerConn()),
                    r.cpuSource() == null ? "" : r.cpuSource(), s(r.procCpuMsPerConn()),
                    r.loginUser() == null ? "" : r.loginUser(), s(r.loadavgStart()), s(r.loadavgEnd())))
                    .append('\n');
        }
        Files.writeString(dir.resolve("load.csv"), csv);
        Files.writeString(dir.resolve("load.md"), markdown(rs));
        plot(dir.resolve("load.png"), rs);
    }

    private static String s(Double d) {
        return d == null ? "" : String.format(Locale.ROOT, "%.3f", d);
    }

    private static String md(Double d) {
        return d == null ? "n/a" : String.format(Locale.ROOT, "%.2f", d);
    }

    public static String markdown(List<LoadResult> rs) {
        StringBuilder b = new StringBuilder("# Load (pqssh lab load)\n\n");
        b.append("Loopback, each worker loops connect → auth → `true` → close; server and load generator share the"
                + " machine's ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs (the paper pins"
                + " sshd to 2 dedicated cores and runs clients elsewhere). Published: KEMUAuth paper Appendix C"
                + " (mlkem768x25519-sha256, ssh-mldsa-65 host key).\n\n");
        b.append("| server | method | N | status | conn/s | failures | p50 ms | p95 ms | p99 ms | CPU ms/conn |"
                + " /proc CPU ms/conn | of it JIT | client CPU ms/conn | peak MB | load avg | published conn/s |"
                + " published p95 | published CPU ms/conn | published peak MB |\n");
        b.append("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n");
        for (LoadResult r : rs) {
            double[] p = PUBLISHED.get(r.method() + "|" + r.workers());
            b.append("| ").append(r.server()).append(" | ").append(r.method()).append(" | ").append(r.workers())
                    .append(" | ").append(r.status()).append(" | ").append(md(r.connPerS())).append(" | ")
                    .append(r.connPerS() == null ? "n/a" : r.failures() + (r.failures() > 0 ? " " + r.failuresByCause()
                            : "")).append(" | ").append(md(r.p50Ms())).append(" | ").append(md(r.p95Ms())).append(" | ")
                    .append(md(r.p99Ms())).append(" | ").append(md(r.cpuMsPerConn())).append(" | ")
                    .append(md(r.procCpuMsPerConn())).append(" | ")
                    .append(md(r.serverJitMsPerConn())).append(" | ").append(md(r.clientCpuMsPerConn()))
                    .append(" | ").append(md(r.peakMemMb())).append(" | ")
                    .append(r.loadavgStart() == null ? "n/a" : String.format(Locale.ROOT, "%.1f→%.1f",
                            r.loadavgStart(), nz(r.loadavgEnd()))).append(" | ");
            if (p == null) {
                b.append("— | — | — | — |\n");
            } else {
                b.append(String.format(Locale.ROOT, "%.2f | %.0f | %.2f | %.1f |%n", p[0], p[2], p[1], p[3]));
            }
        }
        Map<Integer, Double> sp = speedups(rs);
        if (!sp.isEmpty()) {
            b.append("\npqssh / OpenSSH logins per second (Ed25519, same keys and KEX; target ≥ 5×): ");
            sp.forEach((n, v) -> b.append(String.format(Locale.ROOT, "N=%d %.2f× (%s)  ", n, v, v >= 5 ? "met"
                    : "missed")));
            b.append('\n');
        }
        b.append("\nMemory: ").append(rs.stream().map(LoadResult::memSource).filter(x -> x != null).findFirst()
                .orElse("not measured")).append(". CPU: ").append(rs.stream().map(LoadResult::cpuSource)
                        .filter(x -> x != null).findFirst().map(x -> x.equals("proc") ? "utime+stime+cutime+cstime of"
                                + " the server process from /proc/PID/stat (only the children it waited for)"
                                : "usage_usec of the server's own cgroup v2 (every process it created)")
                        .orElse("not measured")).append(" over the measured window, divided by the successful logins;"
                        + " \"/proc CPU\": utime+stime+cutime+cstime of the server's main process (only what it waited"
                        + " for: sshd's monitor may leave a non-root login's user-side process to init); \"of it JIT\": the"
                        + " pqssh server JVM's C1/C2 compiler threads (/proc/PID/task); client CPU: the lab's own JVM,"
                        + " which shares the CPUs with the server; load avg: 1-minute load average at the window's"
                        + " start and end. Logins as ").append(rs.stream().map(LoadResult::loginUser)
                        .filter(x -> x != null).distinct().reduce((a, c) -> a + ", " + c).orElse("?"))
                .append(".\n");
        return b.toString();
    }

    static void plot(Path png, List<LoadResult> rs) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYSeriesCollection data = new XYSeriesCollection();
        Map<String, XYSeries> series = new LinkedHashMap<>();
        for (LoadResult r : rs) {
            if (r.connPerS() == null) {
                continue;
            }
            series.computeIfAbsent(r.server() + " " + r.method(), XYSeries::new).add(r.workers(), r.connPerS());
        }
        series.values().forEach(data::addSeries);
        JFreeChart chart = ChartFactory.createXYLineChart("Successful logins per second", "workers (N)", "conn/s",
                data, PlotOrientation.VERTICAL, true, false, false);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 800, 500);
    }
}
