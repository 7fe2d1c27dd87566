package io.pqssh.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import picocli.CommandLine.Option;

/** The report outputs shared by {@code pqssh scan} and {@code pqssh audit} (a picocli mixin). */
final class ReportOptions {
    @Option(names = "--json", paramLabel = "FILE", description = "JSON report (- for stdout)")
    String json;

    @Option(names = "--csv", paramLabel = "FILE", description = "CSV report (- for stdout)")
    String csv;

    @Option(names = "--sarif", paramLabel = "FILE", description = "SARIF 2.1.0 report (- for stdout)")
    String sarif;

    @Option(names = "--html", paramLabel = "FILE", description = "self-contained HTML report (- for stdout)")
    String html;

    @Option(names = {"-q", "--quiet"}, description = "no table on stdout")
    boolean quiet;

    /** The terminal table is printed unless asked not to or a report goes to stdout. */
    boolean printTable() {
        boolean stdoutTaken = "-".equals(json) || "-".equals(csv) || "-".equals(sarif) || "-".equals(html);
        return !quiet && !stdoutTaken;
    }

    /** Writes each requested report; the suppliers run only for the formats asked for. */
    void write(Supplier<String> jsonReport, Supplier<String> csvReport, Supplier<String> sarifReport,
            Supplier<String> htmlReport) throws IOException {
        write(json, jsonReport);
        write(csv, csvReport);
        write(sarif, sarifReport);
        write(html, htmlReport);
    }

    private static void write(String dest, Supplier<String> content) throws IOException {
        if (dest == null) {
            return;
        }
        String text = content.get();
        if (dest.equals("-")) {
            System.out.print(text);
        } else {
            Files.writeString(Path.of(dest), text, StandardCharsets.UTF_8);
        }
    }
}
