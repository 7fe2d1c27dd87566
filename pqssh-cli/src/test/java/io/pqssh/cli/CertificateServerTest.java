package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static io.pqssh.cli.CliHarness.sshKeygenSign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh server} with user certificates, OpenSSH's ssh as the client and ssh-keygen as the CA: TrustedUserCAKeys
 * with principals, force-command, and a {@code cert-authority principals=} line in authorized_keys.
 */
class CertificateServerTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private CliHarness.Result ssh(int port, Path key, String command) throws Exception {
        return CliHarness.shell(dir, Map.of(), "ssh -F none -o BatchMode=yes -o IdentitiesOnly=yes"
                + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i " + key + " -p " + port + " "
                + CliHarness.user() + "@127.0.0.1 '" + command + "'");
    }

    @Test
    void trustedUserCaKeysPrincipalsAndForceCommand() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path alice = CliHarness.sshKeygen(dir.resolve("id_alice"), "ed25519");
        Path other = CliHarness.sshKeygen(dir.resolve("id_other"), "ecdsa");
        Path forced = CliHarness.sshKeygen(dir.resolve("id_forced"), "ed25519");
        sshKeygenSign(ca, alice, "-I", "alice-cert", "-z", "9", "-n", CliHarness.user(), "-V", "-5m:+1h");
        sshKeygenSign(ca, other, "-I", "someone-else", "-n", "nobody-" + CliHarness.user());
        sshKeygenSign(ca, forced, "-I", "forced", "-n", CliHarness.user(), "-O", "force-command=echo forced-by-cert");
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int port = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + pub(ca));

        CliHarness.Result ok = ssh(port, alice, "echo cert-login");
        assertEquals(0, ok.rc(), ok.all());
        assertEquals("cert-login", ok.out().strip(), ok.all());
        assertNotEquals(0, ssh(port, other, "echo should-not-run").rc(), "a certificate for another principal");
        CliHarness.Result f = ssh(port, forced, "echo asked-for");
        assertEquals("forced-by-cert", f.out().strip(), f.all());
        // the plain key behind a certificate is not authorized by the CA
        Files.delete(dir.resolve("id_alice-cert.pub"));
        assertNotEquals(0, ssh(port, alice, "echo plain").rc(), "the bare key logged in");
    }

    @Test
    void certAuthorityLineWithPrincipals() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path ca = CliHarness.sshKeygen(dir.resolve("team_ca"), "ecdsa");
        Path ops = CliHarness.sshKeygen(dir.resolve("id_ops"), "ed25519");
        Path dev = CliHarness.sshKeygen(dir.resolve("id_dev"), "ed25519");
        sshKeygenSign(ca, ops, "-I", "ops", "-n", "ops");
        sshKeygenSign(ca, dev, "-I", "dev", "-n", "dev," + CliHarness.user());
        Path authorized = Files.writeString(dir.resolve("authorized_keys"),
                "cert-authority,principals=\"ops,admin\" " + Files.readString(pub(ca)));
        int port = h.startServer(authorized);
        CliHarness.Result ok = ssh(port, ops, "echo ops-login");
        assertEquals("ops-login", ok.out().strip(), ok.all());
        // principals= replaces the user name: a certificate naming only the user is refused
        assertNotEquals(0, ssh(port, dev, "echo dev-login").rc());
    }

    /**
     * AuthorizedPrincipalsCommand run as AuthorizedPrincipalsCommandUser (nobody when the test runs as root, as in
     * CI): its tokens, its output read as a principals file, and the refusals (another principal, a non-zero exit,
     * a group-writable program), with OpenSSH's ssh presenting ssh-keygen's certificates.
     */
    @Test
    void authorizedPrincipalsCommand() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        boolean root = "root".equals(CliHarness.user());
        String runAs = root ? "nobody" : CliHarness.user();
        System.out.println(root ? "running as root: the command runs as nobody"
                : "NOT root: the command runs as " + runAs + " (no uid change tested)");
        h = new ForwardingHarness(dir);
        // the program's path must be root-owned and closed to group and others, up to /; nobody writes in out/
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path out = Files.createDirectory(dir.resolve("out"));
        Files.setPosixFilePermissions(out, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Path args = out.resolve("args");
        Path script = bin.resolve("principals");
        Files.writeString(script, "#!/bin/sh\n"
                + "{ id -un; printf '%s\\n' \"$@\"; echo \"HOME=$HOME USER=$USER PATH=$PATH\"; } > " + args + "\n"
                + "echo '# principals for' \"$1\"\n"
                + "echo '  ops-team  # trailing comment'\n"
                + "echo 'from=\"10.0.0.1\" admins'\n"
                + "[ -e " + out.resolve("fail") + " ] && exit 3\n"
                + "exit 0\n");
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path ops = CliHarness.sshKeygen(dir.resolve("id_ops"), "ed25519");
        Path admin = CliHarness.sshKeygen(dir.resolve("id_admin"), "ed25519");
        sshKeygenSign(ca, ops, "-I", "ops key", "-z", "77", "-n", "ops-team");
        sshKeygenSign(ca, admin, "-I", "admin", "-n", "admins," + CliHarness.user());
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int port = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + pub(ca), "-o",
                "AuthorizedPrincipalsCommand=" + script + " %u %U %i %s %T %t %f %F %k %K %h %C %% \"two words\"",
                "-o", "AuthorizedPrincipalsCommandUser=" + runAs);

        CliHarness.Result ok = ssh(port, ops, "echo ops-login");
        assertEquals("ops-login", ok.out().strip(), ok.all());
        List<String> seen = Files.readAllLines(args);
        String opsCert = Files.readString(dir.resolve("id_ops-cert.pub")).split(" ")[1];
        String caKey = Files.readString(pub(ca)).split(" ")[1];
        String fp = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-lf", pub(ops).toString()))
                .out().split(" ")[1];
        String caFp = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-lf", pub(ca).toString()))
                .out().split(" ")[1];
        String uid = CliHarness.exec(dir, List.of("/usr/bin/id", "-u")).out().strip();
        assertEquals(runAs, seen.get(0), "runs as AuthorizedPrincipalsCommandUser");
        assertEquals(List.of(CliHarness.user(), uid, "ops key", "77", "ssh-ed25519",
                "ssh-ed25519-cert-v01@openssh.com", fp, caFp, opsCert, caKey, System.getProperty("user.home")),
                seen.subList(1, 12), String.join("\n", seen));
        assertTrue(seen.get(12).matches("127\\.0\\.0\\.1 \\d+ 127\\.0\\.0\\.1 " + port), seen.get(12));
        assertEquals(List.of("%", "two words"), seen.subList(13, 15));
        String home = root ? "/nonexistent" : System.getProperty("user.home");
        assertEquals("HOME=" + home + " USER=" + runAs + " PATH=/usr/bin:/bin:/usr/sbin:/sbin", seen.get(15));
        // a principal line with options grants nothing (pqssh does not apply them): fail closed
        assertNotEquals(0, ssh(port, admin, "echo admin").rc(), "admins came from a line with options");
        // a non-zero exit grants nothing, even with the principal printed (sshd's exited_cleanly)
        Files.writeString(out.resolve("fail"), "");
        assertNotEquals(0, ssh(port, ops, "echo after-fail").rc(), "the command failed");
        Files.delete(out.resolve("fail"));
        // a program others could write is not run (sshd's safe_path)
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxr-x"));
        Files.delete(args);
        assertNotEquals(0, ssh(port, ops, "echo unsafe").rc(), "an unsafe program was trusted");
        assertTrue(!Files.exists(args), "the unsafe program ran");
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals("again", ssh(port, ops, "echo again").out().strip());
    }
}
