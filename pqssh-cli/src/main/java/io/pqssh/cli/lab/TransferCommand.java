package io.pqssh.cli.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.lab.load.ServerProcess;
import io.pqssh.lab.transfer.TransferLab;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pqssh lab transfer}: SFTP throughput with SHA-256 integrity checks, pqssh and OpenSSH side by side. */
@Command(name = "transfer", mixinStandardHelpOptions = true,
        description = {"SFTP and SCP upload and download over loopback against pqssh server and OpenSSH sshd;",
                "MB/s, negotiated cipher/MAC/KEX, SHA-256 of source and destination (a mismatch fails the run)."})
public final class TransferCommand implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", description = "File sizes (default 100M,200M; M = 10^6, MiB = 2^20).")
    List<String> sizes = new ArrayList<>(List.of("100M", "200M"));

    @Option(names = "--servers", split = ",", description = "pqssh, openssh (default both).")
    List<String> servers = new ArrayList<>(List.of("pqssh", "openssh"));

    @Option(names = "--protocols", split = ",", description = "sftp, scp (default both).")
    List<String> protocols = new ArrayList<>(List.of("sftp", "scp"));

    @Option(names = "--ciphers", split = ",", description = "Client cipher list, e.g. aes128-ctr (default: MINA's).")
    List<String> ciphers = new ArrayList<>();

    @Option(names = "--warm-client", negatable = true, description = "Before the warm-up rounds, one transfer per"
            + " server with the client's JIT, then restart the servers, so that warm-up round 0 shows a fresh"
            + " server's cost against a warm client (default on).")
    boolean warmClient = true;

    @Option(names = "--warmup", description = "Unmeasured rounds before the measured ones (default 1): the first"
            + " transfers run while the JIT of the client and of the pqssh server is compiling; they are reported"
            + " apart.")
    int warmup = 1;

    @Option(names = "--repeat", description = "Measured rounds, servers alternating within each (default 3).")
    int repeat = 3;

    @Option(names = "--openssh-bin", description = "sshd to test (default /usr/sbin/sshd).")
    Path opensshBin = ServerProcess.DEBIAN_SSHD;

    @Mixin
    LabRunOptions run = new LabRunOptions();

    @Option(names = "--out", description = "Write transfer.json, transfer.csv and transfer.md here.")
    Path out;

    @Override
    public Integer call() throws Exception {
        List<Long> sz = sizes.stream().map(TransferLab::parseSize).toList();
        Path wd = run.workDir("transfer");
        List<TransferLab.Result> rs = TransferLab.run(new TransferLab.Settings(servers, sz, ciphers, wd, opensshBin,
                run.timeout(), protocols, warmClient, warmup, repeat), System.err);
        if (out != null) {
            TransferLab.write(out, rs);
            System.out.print(Files.readString(out.resolve("transfer.md")));
            System.err.println("wrote " + out.resolve("transfer.json") + ", transfer.csv, transfer.md");
        } else {
            TransferLab.ratios(rs).forEach(System.out::println);
            TransferLab.coldRatios(rs).forEach(x -> System.out.println("first transfer after start: " + x));
        }
        return 0;
    }
}
