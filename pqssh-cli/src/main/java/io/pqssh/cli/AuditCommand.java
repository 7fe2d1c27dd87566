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

    private Integer run() throws java.io.IOException {
        List<FailOn> conditions = failOn.stream().map(FailOn::parse).toList();
        List<Path> p = paths.isEmpty() ? Auditor.defaultPaths() : paths;
        if (p.isEmpty()) {
            throw new IllegalArgumentException("nothing to audit: no PATH given and neither ~/.ssh nor /etc/ssh exists");
        }
        for (Path x : p) {
            if (!java.nio.file.Files.exists(x)) {
                throw new IllegalArgumentException("no such file or directory: " + x);
            }
        }
        List<Finding> findings = Auditor.audit(p);
        if (reports.printTable()) {
            System.out.print(TableReport.audit(findings));
        }
        reports.write(() -> JsonReport.audit(findings), () -> CsvReport.audit(findings), () -> SarifReport.audit(findings),
                () -> HtmlReport.audit(findings));
        System.out.flush();
        List<String> hit = FailOn.checkAudit(conditions, findings);
        for (String h : hit) {
            System.err.println("pqssh audit: --fail-on " + h);
        }
        return hit.isEmpty() ? 0 : FailOn.EXIT_FAIL_ON;
    }
}
