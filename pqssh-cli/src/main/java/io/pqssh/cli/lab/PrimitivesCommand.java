package io.pqssh.cli.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.lab.primitives.PrimitiveCase;
import io.pqssh.lab.primitives.PrimitiveResult;
import io.pqssh.lab.primitives.PrimitivesLab;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pqssh lab primitives}: JMH microbenchmarks of every key type and the server's online cost. */
@Command(name = "primitives", mixinStandardHelpOptions = true,
        description = {"Sizes, keygen, sign/verify, encaps/decaps and the server's online cost per credential",
                "(Tables I and II of the KEMUAuth paper), Bouncy Castle and the JDK's provider, under JMH."})
public final class PrimitivesCommand implements Callable<Integer> {
    @Option(names = "--out", description = "Write primitives.json, primitives.csv and primitives.md here.")
    Path out;

    @Option(names = "--quick", description = "Short iterations (seconds per case instead of ~8 s).")
    boolean quick;

    @Option(names = "--algorithms", split = ",", description = "Subset, e.g. ML-KEM-768,ML-DSA-65 (default: all).")
    List<String> algorithms = new ArrayList<>();

    @Option(names = "--operations", split = ",",
            description = "Subset of keygen,sign,verify,encaps,decaps,online-server-cost (default: all).")
    List<String> operations = new ArrayList<>();

    @Option(names = "--forks", description = "JMH forks per case (default 1; 0 runs in this JVM).")
    int forks = 1;

    @Option(names = "--iterations", description = "Measurement iterations (default 5, --quick 2).")
    Integer iterations;

    @Option(names = "--iteration-ms", description = "Milliseconds per iteration (default 1000, --quick 250).")
    Integer iterationMs;

    @Option(names = "--require-target", description = "Exit 1 when KEM online cost > 0.41 x ML-DSA-65 verify.")
    boolean requireTarget;

    @Override
    public Integer call() throws Exception {
        List<String> algs = algorithms.stream().map(PrimitiveCase::canonicalAlgorithm).toList();
        List<String> allowedOps = List.of("keygen", "sign", "verify", "encaps", "decaps", PrimitiveCase.ONLINE);
        for (String op : operations) {
            if (!allowedOps.contains(op)) {
                throw new IllegalArgumentException("unknown operation '" + op + "' (known: "
                        + String.join(", ", allowedOps) + ")");
            }
        }
        if (forks < 0 || (iterations != null && iterations < 1) || (iterationMs != null && iterationMs < 10)) {
            throw new IllegalArgumentException("--forks >= 0, --iterations >= 1, --iteration-ms >= 10");
        }
        PrimitivesLab.Settings base = quick ? PrimitivesLab.Settings.quick() : PrimitivesLab.Settings.standard();
        PrimitivesLab.Settings s = new PrimitivesLab.Settings(algs, operations, forks, base.warmupIterations(),
                iterationMs != null ? iterationMs : base.warmupMillis(),
                iterations != null ? iterations : base.iterations(),
                iterationMs != null ? iterationMs : base.iterationMillis());
        List<PrimitiveResult> results = PrimitivesLab.run(s, System.err);
        System.out.print(PrimitivesLab.markdown(results));
        if (out != null) {
            PrimitivesLab.write(out, results);
            System.err.println("wrote " + out.resolve("primitives.json") + ", primitives.csv, primitives.md");
        }
        var check = PrimitivesLab.targetCheck(results);
        check.ifPresent(t -> System.err.println(t.describe()));
        return requireTarget && check.isPresent() && !check.get().met() ? 1 : 0;
    }
}
