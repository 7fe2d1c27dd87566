package io.pqssh.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.inventory.audit.Auditor;
import io.pqssh.inventory.audit.Finding;
import io.pqssh.inventory.report.CsvReport;
import io.pqssh.inventory.report.FailOn;
import io.pqssh.inventory.report.HtmlReport;
import io.pqssh.inventory.report.JsonReport;
import io.pqssh.inventory.report.SarifReport;
import io.pqssh.inventory.report.TableReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pqssh audit}: which keys and configs still let classical logins and key exchange in. */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {"Reads authorized_keys, authorized_kem_keys, known_hosts, key files and sshd_config/ssh_config",
                "(Include, Match) and reports quantum-vulnerable keys, classical keys authorized beside a PQ",
                "credential, and configs that pin or strip post-quantum KexAlgorithms. Private keys are not decrypted.",
                "Exit: 0 ok, 1 a --fail-on condition matched, 2 usage or input error, 3 internal error."})
public final class AuditCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "PATH", description = "files or directories (default: ~/.ssh /etc/ssh)")
    List<Path> paths = new ArrayList<>();

    @Option(names = "--osquery", paramLabel = "FILE",
            description = "audit a fleet from osquery results (authorized_keys/ssh_configs rows; - for stdin)")
    String osquery;

    @Mixin
    ReportOptions reports = new ReportOptions();

    @Option(names = "--fail-on", split = ",", paramLabel = "COND",
            description = "exit 1 if any: classical-keys, classical-kex (config), weak")
    List<String> failOn = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        try {
            return run();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (ParameterException e) {
            throw e;
        } catch (io.pqssh.inventory.store.Store.StoreException e) {
            System.err.println("pqssh audit: " + e.getMessage());
            return FailOn.EXIT_USAGE;
        } catch (ReportOptions.OutputFailure e) {
            System.err.println("pqssh audit: " + e.getMessage());
            return FailOn.EXIT_INTERNAL;
        } catch (java.io.IOException e) {
            System.err.println("pqssh audit: cannot read input: " + Errors.describe(e));
            return FailOn.EXIT_USAGE;
        } catch (RuntimeException | Error e) {
            System.err.println("pqssh audit: internal error: " + Errors.describe(e));
            return FailOn.EXIT_INTERNAL;
        }
    }

    private Integer run() throws java.io.IOException, io.pqssh.inventory.store.Store.StoreException {
        List<FailOn> conditions = failOn.stream().map(FailOn::parse).toList();
        if (osquery != null) {
            if (!paths.isEmpty()) {
                throw new IllegalArgumentException("--osquery reads results; do not give paths too");
            }
            String source = osquery.equals("-") ? "<stdin>" : osquery;
            io.pqssh.inventory.audit.OsqueryIngest.Result r;
            try (java.io.InputStream in = io.pqssh.inventory.scan.Zgrab2Reader.open(osquery)) {
                r = io.pqssh.inventory.audit.OsqueryIngest.read(in, source, new Auditor.Options());
            } catch (java.nio.file.NoSuchFileException e) {
                System.err.println("pqssh audit: no such file: " + e.getFile());
                return FailOn.EXIT_USAGE;
            }
            for (String b : r.badRows().stream().limit(20).toList()) {
                System.err.println("pqssh audit: skipped " + b);
            }
            if (r.rows() == 0) {
                System.err.println("pqssh audit: " + source + ": no osquery authorized_keys or ssh_configs rows ("
                        + r.badRows().size() + " unusable)");
                return FailOn.EXIT_USAGE;
            }
            System.err.println("pqssh audit: " + r.rows() + " osquery rows from " + r.hosts().size() + " host(s)"
                    + (r.badRows().isEmpty() ? "" : ", " + r.badRows().size() + " unusable"));
            return report(conditions, r.findings(), "osquery " + source);
        }
        List<Path> p = paths.isEmpty() ? Auditor.defaultPaths() : paths;
        if (p.isEmpty()) {
            throw new IllegalArgumentException("nothing to audit: no PATH given and neither ~/.ssh nor /etc/ssh exists");
        }
        for (Path x : p) {
            if (!java.nio.file.Files.exists(x)) {
                throw new IllegalArgumentException("no such file or directory: " + x);
            }
        }
        return report(conditions, Auditor.audit(p), String.join(" ", p.stream().map(Path::toString).toList()));
    }

    private static String cbom(List<Finding> findings) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        try {
            io.pqssh.inventory.cbom.Cboms.audit(findings, o);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return o.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private int report(List<FailOn> conditions, List<Finding> findings, String source)
            throws java.io.IOException, io.pqssh.inventory.store.Store.StoreException {
        reports.storeAudit(findings, source);
        if (reports.printTable()) {
            System.out.print(TableReport.audit(findings));
        }
        reports.write(() -> JsonReport.audit(findings), () -> CsvReport.audit(findings), () -> SarifReport.audit(findings),
                () -> HtmlReport.audit(findings), () -> cbom(findings));
        System.out.flush();
        List<String> hit = FailOn.checkAudit(conditions, findings);
        for (String h : hit) {
            System.err.println("pqssh audit: --fail-on " + h);
        }
        return hit.isEmpty() ? 0 : FailOn.EXIT_FAIL_ON;
    }
}
