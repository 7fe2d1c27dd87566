package io.pqssh.server.sftp;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.List;

/**
 * What the jailed child will do, for SftpChrootTest: preload, chroot(2) into an empty directory, drop to a uid and
 * gid, then serve SFTP on stdin/stdout. Arguments: DIR UID GID [sftp-server flags...]. Root only.
 */
public final class SftpChrootProbe {
    private SftpChrootProbe() { }

    public static void main(String[] args) throws Throwable {
        String dir = args[0];
        int uid = Integer.parseInt(args[1]), gid = Integer.parseInt(args[2]);
        SftpServerOptions o = SftpServerOptions.parse(List.of(Arrays.copyOfRange(args, 3, args.length)), "jailed", "/");
        SftpFileServer.preloadClasses();
        Linker l = Linker.nativeLinker();
        var lookup = l.defaultLookup();
        MethodHandle chroot = l.downcallHandle(lookup.find("chroot").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MethodHandle chdir = l.downcallHandle(lookup.find("chdir").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MethodHandle setgroups = l.downcallHandle(lookup.find("setgroups").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        MethodHandle setgid = l.downcallHandle(lookup.find("setgid").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        MethodHandle setuid = l.downcallHandle(lookup.find("setuid").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (Arena a = Arena.ofConfined()) {
            check((int) chroot.invokeExact(a.allocateFrom(dir)), "chroot");
            check((int) chdir.invokeExact(a.allocateFrom("/")), "chdir");
        }
        // setgid/setuid through glibc apply to every thread of the JVM (glibc's setxid broadcast)
        check((int) setgroups.invokeExact(0L, MemorySegment.NULL), "setgroups");
        check((int) setgid.invokeExact(gid), "setgid");
        check((int) setuid.invokeExact(uid), "setuid");
        int rc = new SftpFileServer(o).serve(new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out));
        System.exit(rc);
    }

    private static void check(int r, String what) {
        if (r != 0) {
            System.err.println("SftpChrootProbe: " + what + " failed");
            System.exit(99);
        }
    }
}
