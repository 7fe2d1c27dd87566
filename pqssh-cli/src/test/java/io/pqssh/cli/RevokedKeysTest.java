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
 * {@code pqssh server}'s {@code RevokedKeys}: KRLs made by {@code ssh-keygen -k} (explicit keys, SHA256 hashes,
 * certificate serials and key IDs) and plain public key lists (a listed key and a listed CA), OpenSSH's ssh logging
 * in with plain keys and ssh-keygen-signed user certificates.
 */
class RevokedKeysTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private void keygen(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH_KEYGEN.toString()));
        cmd.addAll(List.of(args));
        CliHarness.Result r = CliHarness.exec(dir, cmd);
        assertEquals(0, r.rc(), r.all());
    }

    private int login(int port, Path key) throws Exception {
        return CliHarness.shell(dir, Map.of(), "ssh -F none -o BatchMode=yes -o IdentitiesOnly=yes"
                + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i " + key + " -p " + port + " "
                + CliHarness.user() + "@127.0.0.1 true").rc();
    }

    @Test
    void krlAndKeyListRevokeKeysAndCertificates() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path alice = CliHarness.sshKeygen(dir.resolve("id_alice"), "ed25519");
        Path bob = CliHarness.sshKeygen(dir.resolve("id_bob"), "ecdsa");
        Path eve = CliHarness.sshKeygen(dir.resolve("id_eve"), "rsa");
        Path carol = CliHarness.sshKeygen(dir.resolve("id_carol"), "ed25519");
        Path dave = CliHarness.sshKeygen(dir.resolve("id_dave"), "ed25519");
        Path frank = CliHarness.sshKeygen(dir.resolve("id_frank"), "ed25519");
        keygen("-q", "-s", ca.toString(), "-I", "carol", "-z", "7", "-n", CliHarness.user(), pub(carol).toString());
        keygen("-q", "-s", ca.toString(), "-I", "dave", "-z", "0", "-n", CliHarness.user(), pub(dave).toString());
        keygen("-q", "-s", ca.toString(), "-I", "frank", "-z", "8", "-n", CliHarness.user(), pub(frank).toString());
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(alice))
                + Files.readString(pub(bob)) + Files.readString(pub(eve)));

        // alice explicitly, eve by SHA256 hash, carol's serial 7 and dave's key ID under the CA
        Path krl = dir.resolve("revoked.krl");
        keygen("-k", "-f", krl.toString(), pub(alice).toString());
        String eveHash = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-l", "-f",
                pub(eve).toString())).out().split("\\s+")[1];
        Path spec = Files.writeString(dir.resolve("krl.spec"), "serial: 7\nid: dave\nhash: " + eveHash + "\n");
        keygen("-k", "-u", "-s", pub(ca).toString(), "-f", krl.toString(), spec.toString());

        int port = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + pub(ca), "-o", "RevokedKeys=" + krl);
        assertNotEquals(0, login(port, alice), "alice's key is revoked explicitly");
        assertEquals(0, login(port, bob), "bob's key is not revoked");
        assertNotEquals(0, login(port, eve), "eve's key is revoked by its SHA256 hash");
        assertNotEquals(0, login(port, carol), "carol's certificate serial is revoked");
        assertNotEquals(0, login(port, dave), "dave's certificate key ID is revoked");
        assertEquals(0, login(port, frank), "frank's certificate (serial 8) is not revoked");

        // a plain list: bob's key, and the CA (every certificate it signed); read at each login, as sshd
        Files.writeString(krl, Files.readString(pub(bob)) + "# the user CA\n" + Files.readString(pub(ca)));
        assertNotEquals(0, login(port, bob), "bob listed");
        assertNotEquals(0, login(port, frank), "frank's CA listed");
        assertEquals(0, login(port, alice), "alice is no longer revoked");

        // an unreadable file refuses every key, as sshd does
        Files.delete(krl);
        assertNotEquals(0, login(port, alice), "no RevokedKeys file: refused");
    }

    /**
     * A Match block that changes AuthorizedPrincipalsFile (so the connection gets its own key authorizer, as for
     * AuthorizedKeysFile or TrustedUserCAKeys) keeps RevokedKeys: it was dropped there before.
     */
    @Test
    void revokedKeysHoldInsideMatchBlocks() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path alice = CliHarness.sshKeygen(dir.resolve("id_alice"), "ed25519");
        Path bob = CliHarness.sshKeygen(dir.resolve("id_bob"), "ed25519");
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(alice))
                + Files.readString(pub(bob)));
        Path krl = dir.resolve("revoked.krl");
        keygen("-k", "-f", krl.toString(), pub(alice).toString());
        Path config = Files.writeString(dir.resolve("sshd_config"), "ListenAddress 127.0.0.1\nRevokedKeys " + krl
                + "\nMatch User "
                + CliHarness.user() + "\n  AuthorizedPrincipalsFile " + dir.resolve("principals") + "\n");
        int port = h.startServer(authorized, "-f", config.toString());
        assertEquals(0, login(port, bob), "bob's key is authorized");
        assertNotEquals(0, login(port, alice), "alice's key is revoked, in a Match block too");
    }
}
