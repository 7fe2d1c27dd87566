package io.pqssh.lab.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Reads CPU time and memory of a process (tree) from {@code /proc} and cgroup v2. Linux only. */
public final class ProcStats {
    /** USER_HZ: the unit of utime/stime in /proc/PID/stat (100 on every Linux ABI the JDK runs on). */
    public static final int CLK_TCK = 100;

    private ProcStats() {
    }

    /**
     * utime + stime + cutime + cstime of {@code pid} in milliseconds: the process's own CPU time and that of the
     * children it has waited for (sshd's per-connection processes, the server's {@code /bin/sh -c true}).
     * Empty when the process is gone.
     */
    public static Optional<Long> cpuMillis(long pid) {
        try {
            String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the command name is in parentheses and may contain spaces: fields start after the last ')'
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            // f[0] is field 3 (state); utime is field 14
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            return Optional.of(ticks * 1000L / CLK_TCK);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * utime + stime in milliseconds of the threads of {@code pid} whose name starts with one of {@code prefixes}
     * (the JIT's "C1 CompilerThre"/"C2 CompilerThre"). A compiler thread the JVM has already retired is no longer
     * listed, so this is a lower bound. Empty when the process is gone.
     */
    public static Optional<Long> threadCpuMillis(long pid, List<String> prefixes) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        long ticks = 0;
        try (var ds = Files.newDirectoryStream(tasks)) {
            for (Path t : ds) {
                try {
                    String s = Files.readString(t.resolve("stat"));
                    String comm = s.substring(s.indexOf('(') + 1, s.lastIndexOf(')'));
                    if (prefixes.stream().noneMatch(comm::startsWith)) {
                        continue;
                    }
                    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
            return Optional.of(ticks * 1000L / CLK_TCK);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** HotSpot's JIT compiler thread names (as truncated to 15 characters in /proc). */
    public static final List<String> JIT_THREADS = List.of("C1 CompilerThre", "C2 CompilerThre");

    /** Value of a {@code kB} line in /proc/PID/status (VmRSS, VmHWM), in bytes. */
    public static Optional<Long> statusBytes(long pid, String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(key + ":")) {
                    String v = line.substring(key.length() + 1).strip();
                    return Optional.of(Long.parseLong(v.split("\\s+")[0]) * 1024L);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return Optional.empty();
    }

    /** Sum of VmRSS over the process and all its descendants, in bytes (0 when gone). */
    public static long treeRssBytes(long pid) {
        long sum = statusBytes(pid, "VmRSS").orElse(0L);
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isPresent()) {
            for (ProcessHandle d : h.get().descendants().toList()) {
                sum += statusBytes(d.pid(), "VmRSS").orElse(0L);
            }
        }
        return sum;
    }

    /**
     * The cgroup v2 directory of {@code pid} when it is not the lab's own cgroup (so it holds the server alone) and
     * has {@code memory.peak}; empty otherwise.
     */
    public static Optional<Path> ownCgroup(long pid) {
        try {
            String mine = v2Path(ProcessHandle.current().pid());
            String theirs = v2Path(pid);
            if (theirs == null || theirs.equals(mine)) {
                return Optional.empty();
            }
            for (Path root : List.of(Path.of("/sys/fs/cgroup"), Path.of("/sys/fs/cgroup/unified"))) {
                Path d = Path.of(root + theirs);
                if (Files.isReadable(d.resolve("memory.peak"))) {
                    return Optional.of(d);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no cgroup v2 information
        }
        return Optional.empty();
    }

    private static String v2Path(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
            if (line.startsWith("0::")) {
                return line.substring(3);
            }
        }
        return null;
    }

    public static Optional<Long> cgroupPeakBytes(Path cgroup) {
        try {
            return Optional.of(Long.parseLong(Files.readString(cgroup.resolve("memory.peak")).strip()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
