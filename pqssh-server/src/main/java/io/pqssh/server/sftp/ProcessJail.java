package io.pqssh.server.sftp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The libc calls that confine this whole process as sshd confines its session child before internal-sftp serves:
 * {@code chroot(2)} into the ChrootDirectory, then the user's supplementary groups, gid and uid (real, effective and
 * saved), checked afterwards. glibc applies {@code setgroups}/{@code setresgid}/{@code setresuid} to every thread
 * of the process (its set*id broadcast), and the root directory is shared by all threads, so the JVM's threads are
 * confined too. Every handle is looked up when this class is made: after chroot no library file can be opened.
 */
final class ProcessJail {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(
            java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
    /** NGROUPS_MAX on Linux. */
    private static final int MAX_GROUPS = 65536;

    private final MethodHandle chroot;
    private final MethodHandle chdir;
    private final MethodHandle setgroups;
    private final MethodHandle setresgid;
    private final MethodHandle setresuid;
    private final MethodHandle getgrouplist;
    private final MethodHandle getresuid;
    private final MethodHandle getresgid;
    private final MethodHandle strerror;

    ProcessJail() {
        chroot = withErrno("chroot", FunctionDescriptor.of(INT, ValueLayout.ADDRESS));
        chdir = withErrno("chdir", FunctionDescriptor.of(INT, ValueLayout.ADDRESS));
        setgroups = withErrno("setgroups", FunctionDescriptor.of(INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        setresgid = withErrno("setresgid", FunctionDescriptor.of(INT, INT, INT, INT));
        setresuid = withErrno("setresuid", FunctionDescriptor.of(INT, INT, INT, INT));
        getresuid = plain("getresuid", FunctionDescriptor.of(INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                ValueLayout.ADDRESS));
        getresgid = plain("getresgid", FunctionDescriptor.of(INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                ValueLayout.ADDRESS));
        getgrouplist = plain("getgrouplist", FunctionDescriptor.of(INT, ValueLayout.ADDRESS, INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        strerror = plain("strerror", FunctionDescriptor.of(ValueLayout.ADDRESS, INT));
        // strerror's first call loads its message catalogue state; do it while the libraries can still be read
        message(2);
    }

    private static MethodHandle withErrno(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d,
                Linker.Option.captureCallState("errno"));
    }

    private static MethodHandle plain(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d);
    }

    /** {@code initgroups(3)}'s list for {@code user} with primary group {@code gid} (read before the chroot). */
    int[] groupsOf(String user, int gid) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment name = a.allocateFrom(user);
            MemorySegment count = a.allocate(INT);
            int capacity = 64;
            while (capacity <= MAX_GROUPS) {
                MemorySegment list = a.allocate(INT, capacity);
                count.set(INT, 0, capacity);
                int rc = (int) getgrouplist.invokeExact(name, gid, list, count);
                int n = count.get(INT, 0);
                if (rc >= 0) {
                    return list.asSlice(0, (long) n * Integer.BYTES).toArray(INT);
                }
                capacity = Math.max(capacity * 2, n);
            }
            throw new IOException("getgrouplist " + user + ": more than " + MAX_GROUPS + " groups");
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("getgrouplist " + user + ": " + t, t);
        }
    }

    /** chdir into {@code root}, chroot there, then chdir to the new {@code /} (sshd's safely_chroot). */
    void enter(String root) throws IOException {
        call(chdir, "chdir(\"" + root + "\")", root);
        call(chroot, "chroot(\"" + root + "\")", ".");
        call(chdir, "chdir(\"/\")", "/");
    }

    /**
     * Becomes {@code uid}:{@code gid} with {@code groups}, for good (sshd's permanently_set_uid): the groups and gid
     * first, while still allowed to, then the uid; then checks that every id is the new one and that uid 0 cannot
     * be taken back.
     */
    void becomeUser(int uid, int gid, int[] groups) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment list = a.allocate(INT, Math.max(1, groups.length));
            MemorySegment.copy(groups, 0, list, INT, 0, groups.length);
            MemorySegment state = a.allocate(CAPTURE);
            int rc = (int) setgroups.invokeExact(state, (long) groups.length, list);
            check(rc, state, "setgroups");
            state = a.allocate(CAPTURE);
            check((int) setresgid.invokeExact(state, gid, gid, gid), state, "setresgid " + gid);
            state = a.allocate(CAPTURE);
            check((int) setresuid.invokeExact(state, uid, uid, uid), state, "setresuid " + uid);
            int[] u = ids(a, getresuid);
            int[] g = ids(a, getresgid);
            if (u[0] != uid || u[1] != uid || u[2] != uid || g[0] != gid || g[1] != gid || g[2] != gid) {
                throw new IOException("the ids did not change: uid " + Arrays.toString(u) + " gid "
                        + Arrays.toString(g));
            }
            if (uid != 0) {
                state = a.allocate(CAPTURE);
                if ((int) setresuid.invokeExact(state, 0, 0, 0) == 0) {
                    throw new IOException("uid 0 could be taken back after the change to " + uid);
                }
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("changing to uid " + uid + ": " + t, t);
        }
    }

    /** The process's real, effective and saved uid. */
    int[] uids() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            return ids(a, getresuid);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("getresuid: " + t, t);
        }
    }

    private static int[] ids(Arena a, MethodHandle get) throws Throwable {
        MemorySegment r = a.allocate(INT);
        MemorySegment e = a.allocate(INT);
        MemorySegment s = a.allocate(INT);
        if ((int) get.invokeExact(r, e, s) != 0) {
            throw new IOException("getres*id failed");
        }
        return new int[] {r.get(INT, 0), e.get(INT, 0), s.get(INT, 0)};
    }

    private void call(MethodHandle h, String what, String path) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(CAPTURE);
            int rc = (int) h.invokeExact(state, a.allocateFrom(path));
            check(rc, state, what);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(what + ": " + t, t);
        }
    }

    private void check(int rc, MemorySegment state, String what) throws IOException {
        if (rc != 0) {
            throw new IOException(what + ": " + message((int) ERRNO.get(state, 0L)));
        }
    }

    private String message(int errno) {
        try {
            MemorySegment s = (MemorySegment) strerror.invokeExact(errno);
            return s.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }
}
