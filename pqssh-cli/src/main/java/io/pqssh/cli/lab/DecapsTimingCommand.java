package io.pqssh.cli.lab;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.lab.sidechannel.DecapsTimingLab;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pqssh lab decaps-timing}: decapsulation time per ciphertext class and the spread between them. */
@Command(name = "decaps-timing", mixinStandardHelpOptions = true,
        description = {"Time of the client's challenge answer (KemAuthClient.respond) for the eight ciphertext",
                "classes (valid, one bit, ~1 %% bits, random, all-zero, all-0xFF, truncated, extended) and of raw",
                "ML-KEM decapsulation for the six same-length ones, under JMH; reports medians and the max spread."})
public final class DecapsTimingCommand implements Callable<Integer> {
    @Option(names = "--out", description = "Write decaps-timing.json and decaps-timing.md here.")
    Path out;

    @Option(names = "--quick", description = "A few seconds in this JVM instead of ~5 minutes in forked JVMs.")
    boolean quick;

    @Option(names = "--kem", description = "mlkem512, mlkem768 (default) or mlkem1024.")
    String kem = "mlkem768";

    @Option(names = "--forks", description = "JMH forks per case and round (default 1, --quick 0 = this JVM).")
    Integer forks;

    @Option(names = "--rounds", description = "Rounds over all cases, order rotated (default 3, --quick 1).")
    Integer rounds;

    @Override
    public Integer call() throws Exception {
        KemAlgorithm a = KemAlgorithm.require(kem);
        DecapsTimingLab.Settings s = quick ? DecapsTimingLab.Settings.quick(a) : DecapsTimingLab.Settings.standard(a);
        if (forks != null) {
            if (forks < 0) {
                throw new IllegalArgumentException("--forks must be >= 0");
            }
            s = s.withForks(forks);
        }
        if (rounds != null) {
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds must be >= 1");
            }
            s = s.withRounds(rounds);
        }
        DecapsTimingLab.Report r = DecapsTimingLab.run(s, System.err);
        System.out.print(DecapsTimingLab.markdown(r));
        if (out != null) {
            DecapsTimingLab.write(out, r);
            System.err.println("wrote " + out.resolve("decaps-timing.json") + ", decaps-timing.md");
        }
        return 0;
    }
}
