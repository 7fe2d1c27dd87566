package io.pqssh.client.proxy;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** kill(2) through FFM: Java's Process API sends only SIGTERM and SIGKILL, ssh hangs its proxy up with SIGHUP. */
final class Signals {
    static final int SIGHUP = 1;

    private static final MethodHandle KILL;

    static {
        Linker linker = Linker.nativeLinker();
        KILL = linker.downcallHandle(linker.defaultLookup().find("kill").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private Signals() {
    }

    /** False when the signal could not be sent (the caller falls back to {@link Process#destroy()}). */
    static boolean kill(long pid, int signal) {
        try {
            return (int) KILL.invokeExact(Math.toIntExact(pid), signal) == 0;
        } catch (Throwable t) {
            return false;
        }
    }
}
