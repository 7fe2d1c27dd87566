package io.pqssh.cli.transfer;

import io.pqssh.client.transfer.ScpSink;

import io.pqssh.client.transfer.LocalUmask;
import io.pqssh.client.transfer.ProgressMeter;
import io.pqssh.client.transfer.RemotePath;
import io.pqssh.client.transfer.SftpTransfers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.scp.client.ScpClient;
import org.apache.sshd.scp.client.ScpClientCreator;
import org.apache.sshd.sftp.client.SftpClient;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pqssh scp}: scp's operands and options over pqssh's login; the SFTP protocol by default as OpenSSH 9+'s scp,
 * the legacy SCP protocol with {@code -O}. Copies between two remote hosts are not supported.
 */
@Command(name = "scp", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Copy files to and from an SSH server (like scp): source ... target, remote operands as",
                "[user@]host:path. SFTP protocol by default (as OpenSSH 9+), -O for the legacy SCP protocol.",
                "Exit status: 0, or 1 on an error (255 when connecting or logging in fails)."})
public final class ScpCommand implements Callable<Integer> {
    @Option(names = "-r", description = "Copy directories recursively.")
    boolean recursive;

    @Option(names = "-O", description = "Use the legacy SCP protocol instead of SFTP.")
    boolean legacy;

    @Option(names = "-p", description = "Preserve modification times and modes.")
    boolean preserve;

    @Option(names = "-T", description = {"Legacy SCP downloads (-O): do not check that the names the server sends",
            "match the request (needed only when the server's shell expands a path differently)."})
    boolean noNameCheck;

    @Mixin
    SessionOptions session = new SessionOptions();

    @Parameters(arity = "2..*", paramLabel = "operand", description = "source ... target")
    List<String> operands = new ArrayList<>();

    @Override
    public Integer call() {
        String target = operands.get(operands.size() - 1);
        List<String> sources = operands.subList(0, operands.size() - 1);
        RemotePath remoteTarget = RemotePath.parseOrNull(target);
        List<RemotePath> remoteSources = new ArrayList<>();
        for (String s : sources) {
            RemotePath r = RemotePath.parseOrNull(s);
            if ((r == null) == (remoteTarget == null)) {
                System.err.println("pqssh scp: " + (r == null ? "local to local copies: use cp"
                        : "copies between two remote hosts are not supported") + " (" + s + " -> " + target + ")");
                return 1;
            }
            if (r != null) {
                if (!remoteSources.isEmpty() && !remoteSources.get(0).destination().equals(r.destination())) {
                    System.err.println("pqssh scp: all remote sources must be on the same host");
                    return 1;
                }
                remoteSources.add(r);
            }
        }
        if (remoteTarget != null) {
            List<Path> locals = sources.stream().map(Path::of).toList();
            for (Path l : locals) {
                if (!Files.exists(l)) {
                    System.err.println("pqssh scp: " + l + ": No such file or directory");
                    return 1;
                }
            }
            return session.withSession(remoteTarget.destination(), s -> upload(s, locals, remoteTarget.path()));
        }
        Path local = Path.of(target);
        return session.withSession(remoteSources.get(0).destination(),
                s -> download(s, remoteSources.stream().map(RemotePath::path).toList(), local));
    }

    private int upload(ClientSession s, List<Path> locals, String remote) throws Exception {
        if (legacy) {
            ScpClient scp = ScpClientCreator.instance().createScpClient(s);
            scp.upload(locals.toArray(Path[]::new), remote, options(locals.size() > 1));
            return 0;
        }
        int rc = 0;
        try (SftpClient sftp = SftpTransfers.open(s)) {
            boolean dir = SftpTransfers.isRemoteDirectory(sftp, remote);
            if (locals.size() > 1 && !dir) {
                System.err.println("pqssh scp: " + remote + ": target is not a directory");
                return 1;
            }
            for (Path l : locals) {
                String to = dir ? SftpTransfers.join(remote, l.toAbsolutePath().normalize().getFileName().toString())
                        : remote;
                try {
                    SftpTransfers.upload(sftp, l, to, sftpOptions());
                } catch (java.io.IOException e) {
                    System.err.println("pqssh scp: " + l + " -> " + to + ": " + e.getMessage());
                    rc = 1;
                }
            }
        }
        return rc;
    }

    private int download(ClientSession s, List<String> remotes, Path local) throws Exception {
        if (legacy) {
            ScpSink.Options o = new ScpSink.Options(recursive, preserve, remotes.size() > 1, !noNameCheck,
                    LocalUmask.current());
            int rc = 0;
            for (String r : remotes) { // one scp -f per operand, as scp runs one per source
                rc |= ScpSink.download(s, r, local, o, System.err);
            }
            return rc;
        }
        boolean dir = Files.isDirectory(local);
        if (remotes.size() > 1 && !dir) {
            System.err.println("pqssh scp: " + local + ": target is not a directory");
            return 1;
        }
        int rc = 0;
        try (SftpClient sftp = SftpTransfers.open(s)) {
            for (String r : remotes) {
                Path to = dir ? local.resolve(SftpTransfers.baseName(r)) : local;
                try {
                    SftpTransfers.download(sftp, r, to, sftpOptions());
                } catch (java.io.IOException e) {
                    System.err.println("pqssh scp: " + r + ": " + e.getMessage());
                    rc = 1;
                }
            }
        }
        return rc;
    }

    /** scp over SFTP as OpenSSH's: -r, -p (times and modes), new local files under this process's umask. */
    private SftpTransfers.Options sftpOptions() {
        return new SftpTransfers.Options(recursive, false, preserve, false, LocalUmask.current(),
                ProgressMeter.Factory.NONE, () -> false);
    }

    private EnumSet<ScpClient.Option> options(boolean targetIsDirectory) {
        EnumSet<ScpClient.Option> o = EnumSet.noneOf(ScpClient.Option.class);
        if (recursive) {
            o.add(ScpClient.Option.Recursive);
        }
        if (preserve) {
            o.add(ScpClient.Option.PreserveAttributes);
        }
        if (targetIsDirectory) {
            o.add(ScpClient.Option.TargetIsDirectory);
        }
        return o;
    }
}
