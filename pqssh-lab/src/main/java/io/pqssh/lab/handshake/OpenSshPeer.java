package io.pqssh.lab.handshake;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.pqssh.lab.link.LinkEmulator;

/**
 * The system's OpenSSH ({@code ssh}/{@code sshd}, or those in {@code --openssh-bin DIR}) as the lab's second peer:
 * sshd in namespace A with a generated config and fresh Ed25519 keys, one {@code ssh -v … true} process per trial
 * in namespace B. Auth success and the exit status are stamped when ssh's {@code -v} lines
 * ("Authenticated to", "exit-status") arrive on its stderr pipe.
 */
final class OpenSshPeer implements AutoCloseable {
    static final int PORT = 2222;
    private final Path dir;
    private final String ssh;
    private final List<String> kex;
    private Process sshd;

    /** A run's timestamps: process start, auth success, exit status received, process end (nanoTime; 0 = never). */
    record Run(long start, long auth, long exitStatus, long end, int exit, String kex, String hostKey, String err) {
    }

    OpenSshPeer(Path bin) throws IOException {
        this.ssh = bin == null ? "ssh" : bin.resolve("ssh").toString();
        this.dir = Files.createTempDirectory("pqssh-lab-openssh");
        this.kex = supportedKex();
    }

    /** The user and the private key sshd authorizes: also what the pqssh client agent uses against this sshd. */
    static final String USER = "root";

    Path userKeyFile() {
        return dir.resolve("user_ed25519");
    }

    String sshdPath(Path bin) {
        return bin == null ? "/usr/sbin/sshd" : bin.resolve("sshd").toString();
    }

    private List<String> supportedKex() throws IOException {
        Process p = new ProcessBuilder(ssh, "-Q", "kex").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        try {
            if (p.waitFor() != 0) {
                throw new IOException(ssh + " -Q kex failed: " + out.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        return List.of(out.trim().split("\\s+"));
    }

    /** Why OpenSSH cannot run this configuration here, or null. */
    String unsupported(HandshakeConfig c) {
        String gap = artifactGap(c);
        if (gap != null) {
            return gap;
        }
        if (!c.hostKey().equals("ed25519") || !c.auth().equals("ed25519")) {
            return "the OpenSSH peer runs Ed25519 host and user keys only";
        }
        if (!c.clientKex().equals(c.serverKex())) {
            return "the OpenSSH peer uses one KEX list for both sides";
        }
        if (kexFor(c).isEmpty()) {
            return "this OpenSSH has none of " + String.join(",", c.clientKex());
        }
        return null;
    }

    /**
     * What the KEMUAuth artifact's patched OpenSSH has and stock OpenSSH (Debian 9.2 here) lacks, for this
     * configuration: the AND composite key types and the publickey-hybrid-and / publickey-kem(-and) methods. Null
     * when the configuration needs none of them.
     */
    static String artifactGap(HandshakeConfig c) {
        List<String> gaps = new java.util.ArrayList<>();
        for (String label : new String[] {c.hostKey(), c.auth()}) {
            for (String step : label.split("[,+]")) {
                if (HandshakeConfig.isAndComposite(step)) {
                    String type = HandshakeConfig.SIG_TYPES.get(step);
                    if (!gaps.contains(type + " keys")) {
                        gaps.add(type + " keys");
                    }
                }
            }
        }
        for (String m : c.method().split(",")) {
            if ((m.equals(HandshakeConfig.HYBRID_AND) || m.startsWith("publickey-kem")) && !gaps.contains(m)) {
                gaps.add(m);
            }
        }
        if (gaps.isEmpty()) {
            return null;
        }
        return "stock OpenSSH (Debian 9.2) has no " + String.join(", no ", gaps)
                + " (KEMUAuth artifact extensions; pqssh runs this configuration, OpenSSH cannot)";
    }

    /**
     * What the OpenSSH rows of a configuration run instead of its first KEX, or null (see {@link #kexFor}); the rows'
     * {@code kex} column shows what was negotiated.
     */
    String kexSubstitution(HandshakeConfig c) {
        List<String> usable = kexFor(c);
        if (usable.isEmpty() || usable.get(0).equals(c.clientKex().get(0))) {
            return null;
        }
        return "runs " + usable.get(0) + " (this OpenSSH lacks " + c.clientKex().get(0) + ")";
    }

    /**
     * The configuration's KEX list as this OpenSSH can run it: the names it has, in order. A post-quantum first
     * choice it lacks is stood in for by its own first post-quantum KEX (in pqssh's order), never by a classical
     * one: Debian's 9.2 has sntrup761x25519 but no mlkem768x25519, and a "both sides post-quantum" row must not
     * quietly run curve25519.
     */
    List<String> kexFor(HandshakeConfig c) {
        List<String> usable = new java.util.ArrayList<>(c.clientKex().stream().filter(kex::contains).toList());
        String first = c.clientKex().get(0);
        if (io.pqssh.mina.kex.PqKex.isPostQuantum(first)
                && (usable.isEmpty() || !io.pqssh.mina.kex.PqKex.isPostQuantum(usable.get(0)))) {
            io.pqssh.mina.kex.PqKex.DEFAULT_ORDER.stream().filter(io.pqssh.mina.kex.PqKex::isPostQuantum)
                    .filter(kex::contains).findFirst().ifPresent(pq -> usable.add(0, pq));
            if (usable.isEmpty() || !io.pqssh.mina.kex.PqKex.isPostQuantum(usable.get(0))) {
                return List.of(); // no post-quantum KEX here: unsupported, not a classical stand-in
            }
        }
        return List.copyOf(usable);
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (p.waitFor() != 0) {
                throw new IOException(String.join(" ", cmd) + " failed: " + out.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    void start(LinkEmulator link, Path bin) throws IOException {
        run(List.of(bin == null ? "ssh-keygen" : bin.resolve("ssh-keygen").toString(), "-q", "-t", "ed25519", "-N", "",
                "-f", dir.resolve("host_ed25519").toString()));
        run(List.of(bin == null ? "ssh-keygen" : bin.resolve("ssh-keygen").toString(), "-q", "-t", "ed25519", "-N", "",
                "-f", dir.resolve("user_ed25519").toString()));
        Files.copy(dir.resolve("user_ed25519.pub"), dir.resolve("authorized_keys"));
        io.pqssh.lab.load.ServerProcess.ensureSshdPrivsepDir();
        String cfg = "Port " + PORT + "\nListenAddress " + LinkEmulator.ADDR_A + "\nHostKey " + dir.resolve("host_ed25519")
                + "\nPidFile none\nAuthorizedKeysFile " + dir.resolve("authorized_keys")
                + "\nStrictModes no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                // "+": sshd's default order first (what a client's first_kex_packet_follows guess meets in the
                // field), then every other KEX this OpenSSH has, so each configuration's client list can be served
                + "KbdInteractiveAuthentication no\nUsePAM no\nKexAlgorithms +" + String.join(",", kex)
                + "\nLogLevel INFO\n";
        Files.writeString(dir.resolve("sshd_config"), cfg);
        sshd = link.spawn(link.nsA(), List.of(sshdPath(bin), "-D", "-e", "-f", dir.resolve("sshd_config").toString()),
                ProcessBuilder.Redirect.PIPE);
        BufferedReader err = new BufferedReader(new InputStreamReader(sshd.getErrorStream(), StandardCharsets.UTF_8));
        for (String line; (line = err.readLine()) != null;) {
            if (line.contains("Server listening on")) {
                Thread drain = new Thread(() -> {
                    try {
                        while (err.readLine() != null) {
                            // discard sshd's per-connection log
                        }
                    } catch (IOException ignored) {
                        // sshd gone
                    }
                }, "sshd-log");
                drain.setDaemon(true);
                drain.start();
                return;
            }
        }
        throw new IOException("sshd exited before listening; config " + dir.resolve("sshd_config"));
    }

    Run login(LinkEmulator link, HandshakeConfig c) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ssh, "-F", "/dev/null", "-v", "-i",
                dir.resolve("user_ed25519").toString(), "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "ConnectTimeout=30",
                "-o", "KexAlgorithms=" + String.join(",", kexFor(c)), "-o", "HostKeyAlgorithms=ssh-ed25519",
                "-p", Integer.toString(PORT), USER + "@" + LinkEmulator.ADDR_A, "true"));
        long t0 = System.nanoTime();
        Process p = link.spawn(link.nsB(), cmd, ProcessBuilder.Redirect.PIPE);
        p.getOutputStream().close();
        long auth = 0;
        long exitStatus = 0;
        String kx = "";
        String hk = "";
        try (BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = err.readLine()) != null;) {
                long now = System.nanoTime();
                if (auth == 0 && line.contains("Authenticated to")) {
                    auth = now;
                } else if (exitStatus == 0 && line.contains("rtype exit-status")) {
                    exitStatus = now;
                } else if (line.startsWith("debug1: kex: algorithm: ")) {
                    kx = line.substring("debug1: kex: algorithm: ".length()).trim();
                } else if (line.startsWith("debug1: kex: host key algorithm: ")) {
                    hk = line.substring("debug1: kex: host key algorithm: ".length()).trim();
                }
            }
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        long end = System.nanoTime();
        int rc = p.isAlive() ? -1 : p.exitValue();
        String err = rc == 0 && auth != 0 ? null : "ssh exited with " + rc + (auth == 0 ? " before authenticating" : "");
        return new Run(t0, auth, exitStatus, end, rc, kx, hk, err);
    }

    @Override
    public void close() {
        if (sshd != null) {
            sshd.destroy();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // temp dir
        }
    }
}
