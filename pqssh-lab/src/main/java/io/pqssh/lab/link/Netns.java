package io.pqssh.lab.link;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Network namespace plumbing through the {@code ip} tool, root checks and stale-namespace cleanup. */
public final class Netns {
    /** Every namespace the lab creates starts with this prefix, followed by the creating PID. */
    public static final String PREFIX = "pqssh-";
    private static final Pattern OURS = Pattern.compile("^" + PREFIX + "(\\d+)-\\S+$");

    private Netns() {
    }

    /** Thrown when the lab cannot run here (not root, no {@code ip}, no /dev/net/tun). */
    public static final class LabUnavailableException extends IOException {
        private static final long serialVersionUID = 1L;

        public LabUnavailableException(String message) {
            super(message);
        }
    }

    public static boolean isRoot() {
        try {
            Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return p.waitFor() == 0 && out.equals("0");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The {@code ip} binary: $PQSSH_IP if set, else from PATH (or /usr/sbin, /sbin); null if missing. */
    public static String ipTool() {
        String forced = System.getenv("PQSSH_IP");
        if (forced != null) {
            File f = new File(forced);
            return f.isFile() && f.canExecute() ? f.getPath() : null;
        }
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (String d : dirs) {
            if (d.isEmpty()) {
                continue;
            }
            File f = new File(d, "ip");
            if (f.isFile() && f.canExecute()) {
                return f.getPath();
            }
        }
        return null;
    }

    /** Fails with a clear message unless this process can create namespaces and TUN devices. */
    public static void requireUsable() throws LabUnavailableException {
        check(isRoot(), ipTool(), new File("/dev/net/tun").exists());
    }

    /** The decision of {@link #requireUsable()}, from its three facts. */
    static void check(boolean root, String ip, boolean tun) throws LabUnavailableException {
        if (!root) {
            throw new LabUnavailableException("the link emulator needs root (network namespaces and /dev/net/tun); "
                    + "run with sudo, or use --loopback for a loopback-only run without emulated delay or loss");
        }
        if (ip == null) {
            throw new LabUnavailableException("the 'ip' tool (iproute2) is missing; install iproute2 "
                    + "or use --loopback");
        }
        if (!tun) {
            throw new LabUnavailableException("/dev/net/tun is missing (no TUN support); use --loopback");
        }
    }

    /** Runs a command, returns stdout; throws with stderr on a non-zero exit. */
    static String run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + String.join(" ", cmd));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd));
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + out.trim());
        }
        return out;
    }

    static String ip(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ipTool() == null ? "ip" : ipTool());
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    /** Names of all namespaces whose name starts with {@link #PREFIX}. */
    public static List<String> ours() throws IOException {
        List<String> names = new ArrayList<>();
        for (String line : ip("netns", "list").split("\n")) {
            String name = line.trim().split("\\s+")[0];
            if (name.startsWith(PREFIX)) {
                names.add(name);
            }
        }
        return names;
    }

    /** Deletes one namespace after stopping the processes still inside it. */
    static void delete(String ns) {
        try {
            for (String pid : ip("netns", "pids", ns).split("\\s+")) {
                if (!pid.isBlank()) {
                    ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // namespace already gone
        }
        try {
            ip("netns", "del", ns);
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** Removes pqssh- namespaces left behind by processes that no longer run; returns what it removed. */
    public static List<String> cleanupStale() throws IOException {
        List<String> removed = new ArrayList<>();
        for (String ns : ours()) {
            Matcher m = OURS.matcher(ns);
            if (!m.matches()) {
                continue;
            }
            long pid = Long.parseLong(m.group(1));
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (!alive) {
                delete(ns);
                removed.add(ns);
            }
        }
        return removed;
    }
}
