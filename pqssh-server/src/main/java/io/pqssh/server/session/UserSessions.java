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

    private UserSessions() {
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
        return new SubsystemFactory() {
            @Override
            public String getName() {
                return "sftp";
            }

            @Override
            public Command createSubsystem(ChannelSession channel) {
                return new ProcessSession(sftpServer, true);
            }
        };
    }

    /** The first installed OpenSSH sftp-server, if any. */
    public static Optional<String> findSftpServer() {
        return SFTP_SERVER_PATHS.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst();
    }

    private static boolean withPty(ChannelSession channel) {
        return channel instanceof PqsshChannelSession pc && pc.ptyRequested();
    }
}
