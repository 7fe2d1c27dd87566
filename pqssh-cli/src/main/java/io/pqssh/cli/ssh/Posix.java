package io.pqssh.cli.ssh;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** The few libc calls the client needs (FFM): isatty, setsid, raise. */
final class Posix {
    static final int SIGTSTP = 20;

    private static final Linker LINKER = Linker.nativeLinker();

    private Posix() {
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }

    static boolean isatty(int fd) {
        try {
            return (int) fn("isatty", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))
                    .invokeExact(fd) == 1;
        } catch (Throwable t) {
            return false;
        }
    }

    /** Leaves the controlling terminal's session (ssh -f's daemon()); -1 on failure. */
    static int setsid() {
        try {
            return (int) fn("setsid", FunctionDescriptor.of(ValueLayout.JAVA_INT)).invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    static void raise(int signal) {
        try {
            int ignored = (int) fn("raise", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT))
                    .invokeExact(signal);
        } catch (Throwable t) {
            // nothing to do: the escape just does not suspend
        }
    }
}
