package io.pqssh.lab.primitives;

import java.util.concurrent.Callable;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The JMH benchmark behind {@code pqssh lab primitives}: one parameter names the {@link PrimitiveCase}. */
@State(Scope.Thread)
public class PrimitiveBenchmark {
    @Param({"ML-KEM-768/BC/encaps"})
    public String caseId;

    private Callable<Object> op;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        op = PrimitiveCase.parse(caseId).prepare();
    }

    @Benchmark
    public Object run() throws Exception {
        return op.call();
    }
}
