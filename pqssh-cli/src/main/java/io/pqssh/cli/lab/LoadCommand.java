package io.pqssh.cli.lab;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.lab.load.LabAccount;
import io.pqssh.lab.load.LoadLab;
import io.pqssh.lab.load.LoadMethod;
import io.pqssh.lab.load.LoadResult;
import io.pqssh.lab.load.ServerProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pqssh lab load}: logins per second, latency, server CPU and memory under N concurrent workers. */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = {"N workers loop connect -> auth -> 'true' -> close against pqssh server and/or OpenSSH sshd",
                "(child processes on 127.0.0.1, same Ed25519 host key and KEX sntrup761x25519-sha512).",
                "Exit status 1 when any measured configuration had failures or the server died."})
public final class LoadCommand implements Callable<Integer> {
    @Option(names = "--workers", split = ",", description = "Worker counts (default 1,8,16,32,64).")
    List<Integer> workers = new ArrayList<>(List.of(1, 8, 16, 32, 64));

    @Option(names = "--servers", split = ",", description = "pqssh, openssh (default both); pqssh-nopam,"
            + " pqssh-pam, openssh-pam: 'pqssh server' and sshd with UsePAM no/yes (the system's PAM, service sshd).")
    List<String> servers = new ArrayList<>(List.of("pqssh", "openssh"));

    @Option(names = "--methods", split = ",", description = "kem (ML-KEM-768 publickey-kem), mldsa65, ed25519"
            + " (default all).")
    List<String> methods = new ArrayList<>(List.of("kem", "mldsa65", "ed25519"));

    @Option(names = "--warmup", description = "Warm-up seconds per configuration (default 5).")
    double warmup = 5;

    @Option(names = "--duration", description = "Measured seconds per configuration (default 30).")
    double duration = 30;

    @Option(names = "--openssh-bin", description = "sshd to test (default /usr/sbin/sshd).")
    Path opensshBin = ServerProcess.DEBIAN_SSHD;

    @Option(names = "--pqssh-main", description = "Run the server as 'java -cp CP MAIN server -f CFG' (e.g."
            + " io.pqssh.cli.Main) instead of the lab's counting launcher of the same server.")
    String pqsshMain;

    @Option(names = "--user", description = "Log in as this account (default: the lab's own; both servers then get"
            + " SetEnv SHLVL=1, which makes the user's shell skip ~/.bashrc under either). For another"
            + " account both servers run its shell as a real login does, ~/.bashrc included; the account must exist"
            + " unless --create-user. Compare pqssh-* with openssh* this way.")
    String user;

    @Option(names = "--create-user", description = "Create the login account (--user, default "
            + LabAccount.DEFAULT_NAME + ") with useradd -m -s /bin/bash (Debian's /etc/skel start-up files) and"
            + " remove it (userdel -r) at the end; it must not exist. Needs root.")
    boolean createUser;

    @Mixin
    LabRunOptions run = new LabRunOptions();

    @Option(names = "--out", description = "Write load.json, load.csv, load.md and load.png here.")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (workers.isEmpty() || workers.stream().anyMatch(n -> n < 1 || n > 4096)) {
            throw new IllegalArgumentException("--workers: numbers from 1 to 4096");
        }
        if (warmup < 0 || duration <= 0) {
            throw new IllegalArgumentException("--warmup >= 0, --duration > 0");
        }
        for (String s : servers) {
            if (!LoadLab.SERVERS.contains(s)) {
                throw new IllegalArgumentException("unknown server '" + s + "' (known: " + String.join(", ",
                        LoadLab.SERVERS) + ")");
            }
        }
        List<LoadMethod> ms = methods.stream().map(LoadMethod::parse).distinct().toList();
        Path wd = run.workDir("load");
        if (user != null && !createUser && !LabAccount.exists(user)) {
            throw new IllegalArgumentException("--user " + user + ": no such account (add --create-user to have the"
                    + " lab create it for the run)");
        }
        LoadLab.Settings s = new LoadLab.Settings(servers, ms, workers, secs(warmup), secs(duration), wd, opensshBin,
                pqsshMain, run.timeout(), user, createUser);
        List<LoadResult> rs = LoadLab.run(s, System.err);
        System.out.print(LoadLab.markdown(rs));
        if (out != null) {
            LoadLab.write(out, rs);
            System.err.println("wrote " + out.resolve("load.json") + ", load.csv, load.md, load.png");
        }
        if (!LoadLab.allOk(rs)) {
            System.err.println("pqssh lab load: some configurations had failures or a dead server (see status)");
            return 1;
        }
        return 0;
    }

    private static Duration secs(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
