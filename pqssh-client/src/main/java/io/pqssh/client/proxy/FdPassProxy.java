package io.pqssh.client.proxy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Map;

import io.pqssh.client.mux.UnixSocket;

/**
 * {@code ProxyUseFdpass yes}, as ssh's {@code ssh_proxy_fdpass_connect}: the ProxyCommand runs with both its stdin and
 * stdout on one end of a socketpair, connects somewhere and passes the connected socket back over it (SCM_RIGHTS,
 * sendmsg); pqssh receives it, waits for the command to exit, and speaks SSH on that socket itself. The command is
 * spawned with {@code posix_spawnp} (a JVM cannot fork) so that it gets the socketpair end as fds 0 and 1, stderr
 * inherited and nothing else ({@code closefrom(3)}).
 */
public final class FdPassProxy {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final java.lang.foreign.AddressLayout ADDR = ValueLayout.ADDRESS;
    private static final MethodHandle FA_INIT = fn("posix_spawn_file_actions_init", FunctionDescriptor.of(INT, ADDR));
    private static final MethodHandle FA_DESTROY = fn("posix_spawn_file_actions_destroy",
            FunctionDescriptor.of(INT, ADDR));
    private static final MethodHandle FA_DUP2 = fn("posix_spawn_file_actions_adddup2",
            FunctionDescriptor.of(INT, ADDR, INT, INT));
    private static final MethodHandle FA_CLOSEFROM = fn("posix_spawn_file_actions_addclosefrom_np",
            FunctionDescriptor.of(INT, ADDR, INT));
    private static final MethodHandle SPAWNP = fn("posix_spawnp",
            FunctionDescriptor.of(INT, ADDR, ADDR, ADDR, ADDR, ADDR, ADDR));
    private static final MethodHandle WAITPID = fn("waitpid", FunctionDescriptor.of(INT, INT, ADDR, INT));

    private FdPassProxy() {
    }

    private static final String NO_CONNECTION = "proxy dialer did not pass back a connection";

    /** The command passed no descriptor back (it exited, or sent data without one): ssh's fatal error. */
    static final class NoConnectionException extends IOException {
        private static final long serialVersionUID = 1L;

        NoConnectionException(IOException cause) {
            super(NO_CONNECTION, cause);
        }
    }

    /**
     * ssh's lines for a connect failure that was {@link NoConnectionException} (MINA's connect future rewraps it, so
     * it is found by its words): mm_receive_fd's complaint when the command closed its end, then the fatal one.
     */
    public static java.util.Optional<java.util.List<String>> failureLines(Throwable failure) {
        boolean found = false;
        boolean closed = false;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            found |= m.contains(NO_CONNECTION);
            closed |= m.contains(UnixSocket.CLOSED_BEFORE_FD);
        }
        if (!found) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(closed ? java.util.List.of("mm_receive_fd: recvmsg: expected received 1 got 0",
                NO_CONNECTION) : java.util.List.of(NO_CONNECTION));
    }

    private static MethodHandle fn(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }

    /** A {@link ProxyTransport.Opener} for {@code ProxyUseFdpass yes}. */
    public static ProxyTransport.Opener opener(ProxyCommand command) {
        return () -> new PassedSocket(dial(command)).streams();
    }

    /** Runs the command and returns the descriptor it passed back; ssh's fatal line when there is none. */
    static int dial(ProxyCommand command) throws IOException {
        UnixSocket[] sp = UnixSocket.pair();
        int pid;
        try {
            pid = spawn(command.argv(), System.getenv(), sp[1].fd());
        } finally {
            sp[1].close();
        }
        int fd;
        try {
            fd = sp[0].receiveFd();
        } catch (IOException e) {
            throw new NoConnectionException(e);
        } finally {
            sp[0].close();
            waitFor(pid);
        }
        return fd;
    }

    private static int spawn(List<String> argv, Map<String, String> env, int stdio) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fa = a.allocate(256, 16); // posix_spawn_file_actions_t is 80 bytes in glibc
            check("posix_spawn_file_actions_init", (int) FA_INIT.invokeExact(fa));
            try {
                check("posix_spawn_file_actions_adddup2", (int) FA_DUP2.invokeExact(fa, stdio, 0));
                check("posix_spawn_file_actions_adddup2", (int) FA_DUP2.invokeExact(fa, stdio, 1));
                check("posix_spawn_file_actions_addclosefrom_np", (int) FA_CLOSEFROM.invokeExact(fa, 3));
                MemorySegment pid = a.allocate(INT);
                MemorySegment args = strings(a, argv);
                MemorySegment envp = strings(a, env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                        .toList());
                check("posix_spawnp " + argv.get(0), (int) SPAWNP.invokeExact(pid, a.allocateFrom(argv.get(0)), fa,
                        MemorySegment.NULL, args, envp));
                return pid.get(INT, 0);
            } finally {
                int ignored = (int) FA_DESTROY.invokeExact(fa);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("posix_spawnp: " + t, t);
        }
    }

    private static MemorySegment strings(Arena a, List<String> values) {
        MemorySegment arr = a.allocate(ADDR, values.size() + 1L);
        for (int i = 0; i < values.size(); i++) {
            arr.setAtIndex(ADDR, i, a.allocateFrom(values.get(i)));
        }
        arr.setAtIndex(ADDR, values.size(), MemorySegment.NULL);
        return arr;
    }

    private static void check(String what, int rc) throws IOException {
        if (rc != 0) {
            throw new UnixSocket.SysError(what, rc);
        }
    }

    /** Reaps the command, as ssh's waitpid after receiving the socket. */
    private static void waitFor(int pid) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment status = a.allocate(INT);
            int r;
            do {
                r = (int) WAITPID.invokeExact(pid, status, 0);
            } while (r < 0 && !Thread.currentThread().isInterrupted() && ProcessHandle.of(pid).isPresent());
        } catch (Throwable t) {
            // not reaped: a zombie until pqssh exits
        }
    }
}
