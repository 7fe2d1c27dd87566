package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static io.pqssh.cli.CliHarness.sshKeygenSign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * AuthorizedPrincipalsFile lines {@code [options] principal} as sshd 9.2 applies them (sshd_config(5): "may be
 * prefixed with key options"; auth2-pubkey.c check_principals_line, auth_authorise_keyopts, sshauthopt_merge), with
 * OpenSSH's ssh presenting ssh-keygen's certificates to {@code pqssh server} (its own process, so its log can be
 * read): {@code command=} forces the command, {@code from=} refuses other addresses, {@code no-pty} refuses a pty,
 * a command differing from the certificate's force-command refuses the certificate, and a line whose options do not
 * parse grants nothing and is logged as sshd's {@code FILE:N: bad principals options: ...}. The same file and
 * certificates were tried by hand against Debian's sshd 9.2, with the same results.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PrincipalLineOptionsTest {
    @TempDir
    Path dir;

    private Process server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                server.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private CliHarness.Result ssh(int port, Path key, String options, String command) throws Exception {
        return CliHarness.shell(dir, Map.of(), "ssh -F none -o BatchMode=yes -o IdentitiesOnly=yes"
                + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i " + key + " -p " + port + " "
                + options + " " + CliHarness.user() + "@127.0.0.1" + (command.isEmpty() ? "" : " '" + command + "'"));
    }

    @Test
    void principalLineOptionsApplyAsInSshd() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path forced = key("forced", "-n", "forced");
        Path remote = key("remote", "-n", "remote");
        Path noPty = key("nopty", "-n", "nopty");
        Path broken = key("broken", "-n", "broken");
        Path plain = key("plain", "-n", "plain");
        Path expired = key("expired", "-n", "expired");
        Path caLine = key("ca", "-n", "ca");
        Path restricted = key("restricted", "-n", "restricted");
        Path sameCommand = key("same", "-n", "forced", "-O", "force-command=echo forced");
        Path otherCommand = key("other", "-n", "forced", "-O", "force-command=echo cert");
        Path principals = Files.writeString(dir.resolve("principals"), "# options principal\n"
                + "command=\"echo forced\" forced\n"
                + "from=\"10.0.0.1\" remote\n"
                + "no-pty nopty\n"
                + "bogus-option broken\n"
                + "plain\n"
                + "expiry-time=\"20200101\" expired\n"
                + "cert-authority ca\n"
                + "restrict,pty,command=\"echo restricted\" restricted\n");
        Path log = dir.resolve("server.log");
        int port = startServer(ca, principals, log);

        CliHarness.Result r = ssh(port, forced, "", "echo mine");
        assertEquals("forced", r.out().strip(), "command= of the principal line: " + r.all());
        r = ssh(port, sameCommand, "", "echo mine");
        assertEquals("forced", r.out().strip(), "the same force-command in both: " + r.all());
        r = ssh(port, otherCommand, "", "echo mine");
        assertNotEquals(0, r.rc(), "command= and a different force-command (sshd: forced command options do not"
                + " match): " + r.all());
        r = ssh(port, remote, "", "echo remote");
        assertNotEquals(0, r.rc(), "from=\"10.0.0.1\" logged in from 127.0.0.1: " + r.all());
        assertFalse(r.out().contains("remote"), r.all());
        // as against sshd 9.2 with the same line: ssh -tt reports the refused pty, and a pty-less command still runs
        r = ssh(port, noPty, "-tt", "tty");
        assertTrue(r.err().contains("PTY allocation request failed"), "no-pty: " + r.all());
        assertFalse(r.out().contains("/dev/pts/"), r.all());
        r = ssh(port, noPty, "", "echo nopty");
        assertEquals("nopty", r.out().strip(), r.all());
        r = ssh(port, broken, "", "echo broken");
        assertNotEquals(0, r.rc(), "a line with an unknown option granted its principal: " + r.all());
        r = ssh(port, plain, "-tt", "tty");
        assertTrue(r.out().strip().startsWith("/dev/pts/"), "a line without options: " + r.all());

        r = ssh(port, expired, "", "echo expired");
        assertNotEquals(0, r.rc(), "an expired principal line granted its principal: " + r.all());
        r = ssh(port, caLine, "", "echo ca");
        assertNotEquals(0, r.rc(), "cert-authority on a principal line (sshd: flag invalid here): " + r.all());
        // restrict,pty,command=: the command with a pty; no forwarding (as sshd 9.2: administratively prohibited)
        r = ssh(port, restricted, "-tt", "tty");
        assertEquals("restricted", r.out().strip(), r.all());
        r = ssh(port, restricted, "-W 127.0.0.1:" + port, "");
        assertTrue(r.err().contains("administratively prohibited"), "restrict: " + r.all());
        assertFalse(r.out().contains("SSH-2.0-"), r.all());

        String text = CliHarness.read(log);
        assertTrue(text.contains("principals: entry expired at "), text);
        System.out.println("server log, principal lines:\n" + String.join("\n", text.lines().filter(l -> l.contains(
                "principal") || l.contains("forced command")).toList()));
        assertTrue(text.contains(principals + ":5: bad principals options: "), text);
        assertTrue(text.contains("Refused by certificate principals options"), text);
        assertTrue(text.contains("forced command options do not match"), text);
    }

    private Path key(String name, String... options) throws Exception {
        Path key = CliHarness.sshKeygen(dir.resolve("id_" + name), "ed25519");
        String[] args = new String[options.length + 2];
        args[0] = "-I";
        args[1] = name;
        System.arraycopy(options, 0, args, 2, options.length);
        sshKeygenSign(dir.resolve("user_ca"), key, args);
        return key;
    }

    private int startServer(Path ca, Path principals, Path log) throws Exception {
        Path hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        Path config = Files.writeString(dir.resolve("sshd_config"), String.join("\n", "Port 0",
                "ListenAddress 127.0.0.1", "HostKey " + hostKey, "AuthorizedKeysFile " + authorized,
                "AuthorizedKEMKeysFile none", "StrictModes no", "TrustedUserCAKeys " + pub(ca),
                "AuthorizedPrincipalsFile " + principals) + "\n");
        Path portFile = dir.resolve("port");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java,
                // the reasons (below sshd's INFO lines by default)
                "-Dorg.slf4j.simpleLogger.log.io.pqssh.server.CertificateAuthorizer=info",
                "-Dorg.slf4j.simpleLogger.log.io.pqssh.server.PrincipalsCommand=info",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "server", "-D", "-f",
                config.toString(), "--port-file", portFile.toString())
                .directory(dir.toFile()).redirectError(log.toFile()).redirectOutput(dir.resolve("out").toFile());
        pb.environment().put("PQSSH_CONFIG_DIR", dir.resolve("config").toString());
        server = pb.start();
        CliHarness.waitUntil(Duration.ofSeconds(60), () -> !server.isAlive()
                || CliHarness.read(portFile).strip().matches("\\d+"),
                () -> "pqssh server wrote no port:\n" + CliHarness.read(log));
        assertTrue(server.isAlive(), CliHarness.read(log));
        return Integer.parseInt(CliHarness.read(portFile).strip());
    }
}
