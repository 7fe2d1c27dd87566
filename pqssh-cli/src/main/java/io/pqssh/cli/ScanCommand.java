package io.pqssh.cli;

import io.pqssh.client.ssh.Progress;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

import io.pqssh.inventory.report.FailOn;
import io.pqssh.inventory.report.ScanCounters;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Scanner;
import io.pqssh.inventory.scan.Target;
import io.pqssh.inventory.scan.Targets;
import io.pqssh.inventory.scan.Zgrab2Reader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pqssh scan}: which servers still negotiate a classical key exchange. */
@Command(name = "scan", aliases = "inventory", mixinStandardHelpOptions = true,
        description = {"Reads each target's SSH banner and KEXINIT (no login) and classifies it: post-quantum key",
                "exchange offered, what OpenSSH 10 and pqssh would negotiate, PQ host keys, strict KEX, weak algorithms.",
                "Results stream to the reports as they arrive (memory does not grow with the number of targets).",
                "Exit: 0 ok, 1 a --fail-on condition matched, 2 usage or input error, 3 internal error."})
public final class ScanCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "TARGET", description = "host, host:port, [v6]:port, CIDR (a.b.c.d/n)")
    List<String> targets = new ArrayList<>();

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "targets file, one per line, # comments")
    List<java.nio.file.Path> files = new ArrayList<>();

    @Option(names = {"-p", "--port"}, defaultValue = "22", description = "default port (${DEFAULT-VALUE})")
    int port;

    @Option(names = "--concurrency", defaultValue = "64", description = "parallel probes (${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--rate", defaultValue = "200", description = "connections per second, 0 = unlimited (${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--connect-timeout", defaultValue = "5", description = "seconds (${DEFAULT-VALUE})")
    double connectTimeout;

    @Option(names = "--read-timeout", defaultValue = "10",
            description = "seconds for banner + KEXINIT after connecting (${DEFAULT-VALUE})")
    double readTimeout;

    @Option(names = "--retries", defaultValue = "1", description = "retries after a timeout (${DEFAULT-VALUE})")
    int retries;

    @Option(names = "--hostkeys", description = "complete one key exchange per host key algorithm to collect keys")
    boolean hostKeys;

    @Option(names = "--auth-probe", paramLabel = "USER",
            description = "one more connection per SSH target: a 'none' login as USER (no credentials) to read the"
                    + " user authentication methods and server-sig-algs")
    String authProbe;

    @Option(names = "--zgrab2", paramLabel = "FILE",
            description = "classify ZGrab2 output (JSON lines, gzip or not; - for stdin) instead of probing")
    String zgrab2;

    @Option(names = "--force-large", description = "allow more than 2^20 targets")
    boolean forceLarge;

    @Option(names = "--progress", defaultValue = "auto", paramLabel = "WHEN",
            description = "progress line on stderr: auto (when a terminal is attached), always, never")
    String progress;

    @Option(names = "--policy", paramLabel = "NAME|FILE",
            description = "check servers against a policy (built in: pq-baseline); implies --fail-on policy")
    String policy;

    @Option(names = "--make-policy", paramLabel = "FILE",
            description = "write a policy FILE that the one TARGET complies with exactly")
    java.nio.file.Path makePolicy;

    @Mixin
    ReportOptions reports = new ReportOptions();

    @Option(names = "--fail-on", split = ",", paramLabel = "COND",
            description = "exit 1 if any: classical-kex, classical-keys (no PQ host key), weak, unreachable")
    List<String> failOn = new ArrayList<>();

    @Spec
    CommandSpec spec;

    private io.pqssh.inventory.scan.Policy checkedPolicy;

    private ScanResult checked(ScanResult r) {
        return checkedPolicy == null || r.status() != ScanResult.Status.SSH ? r : r.withPolicy(checkedPolicy.check(r));
    }

    /** Bad input records printed one by one; later ones are only counted. */
    static final int PRINTED_BAD_RECORDS = 20;

    @Override
    public Integer call() {
        PrintStream err = System.err;
        try {
            return run();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (ParameterException e) {
            throw e;
        } catch (NoSuchFileException e) {
            err.println("pqssh scan: no such file: " + e.getFile());
            return FailOn.EXIT_USAGE;
        } catch (io.pqssh.inventory.store.Store.StoreException e) {
            err.println("pqssh scan: " + e.getMessage());
            return FailOn.EXIT_USAGE;
        } catch (Zgrab2Reader.InputException | InputError e) {
            err.println("pqssh scan: " + e.getMessage());
            return FailOn.EXIT_USAGE;
        } catch (ReportOptions.OutputFailure e) {
            err.println("pqssh scan: " + e.getMessage());
            return FailOn.EXIT_INTERNAL;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("pqssh scan: interrupted");
            return FailOn.EXIT_INTERNAL;
        } catch (IOException e) {
            // reading the input (a targets file, the ZGrab2 file or stdin) failed
            err.println("pqssh scan: cannot read input: " + Errors.describe(e));
            return FailOn.EXIT_USAGE;
        } catch (RuntimeException | Error e) {
            err.println("pqssh scan: internal error: " + Errors.describe(e));
            return FailOn.EXIT_INTERNAL;
        }
    }

    /** The input is unusable as a whole (e.g. not one record of it could be read). */
    static final class InputError extends IOException {
        private static final long serialVersionUID = 1L;

        InputError(String message) {
            super(message);
        }
    }

    private Integer run() throws IOException, InterruptedException, io.pqssh.inventory.store.Store.StoreException {
        List<FailOn> conditions = new ArrayList<>(failOn.stream().map(FailOn::parse).toList());
        io.pqssh.inventory.scan.Policy checked = null;
        if (policy != null) {
            try {
                checked = io.pqssh.inventory.scan.Policy.load(policy);
            } catch (NoSuchFileException e) {
                throw new InputError("no such policy file: " + e.getFile() + " (built in: pq-baseline)");
            }
            if (!conditions.contains(FailOn.POLICY)) {
                conditions.add(FailOn.POLICY);
            }
        } else if (conditions.contains(FailOn.POLICY)) {
            throw new IllegalArgumentException("--fail-on policy needs --policy");
        }
        this.checkedPolicy = checked;
        boolean showProgress = switch (progress.toLowerCase(Locale.ROOT)) {
            case "auto" -> System.console() != null;
            case "always" -> true;
            case "never" -> false;
            default -> throw new IllegalArgumentException("--progress must be auto, always or never, got " + progress);
        };
        if (zgrab2 != null) {
            if (!targets.isEmpty() || !files.isEmpty()) {
                throw new IllegalArgumentException("--zgrab2 reads results; do not give targets too");
            }
            if (makePolicy != null) {
                throw new IllegalArgumentException("--make-policy takes one live TARGET, not --zgrab2");
            }
            if (authProbe != null) {
                throw new IllegalArgumentException("--auth-probe connects to live targets, not --zgrab2 records");
            }
            return zgrab2(conditions, showProgress);
        }
        List<String> specs = new ArrayList<>(targets);
        for (java.nio.file.Path f : files) {
            specs.addAll(Targets.readFile(f));
        }
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("no targets (give TARGET... or -f FILE)");
        }
        List<Target> list = Targets.parse(specs, port, forceLarge);
        if (makePolicy != null && list.size() != 1) {
            throw new IllegalArgumentException("--make-policy needs exactly one target, got " + list.size());
        }
        Scanner.Options o = new Scanner.Options();
        o.concurrency = concurrency;
        o.ratePerSecond = rate;
        o.retries = retries;
        o.connectTimeout = seconds(connectTimeout, "--connect-timeout");
        o.readTimeout = seconds(readTimeout, "--read-timeout");
        o.hostKeys = hostKeys;
        o.authProbeUser = authProbe;
        if (hostKeys || authProbe != null) {
            // the collector rejects every host key on purpose; MINA would log each rejection as a warning
            for (String pkg : List.of("org.apache.sshd.client.session", "org.apache.sshd.common.session")) {
                System.setProperty("org.slf4j.simpleLogger.log." + pkg,
                        System.getProperty("org.slf4j.simpleLogger.log." + pkg, "error"));
            }
        }
        Scanner scanner = new Scanner(o);
        ScanCounters counters = new ScanCounters();
        try (ReportOptions.Streaming out = reports.openScan(specs.size() <= 8 ? String.join(" ", specs)
                : String.join(" ", specs.subList(0, 8)) + " ... (" + specs.size() + " target specs)");
                Progress p = showProgress ? new Progress(counters, list.size(), System.err) : null) {
            List<ScanResult> one = new ArrayList<>(1);
            scanner.scan(list, null, raw -> {
                ScanResult r = checked(raw);
                counters.add(r);
                out.accept(r);
                if (makePolicy != null) {
                    one.add(r);
                }
            });
            if (makePolicy != null) {
                java.nio.file.Files.writeString(makePolicy, io.pqssh.inventory.scan.Policy.make(one.get(0)));
                System.err.println("pqssh scan: policy for " + one.get(0).target() + " written to " + makePolicy);
            }
            if (p != null) {
                p.close();
            }
            out.finish(counters);
        }
        return exit(conditions, counters);
    }

    private int zgrab2(List<FailOn> conditions, boolean showProgress)
            throws IOException, io.pqssh.inventory.store.Store.StoreException {
        ScanCounters counters = new ScanCounters();
        AtomicLong printed = new AtomicLong();
        String source = zgrab2.equals("-") ? "<stdin>" : zgrab2;
        try (InputStream in = Zgrab2Reader.open(zgrab2);
                ReportOptions.Streaming out = reports.openScan("zgrab2 " + source);
                Progress p = showProgress ? new Progress(counters, -1, System.err) : null) {
            Zgrab2Reader.read(in, source, port, new Zgrab2Reader.Handler() {
                @Override
                public void result(ScanResult raw) {
                    ScanResult r = checked(raw);
                    counters.add(r);
                    out.accept(r);
                }

                @Override
                public void badRecord(long line, String error) {
                    ScanCounters.BadRecord b = new ScanCounters.BadRecord(source, line, error);
                    counters.badRecord(b);
                    if (printed.incrementAndGet() <= PRINTED_BAD_RECORDS) {
                        System.err.println("pqssh scan: skipped bad record " + b);
                    }
                }
            });
            if (p != null) {
                p.close();
            }
            if (counters.total() == 0 && counters.badRecords() > 0) {
                throw new InputError(source + ": no ZGrab2 record could be read (" + counters.badRecords()
                        + " bad record(s); is this ZGrab2 JSON output?)");
            }
            out.finish(counters);
        }
        if (counters.badRecords() > 0) {
            System.err.println("pqssh scan: " + counters.badRecords() + " bad record(s) skipped"
                    + (counters.badRecords() > PRINTED_BAD_RECORDS ? " (first " + PRINTED_BAD_RECORDS
                            + " listed above; first " + ScanCounters.KEPT_BAD_RECORDS + " in the JSON report)" : ""));
        }
        return exit(conditions, counters);
    }

    private static int exit(List<FailOn> conditions, ScanCounters counters) {
        List<String> hit = FailOn.check(conditions, counters);
        for (String h : hit) {
            System.err.println("pqssh scan: --fail-on " + h);
        }
        return hit.isEmpty() ? FailOn.EXIT_OK : FailOn.EXIT_FAIL_ON;
    }

    static Duration seconds(double s, String option) {
        if (!(s > 0) || s > 3600) {
            throw new IllegalArgumentException(option + " must be between 0 and 3600 seconds, got " + s);
        }
        return Duration.ofMillis((long) (s * 1000));
    }

    /**
     * A progress line on stderr, redrawn every 250 ms by its own thread from the counters: targets done (of the
     * total when known), records per second, and the counts per category.
     */
    static final class Progress implements AutoCloseable {
        private final ScanCounters counters;
        private final long total;
        private final PrintStream err;
        private final Thread thread;
        private final long start = System.nanoTime();
        private volatile boolean stopped;

        Progress(ScanCounters counters, long total, PrintStream err) {
            this.counters = counters;
            this.total = total;
            this.err = err;
            this.thread = new Thread(this::loop, "pqssh-scan-progress");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            while (!stopped) {
                draw();
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        String line() {
            long n = counters.total();
            double secs = Math.max(1e-3, (System.nanoTime() - start) / 1e9);
            StringBuilder b = new StringBuilder("\r");
            b.append(n).append(total >= 0 ? "/" + total : "").append(" records, ")
                    .append(String.format(Locale.ROOT, "%.0f records/s", n / secs));
            for (String c : ScanResult.CATEGORIES) {
                long k = counters.category(c);
                if (k > 0) {
                    b.append(", ").append(k).append(' ').append(c);
                }
            }
            if (counters.badRecords() > 0) {
                b.append(", ").append(counters.badRecords()).append(" bad");
            }
            return b.append("\033[K").toString();
        }

        private synchronized void draw() {
            err.print(line());
            err.flush();
        }

        @Override
        public synchronized void close() {
            if (stopped) {
                return;
            }
            stopped = true;
            thread.interrupt();
            err.print(line());
            err.println();
            err.flush();
        }
    }
}
