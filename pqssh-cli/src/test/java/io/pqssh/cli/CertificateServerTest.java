package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

    private void sign(Path ca, Path key, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH_KEYGEN.toString(), "-q", "-s", ca.toString()));
        cmd.addAll(List.of(options));
        cmd.add(pub(key).toString());
        CliHarness.Result r = CliHarness.exec(dir, cmd);
        assertEquals(0, r.rc(), r.all());
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
        sign(ca, alice, "-I", "alice-cert", "-z", "9", "-n", CliHarness.user(), "-V", "-5m:+1h");
        sign(ca, other, "-I", "someone-else", "-n", "nobody-" + CliHarness.user());
        sign(ca, forced, "-I", "forced", "-n", CliHarness.user(), "-O", "force-command=echo forced-by-cert");
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
        sign(ca, ops, "-I", "ops", "-n", "ops");
        sign(ca, dev, "-I", "dev", "-n", "dev," + CliHarness.user());
        Path authorized = Files.writeString(dir.resolve("authorized_keys"),
                "cert-authority,principals=\"ops,admin\" " + Files.readString(pub(ca)));
        int port = h.startServer(authorized);
        CliHarness.Result ok = ssh(port, ops, "echo ops-login");
        assertEquals("ops-login", ok.out().strip(), ok.all());
        // principals= replaces the user name: a certificate naming only the user is refused
        assertNotEquals(0, ssh(port, dev, "echo dev-login").rc());
    }
}
