package io.pqssh.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;

import io.pqssh.inventory.report.CsvReport;
import io.pqssh.inventory.report.FailOn;
import io.pqssh.inventory.report.HtmlReport;
import io.pqssh.inventory.report.JsonReport;
import io.pqssh.inventory.report.SarifReport;
import io.pqssh.inventory.report.TableReport;
import io.pqssh.inventory.scan.ScanResult;
import io.pqssh.inventory.scan.Scanner;
import io.pqssh.inventory.scan.Target;
import io.pqssh.inventory.scan.Targets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pqssh scan}: which servers still negotiate a classical key exchange. */
@Command(name = "scan", aliases = "inventory", mixinStandardHelpOptions = true,
        description = {"Reads each target's SSH banner and KEXINIT (no login) and classifies it: post-quantum key",
                "exchange offered, what OpenSSH 10 and pqssh would negotiate, PQ host keys, strict KEX, weak algorithms.",
                "Exit: 0 ok, 1 a --fail-on condition matched, 2 bad arguments, 255 other errors."})
public final class ScanCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "TARGET", description = "host, host:port, [v6]:port, CIDR (a.b.c.d/n)")
    List<String> targets = new ArrayList<>();

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "targets file, one per line, # comments")
    List<Path> files = new ArrayList<>();

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

    @Option(names = "--zgrab2", paramLabel = "FILE",
            description = "classify ZGrab2 ssh module output (JSON lines) instead of probing")
    Path zgrab2;

    @Option(names = "--force-large", description = "allow more than 2^20 targets")
    boolean forceLarge;

    @Mixin
    ReportOptions reports = new ReportOptions();

    @Option(names = "--fail-on", split = ",", paramLabel = "COND",
            description = "exit 1 if any: classical-kex, classical-keys (no PQ host key), weak, unreachable")
    List<String> failOn = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try {
            return run();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private Integer run() throws Exception {
        List<FailOn> conditions = failOn.stream().map(FailOn::parse).toList();
        if (zgrab2 != null) {
            if (!targets.isEmpty() || !files.isEmpty()) {
                throw new IllegalArgumentException("--zgrab2 reads results; do not give targets too");
            }
            List<ScanResult> results = io.pqssh.inventory.scan.Zgrab2Reader.read(zgrab2, port);
            writeReports(results);
            return exit(conditions, results);
        }
        List<String> specs = new ArrayList<>(targets);
        for (Path f : files) {
            specs.addAll(Targets.readFile(f));
        }
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("no targets (give TARGET... or -f FILE)");
        }
        List<Target> list = Targets.parse(specs, port, forceLarge);
        Scanner.Options o = new Scanner.Options();
        o.concurrency = concurrency;
        o.ratePerSecond = rate;
        o.retries = retries;
        o.connectTimeout = seconds(connectTimeout, "--connect-timeout");
        o.readTimeout = seconds(readTimeout, "--read-timeout");
        o.hostKeys = hostKeys;
        if (hostKeys) {
            // the collector rejects every host key on purpose; MINA would log each rejection as a warning
            for (String pkg : List.of("org.apache.sshd.client.session", "org.apache.sshd.common.session")) {
                System.setProperty("org.slf4j.simpleLogger.log." + pkg,
                        System.getProperty("org.slf4j.simpleLogger.log." + pkg, "error"));
            }
        }
        Scanner scanner = new Scanner(o);
        boolean tty = System.console() != null;
        IntConsumer progress = tty ? new Progress(list.size(), System.err) : null;
        List<ScanResult> results = scanner.scan(list, progress);
        if (tty) {
            System.err.print("\r\033[K");
        }
        writeReports(results);
        return exit(conditions, results);
    }

    private static int exit(List<FailOn> conditions, List<ScanResult> results) {
        List<String> hit = FailOn.check(conditions, results);
        for (String h : hit) {
            System.err.println("pqssh scan: --fail-on " + h);
        }
        return hit.isEmpty() ? 0 : FailOn.EXIT_FAIL_ON;
    }

    private void writeReports(List<ScanResult> results) throws IOException {
        if (reports.printTable()) {
            System.out.print(TableReport.scan(results));
        }
        reports.write(() -> JsonReport.scan(results), () -> CsvReport.scan(results), () -> SarifReport.scan(results),
                () -> HtmlReport.scan(results));
        System.out.flush();
    }

    static Duration seconds(double s, String option) {
        if (!(s > 0) || s > 3600) {
            throw new IllegalArgumentException(option + " must be between 0 and 3600 seconds, got " + s);
        }
        return Duration.ofMillis((long) (s * 1000));
    }

    /** A one-line progress bar on stderr, only when a terminal is attached. */
    static final class Progress implements IntConsumer {
        private final int total;
        private final PrintStream err;
        private long last;

        Progress(int total, PrintStream err) {
            this.total = total;
            this.err = err;
        }

        @Override
        public synchronized void accept(int done) {
            long now = System.nanoTime();
            if (done != total && now - last < 100_000_000L) {
                return;
            }
            last = now;
            int width = 40;
            int filled = total == 0 ? width : (int) ((long) width * done / total);
            err.print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/" + total);
            err.flush();
        }
    }
}
