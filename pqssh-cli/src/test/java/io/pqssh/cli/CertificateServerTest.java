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
        return ssh(port, key, "", command);
    }

    private CliHarness.Result ssh(int port, Path key, String options, String command) throws Exception {
        return CliHarness.shell(dir, Map.of(), sshLine(port, key, options, command));
    }

    private static String sshLine(int port, Path key, String options, String command) {
        return "ssh -F none -o BatchMode=yes -o IdentitiesOnly=yes"
                + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i " + key + " -p " + port + " "
                + options + " " + CliHarness.user() + "@127.0.0.1" + (command.isEmpty() ? "" : " '" + command + "'");
    }

    /**
     * A certificate's source-address is sshd's addr_match_cidr_list: a listed address logs in, a wildcard entry (which
     * from= would match) makes the certificate invalid, as in sshd; and the certificate's missing extensions limit
     * the session: no permit-pty, no pty; no permit-port-forwarding, no -W; no permit-agent-forwarding, no agent.
     */
    @Test
    void sourceAddressIsACidrListAndMissingExtensionsLimitTheSession() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path listed = CliHarness.sshKeygen(dir.resolve("id_listed"), "ed25519");
        Path wildcard = CliHarness.sshKeygen(dir.resolve("id_wildcard"), "ed25519");
        Path full = CliHarness.sshKeygen(dir.resolve("id_full"), "ed25519");
        Path bare = CliHarness.sshKeygen(dir.resolve("id_bare"), "ed25519");
        String user = CliHarness.user();
        sshKeygenSign(ca, listed, "-I", "listed", "-n", user, "-O", "source-address=192.0.2.0/24,127.0.0.1/32");
        // ssh-keygen refuses -O source-address=127.0.0.*, but writes it as a custom critical option
        sshKeygenSign(ca, wildcard, "-I", "wildcard", "-n", user, "-O", "critical:source-address=127.0.0.*");
        sshKeygenSign(ca, full, "-I", "full", "-n", user);
        sshKeygenSign(ca, bare, "-I", "bare", "-n", user, "-O", "no-pty", "-O", "no-port-forwarding", "-O",
                "no-agent-forwarding");
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int port = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + pub(ca));

        CliHarness.Result ok = ssh(port, listed, "echo listed");
        assertEquals("listed", ok.out().strip(), ok.all());
        assertNotEquals(0, ssh(port, wildcard, "echo wildcard").rc(), "a source-address wildcard matched");

        CliHarness.Result pty = ssh(port, full, "-tt", "tty");
        assertTrue(pty.out().strip().startsWith("/dev/pts/"), pty.all());
        // as against sshd 9.2 with the same certificate: ssh -tt reports the refused pty (and exits 255, no output)
        CliHarness.Result noPty = ssh(port, bare, "-tt", "tty");
        assertTrue(noPty.err().contains("PTY allocation request failed"), noPty.all());
        assertTrue(!noPty.out().contains("/dev/pts/"), noPty.all());

        CliHarness.Result forward = ssh(port, full, "-W 127.0.0.1:" + port, "");
        assertTrue(forward.out().startsWith("SSH-2.0-"), forward.all());
        CliHarness.Result noForward = ssh(port, bare, "-W 127.0.0.1:" + port, "");
        assertTrue(noForward.err().contains("administratively prohibited"), noForward.all());
        assertTrue(!noForward.out().contains("SSH-2.0-"), noForward.all());

        // no permit-agent-forwarding: ssh -A with a running ssh-agent gets no SSH_AUTH_SOCK in the session
        CliHarness.requireBinary(Path.of("/usr/bin/ssh-agent"), "openssh-client");
        String withAgent = "eval \"$(ssh-agent -s)\" >/dev/null; trap 'ssh-agent -k >/dev/null' EXIT; ";
        CliHarness.Result agent = CliHarness.shell(dir, Map.of(), withAgent
                + sshLine(port, full, "-A", "echo sock=${SSH_AUTH_SOCK:-none}"));
        assertTrue(agent.out().strip().startsWith("sock=/"), agent.all());
        CliHarness.Result noAgent = CliHarness.shell(dir, Map.of(), withAgent
                + sshLine(port, bare, "-A", "echo sock=${SSH_AUTH_SOCK:-none}"));
        assertEquals("sock=none", noAgent.out().strip(), noAgent.all());
    }

    /**
     * AuthorizedPrincipalsFile (with %u): its principals log in and the user name no longer does; a missing file
     * grants nothing; under StrictModes a group-writable file grants nothing, as sshd's auth_openprincipals.
     */
    @Test
    void authorizedPrincipalsFileAndStrictModes() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        String user = CliHarness.user();
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path ops = CliHarness.sshKeygen(dir.resolve("id_ops"), "ed25519");
        Path named = CliHarness.sshKeygen(dir.resolve("id_named"), "ed25519");
        sshKeygenSign(ca, ops, "-I", "ops", "-n", "deploy,ops-team");
        sshKeygenSign(ca, named, "-I", "named", "-n", user);
        Path principalsDir = Files.createDirectory(dir.resolve("principals"));
        Path file = Files.writeString(principalsDir.resolve(user), "# who may log in as " + user + "\n"
                + "  ops-team   # the on-call rota\n");
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int port = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + pub(ca), "-o",
                "AuthorizedPrincipalsFile=" + principalsDir + "/%u");

        CliHarness.Result ok = ssh(port, ops, "echo ops");
        assertEquals("ops", ok.out().strip(), ok.all());
        assertNotEquals(0, ssh(port, named, "echo named").rc(), "the user name counted beside the file");
        // group-writable: StrictModes ignores the file
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-r--"));
        assertNotEquals(0, ssh(port, ops, "echo writable").rc(), "a group-writable principals file was used");
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals("again", ssh(port, ops, "echo again").out().strip());
        Files.delete(file);
        assertNotEquals(0, ssh(port, ops, "echo missing").rc(), "no principals file, yet logged in");
    }

    /**
     * CASignatureAlgorithms limits the algorithms a trusted CA may have signed with: an ECDSA CA's certificate is
     * refused under {@code ssh-ed25519} alone and accepted under the default list; an Ed25519 CA's logs in.
     */
    @Test
    void caSignatureAlgorithmsRefuseOtherCaAlgorithms() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path edCa = CliHarness.sshKeygen(dir.resolve("ed_ca"), "ed25519");
        Path ecCa = CliHarness.sshKeygen(dir.resolve("ec_ca"), "ecdsa");
        Path byEd = CliHarness.sshKeygen(dir.resolve("id_by_ed"), "ed25519");
        Path byEc = CliHarness.sshKeygen(dir.resolve("id_by_ec"), "ed25519");
        sshKeygenSign(edCa, byEd, "-I", "by-ed", "-n", CliHarness.user());
        sshKeygenSign(ecCa, byEc, "-I", "by-ec", "-n", CliHarness.user());
        Path trusted = Files.writeString(dir.resolve("trusted"), Files.readString(pub(edCa))
                + Files.readString(pub(ecCa)));
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int limited = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + trusted, "-o",
                "CASignatureAlgorithms=ssh-ed25519");
        assertEquals("by-ed", ssh(limited, byEd, "echo by-ed").out().strip());
        assertNotEquals(0, ssh(limited, byEc, "echo by-ec").rc(), "an ecdsa-sha2-nistp256 CA signature was taken");
        int defaults = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + trusted);
        assertEquals("by-ec", ssh(defaults, byEc, "echo by-ec").out().strip());
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
     * A {@code cert-authority} line's own options apply to the certificates it vouches for, merged with the
     * certificate's as sshd 9.2's check_authkey_line (checked by hand with the same line): {@code command=} forces
     * the command, {@code no-pty} refuses a pty, a different {@code force-command} in the certificate refuses it.
     */
    @Test
    void certAuthorityLineOptionsApply() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path ca = CliHarness.sshKeygen(dir.resolve("team_ca"), "ed25519");
        Path plain = CliHarness.sshKeygen(dir.resolve("id_plain"), "ed25519");
        Path other = CliHarness.sshKeygen(dir.resolve("id_other"), "ed25519");
        sshKeygenSign(ca, plain, "-I", "plain", "-n", CliHarness.user());
        sshKeygenSign(ca, other, "-I", "other", "-n", CliHarness.user(), "-O", "force-command=echo cert");
        Path authorized = Files.writeString(dir.resolve("authorized_keys"),
                "cert-authority,no-pty,command=\"echo line\" " + Files.readString(pub(ca)));
        int port = h.startServer(authorized);
        CliHarness.Result r = ssh(port, plain, "echo mine");
        assertEquals("line", r.out().strip(), "command= of the cert-authority line: " + r.all());
        r = ssh(port, plain, "-tt", "tty");
        assertTrue(r.err().contains("PTY allocation request failed"), "no-pty of the cert-authority line: " + r.all());
        r = ssh(port, other, "echo mine");
        assertNotEquals(0, r.rc(), "command= and a different force-command (forced command options do not match): "
                + r.all());
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
        // a principal line with from="10.0.0.1" grants nothing to a login from 127.0.0.1, as in sshd
        assertNotEquals(0, ssh(port, admin, "echo admin").rc(), "from=\"10.0.0.1\" let 127.0.0.1 in");
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
