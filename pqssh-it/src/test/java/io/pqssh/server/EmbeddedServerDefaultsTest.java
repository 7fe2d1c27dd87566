package io.pqssh.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ChannelShell;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.core.CoreModuleProperties;
import org.apache.sshd.server.command.CommandFactory;
import org.apache.sshd.server.shell.ShellFactory;
import org.apache.sshd.sftp.client.SftpClientFactory;
import org.junit.jupiter.api.Test;

import io.pqssh.mina.EchoCommand;
import io.pqssh.mina.TestKeys;

/**
 * An embedded {@link PqsshServer} gives a session only what its builder was given: by default no exec, no shell and
 * no SFTP (nothing runs as the JVM's user); the application's own command and shell factories when passed; the
 * operating system's shell and SFTP only when asked for ({@code pqssh server} asks).
 */
class EmbeddedServerDefaultsTest {
    private static final KeyPair HOST = TestKeys.ed25519();
    private static final KeyPair USER = TestKeys.ed25519();

    private static PqsshServer.Builder builder() {
        return PqsshServer.builder().host("127.0.0.1").port(0).hostKeys(KeyPairProvider.wrap(HOST))
                .publickey((u, k, s) -> k.equals(USER.getPublic()));
    }

    private interface SessionCheck {
        void run(ClientSession s) throws Exception;
    }

    private static void login(PqsshServer srv, SessionCheck check) throws Exception {
        SshClient c = SshClient.setUpDefaultClient();
        c.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
        // as OpenSSH's ssh does: ask for a reply, so a refused request is an answer rather than silence
        CoreModuleProperties.REQUEST_EXEC_REPLY.set(c, true);
        CoreModuleProperties.REQUEST_SHELL_REPLY.set(c, true);
        c.start();
        try (ClientSession s = c.connect("u", "127.0.0.1", srv.port()).verify(Duration.ofSeconds(30)).getSession()) {
            s.addPublicKeyIdentity(USER);
            s.auth().verify(Duration.ofSeconds(30));
            check.run(s);
        } finally {
            c.stop();
        }
    }

    /** The command's output and exit status, or null when the server refused the exec request. */
    private static String exec(ClientSession s, String command) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ChannelExec ch = s.createExecChannel(command)) {
            ch.setOut(out);
            ch.setErr(OutputStream.nullOutputStream());
            ch.open().verify(Duration.ofSeconds(30));
            Set<ClientChannelEvent> ev = ch.waitFor(List.of(ClientChannelEvent.CLOSED), Duration.ofSeconds(30));
            assertTrue(ev.contains(ClientChannelEvent.CLOSED), "no answer to exec within 30 s: " + ev);
            Integer status = ch.getExitStatus();
            return status == null ? null : status + ":" + out.toString(StandardCharsets.UTF_8);
        }
    }

    private static boolean shellOpens(ClientSession s) throws IOException {
        try (ChannelShell shell = s.createShellChannel()) {
            shell.setOut(OutputStream.nullOutputStream());
            shell.setErr(OutputStream.nullOutputStream());
            shell.open().verify(Duration.ofSeconds(30));
            // a refused shell request closes the channel
            return !shell.waitFor(List.of(ClientChannelEvent.CLOSED), Duration.ofSeconds(3).toMillis())
                    .contains(ClientChannelEvent.CLOSED);
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void byDefaultNoExecNoShellNoSftp() throws Exception {
        try (PqsshServer srv = builder().start()) {
            assertNull(srv.sshd().getCommandFactory());
            assertNull(srv.sshd().getShellFactory());
            assertTrue(srv.sshd().getSubsystemFactories() == null || srv.sshd().getSubsystemFactories().isEmpty());
            login(srv, s -> {
                assertNull(exec(s, "id"));
                assertEquals(false, shellOpens(s));
                assertThrows(IOException.class, () -> SftpClientFactory.instance().createSftpClient(s).close());
            });
        }
    }

    @Test
    void theApplicationsCommandAndShellFactoriesAreUsedAsGiven() throws Exception {
        CommandFactory commands = (channel, command) -> new EchoCommand("app:", command);
        ShellFactory shell = channel -> new EchoCommand("app:", "shell");
        try (PqsshServer srv = builder().commandFactory(commands).shellFactory(shell).start()) {
            assertSame(commands, srv.sshd().getCommandFactory());
            assertSame(shell, srv.sshd().getShellFactory());
            login(srv, s -> {
                assertEquals("0:app:uname -a\n", exec(s, "uname -a"));
                assertThrows(IOException.class, () -> SftpClientFactory.instance().createSftpClient(s).close());
            });
        }
    }

    @Test
    void systemShellAndSftpOnlyWhenAskedFor() throws Exception {
        try (PqsshServer srv = builder().systemShell().sftp(true).start()) {
            login(srv, s -> {
                assertEquals("0:hi\n", exec(s, "echo hi"));
                assertTrue(shellOpens(s));
                SftpClientFactory.instance().createSftpClient(s).close();
            });
        }
    }
}
