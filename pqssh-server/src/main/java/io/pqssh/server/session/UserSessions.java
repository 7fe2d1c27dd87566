package io.pqssh.server.session;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.apache.sshd.server.command.CommandFactory;
import org.apache.sshd.server.shell.ShellFactory;
import org.apache.sshd.server.subsystem.SubsystemFactory;

/**
 * The session side of a server that runs logins as their accounts: exec ({@code shell -c command}, which also
 * serves legacy {@code scp -O}: OpenSSH's {@code scp -t}/{@code -f} runs as the user, as under sshd), the login
 * shell, and the {@code sftp} subsystem as OpenSSH's {@code sftp-server} run through the user's shell, exactly as
 * sshd's {@code Subsystem sftp /usr/lib/openssh/sftp-server}.
 */
public final class UserSessions {
    /** Where Debian (openssh-sftp-server), Fedora and the BSDs install OpenSSH's sftp-server. */
    public static final List<String> SFTP_SERVER_PATHS = List.of("/usr/lib/openssh/sftp-server",
            "/usr/libexec/openssh/sftp-server", "/usr/libexec/sftp-server", "/usr/lib/sftp-server");

    /** The sftp-server that {@code internal-sftp} runs (SshServer attribute; absent: none installed). */
    public static final org.apache.sshd.common.AttributeRepository.AttributeKey<String> SFTP_SERVER =
            new org.apache.sshd.common.AttributeRepository.AttributeKey<>();

    private UserSessions() {
    }

    /** The program word that stands for pqssh's own SFTP server ({@link io.pqssh.server.sftp.SftpJail}). */
    static final String JAILED_SFTP = "internal-sftp";

    /**
     * sshd's {@code internal-sftp [options]} ({@code options}: {@code -d}, {@code -l}, {@code -u}, {@code -R},
     * {@code -P}/{@code -p} ...), run directly as the user, never through the login shell (an sftp-only account's
     * shell is often nologin), as sshd runs its in-process server: OpenSSH's sftp-server when one is installed and
     * the session has no ChrootDirectory, else pqssh's own server in its jail ({@link SessionLaunch#servedByJail}),
     * which needs nothing inside the chroot.
     */
    static Command internalSftp(ChannelSession channel, String commandLine) {
        String server = channel.getServerSession().getFactoryManager().getAttribute(SFTP_SERVER);
        List<String> argv = new java.util.ArrayList<>(List.of(server != null ? server : JAILED_SFTP));
        String[] words = commandLine.strip().split("\\s+");
        argv.addAll(List.of(words).subList(1, words.length));
        return new ProcessSession(null, true, argv);
    }

    /** sshd's IS_INTERNAL_SFTP: the word internal-sftp, alone or followed by options. */
    public static boolean isInternalSftp(String command) {
        return command.equals("internal-sftp") || command.startsWith("internal-sftp ")
                || command.startsWith("internal-sftp\t");
    }

    /** {@code Subsystem sftp internal-sftp [options]}: {@link #internalSftp} for every sftp subsystem request. */
    public static SubsystemFactory internalSftpSubsystem(String commandLine) {
        return sftpSubsystem(channel -> internalSftp(channel, commandLine));
    }

    private static SubsystemFactory sftpSubsystem(java.util.function.Function<ChannelSession, Command> command) {
        return new SubsystemFactory() {
            @Override
            public String getName() {
                return "sftp";
            }

            @Override
            public Command createSubsystem(ChannelSession channel) {
                return command.apply(channel);
            }
        };
    }

    /** A session that only prints {@code message} on stderr and exits 1 (sshd's SUBSYSTEM_INT_SFTP_ERROR). */
    static final class Refusal implements Command {
        private final String message;
        private java.io.OutputStream err;
        private org.apache.sshd.server.ExitCallback exit;

        Refusal(String message) {
            this.message = message;
        }

        @Override
        public void setInputStream(java.io.InputStream in) {
        }

        @Override
        public void setOutputStream(java.io.OutputStream out) {
        }

        @Override
        public void setErrorStream(java.io.OutputStream err) {
            this.err = err;
        }

        @Override
        public void setExitCallback(org.apache.sshd.server.ExitCallback callback) {
            this.exit = callback;
        }

        @Override
        public void start(ChannelSession channel, org.apache.sshd.server.Environment env) throws java.io.IOException {
            tell(err, exit, message);
        }

        /** {@code message} as one line on the session's stderr, then exit status 1. */
        static void tell(java.io.OutputStream err, org.apache.sshd.server.ExitCallback exit, String message)
                throws java.io.IOException {
            try {
                err.write((message + "\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                err.flush();
            } finally {
                exit.onExit(1);
            }
        }

        @Override
        public void destroy(ChannelSession channel) {
        }
    }

    public static CommandFactory commands() {
        return (ChannelSession channel, String command) -> withPty(channel)
                ? new PtySession(command) : new ProcessSession(command);
    }

    public static ShellFactory shells() {
        return channel -> withPty(channel) ? new PtySession(null) : new ProcessSession(null);
    }

    /** The sftp subsystem running {@code sftpServer} as the user. */
    public static SubsystemFactory sftp(String sftpServer) {
        return sftpSubsystem(channel -> new ProcessSession(sftpServer, true));
    }

    /** The first installed OpenSSH sftp-server, if any. */
    public static Optional<String> findSftpServer() {
        return SFTP_SERVER_PATHS.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst();
    }

    private static boolean withPty(ChannelSession channel) {
        return channel instanceof PqsshChannelSession pc && pc.ptyRequested();
    }
}
