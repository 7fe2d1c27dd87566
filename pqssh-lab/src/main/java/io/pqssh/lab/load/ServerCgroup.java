package io.pqssh.lab.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cgroup v2 of the lab's own for one server under test, so that the server's CPU is counted the same way whatever
 * the server is: every process the server creates after {@link #add} is in it (forked children inherit the cgroup;
 * a process reparented to init stays in it), and {@code cpu.stat}'s {@code usage_usec} holds the CPU time of every
 * task that is or was in it, counted as it runs.
 * <p>
 * Why not {@code /proc/PID/stat}: its {@code cutime}/{@code cstime} hold only the children a process has
 * <em>waited for</em>, transitively. sshd 9.2's per-connection monitor can exit without waiting for its
 * post-authentication child (the process that runs as a non-root user, forks the session and reaps its shell): with
 * OpenSSH's ssh as the client, strace shows the monitor take the SIGCHLD and call exit_group, the child and its
 * shell go to init, and the listener's cutime missed 26 ms of sshd's 87 ms per login (2026-12-06). With the lab's
 * MINA client the two counts agreed within 5 %, but that depends on how each connection ends. The pqssh server
 * waits for every process it starts. Counting by cgroup covers both servers the same way, whatever the client.
 * <p>
 * Created under the lab's own cgroup v2 directory (cgroup2 mount from /proc/self/mountinfo, path from
 * /proc/self/cgroup); needs write access there (root). {@link #close()} kills what is left in it (only processes of
 * the server the lab started) and removes it.
 */
public final class ServerCgroup implements AutoCloseable {
    private static final AtomicLong SEQ = new AtomicLong();

    private final Path dir;

    private ServerCgroup(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    /** A new, empty cgroup; an exception saying why when this machine or user cannot make one. */
    public static ServerCgroup create(String label) throws IOException {
        Path mount = cgroup2Mount().orElseThrow(() -> new IOException("no cgroup2 mount in /proc/self/mountinfo"));
        String own = ownV2Path().orElseThrow(() -> new IOException("no cgroup v2 line (0::) in /proc/self/cgroup"));
        Path parent = Path.of(mount + (own.equals("/") ? "" : own));
        if (!Files.isRegularFile(parent.resolve("cgroup.procs"))) {
            throw new IOException(parent + " is not a cgroup v2 directory");
        }
        Path dir = parent.resolve("pqssh-lab-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet() + "-"
                + label.replaceAll("[^A-Za-z0-9_.-]", "_"));
        Files.createDirectory(dir);
        ServerCgroup c = new ServerCgroup(dir);
        if (c.cpuMicros().isEmpty()) {
            c.close();
            throw new IOException(dir + " has no cpu.stat usage_usec");
        }
        return c;
    }

    /** Moves {@code pid} (all its threads) into this cgroup; what it forks from then on is in it too. */
    public void add(long pid) throws IOException {
        Files.writeString(dir.resolve("cgroup.procs"), Long.toString(pid));
    }

    /** The pids in this cgroup now. */
    public List<Long> pids() {
        try {
            return Files.readAllLines(dir.resolve("cgroup.procs")).stream().filter(l -> !l.isBlank())
                    .map(l -> Long.parseLong(l.strip())).toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** {@code usage_usec} of {@code cpu.stat}: user + system CPU of every task that was ever in it. */
    public Optional<Long> cpuMicros() {
        return usageMicros(dir.resolve("cpu.stat"));
    }

    static Optional<Long> usageMicros(Path cpuStat) {
        try {
            for (String line : Files.readAllLines(cpuStat)) {
                if (line.startsWith("usage_usec ")) {
                    return Optional.of(Long.parseLong(line.substring("usage_usec ".length()).strip()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone or not readable
        }
        return Optional.empty();
    }

    /** Kills what is still in it (cgroup.kill where the kernel has it, else each pid) and removes the directory. */
    @Override
    public void close() {
        long end = System.nanoTime() + 10_000_000_000L;
        boolean killFile = Files.exists(dir.resolve("cgroup.kill"));
        while (!pids().isEmpty() && System.nanoTime() < end) {
            try {
                if (killFile) {
                    Files.writeString(dir.resolve("cgroup.kill"), "1");
                } else {
                    for (long p : pids()) {
                        ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
                Thread.sleep(50);
            } catch (IOException e) {
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        // rmdir: a cgroup with no processes and no children; its zombies' exit may take a moment to be noticed
        while (true) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > end) {
                    System.err.println("pqssh lab: could not remove " + dir + ": " + e.getMessage());
                    return;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** The first cgroup2 mount point in /proc/self/mountinfo (/sys/fs/cgroup, or /sys/fs/cgroup/unified). */
    static Optional<Path> cgroup2Mount() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
                int sep = line.indexOf(" - ");
                if (sep < 0) {
                    continue;
                }
                String[] after = line.substring(sep + 3).split(" ");
                String[] before = line.substring(0, sep).split(" ");
                if (after.length > 0 && after[0].equals("cgroup2") && before.length > 4 && before[3].equals("/")) {
                    return Optional.of(Path.of(before[4].replace("\\040", " ")));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return Optional.empty();
    }

    static Optional<String> ownV2Path() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (line.startsWith("0::")) {
                    return Optional.of(line.substring(3));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return Optional.empty();
    }
}
