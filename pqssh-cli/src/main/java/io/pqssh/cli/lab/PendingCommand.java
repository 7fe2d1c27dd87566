package io.pqssh.cli.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.lab.pending.PendingLab;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pqssh lab pending}: server memory against the number of pending authentications. */
@Command(name = "pending", mixinStandardHelpOptions = true,
        description = {"Holds P connections after the KEM challenge (and, for the baseline, after PK_OK) against a",
                "pqssh server child JVM; fits heap-after-GC and RSS against the observed pending count;",
                "reports PendingChallenge.explicitStateBytes() beside the research implementation's 2,384 bytes."})
public final class PendingCommand implements Callable<Integer> {
    @Option(names = "--targets", split = ",", description = "Pending counts (default 0,16,32,64,128,256).")
    List<Integer> targets = new ArrayList<>(List.of(0, 16, 32, 64, 128, 256));

    @Option(names = "--methods", split = ",", description = "kem, mldsa65, ed25519 (default kem,mldsa65).")
    List<String> methods = new ArrayList<>(List.of("kem", "mldsa65"));

    @Option(names = "--parallel", description = "Connections opened at once (default 8).")
    int parallel = 8;

    @Mixin
    LabRunOptions run = new LabRunOptions();

    @Option(names = "--out", description = "Write pending.json, pending.csv and pending.md here.")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (targets.size() < 2 || targets.stream().anyMatch(t -> t < 0 || t > 8000)) {
            throw new IllegalArgumentException("--targets: at least two counts from 0 to 8000");
        }
        if (parallel < 1) {
            throw new IllegalArgumentException("--parallel >= 1");
        }
        Path wd = run.workDir("pending");
        PendingLab.Report r = PendingLab.run(new PendingLab.Settings(targets, methods, wd,
                run.timeout(), parallel), System.err);
        System.out.print(PendingLab.markdown(r));
        if (out != null) {
            PendingLab.write(out, r);
            System.err.println("wrote " + out.resolve("pending.json") + ", pending.csv, pending.md");
        }
        boolean returned = r.points().stream().allMatch(p -> p.pendingAfterRelease() == 0);
        return returned ? 0 : 1;
    }
}
