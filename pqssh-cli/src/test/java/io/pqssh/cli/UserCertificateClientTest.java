package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static io.pqssh.cli.CliHarness.sshKeygenSign;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh} offering user certificates: the {@code -cert.pub} beside an identity file (default and
 * explicit), {@code -o CertificateFile=}, against Debian's sshd 9.2 with {@code TrustedUserCAKeys} (CAs made by
 * ssh-keygen and by {@code pqssh keygen}) and against {@code pqssh server}.
 */
class UserCertificateClientTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private static void pqsshSign(Path ca, Path key, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("keygen", "-s", ca.toString()));
        args.addAll(List.of(options));
        args.add(pub(key).toString());
        CliHarness.Result r = CliHarness.pqssh(args.toArray(String[]::new));
        assertEquals(0, r.rc(), r.all());
    }

    private static Path pqsshKeygen(Path file, String type) throws Exception {
        CliHarness.Result r = CliHarness.pqssh("keygen", "-q", "-t", type, "-N", "", "-f", file.toString());
        assertEquals(0, r.rc(), r.all());
        return file;
    }

    private CliHarness.Result pqsshSsh(int port, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-F", "none", "-p", String.valueOf(port),
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
                "-o", "KEMAuthentication=no", "-o", "IdentityAgent=none"));
        args.addAll(List.of(extra));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    private static String dest() {
        return CliHarness.user() + "@127.0.0.1";
    }

    @Test
    void defaultIdentityCertificateIsOfferedBeforeItsPlainKeyToOpenSshd() throws Exception {
        h = new ForwardingHarness(dir);
        Path home = Files.createDirectories(dir.resolve("home/.ssh")).getParent();
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path key = CliHarness.sshKeygen(home.resolve(".ssh/id_ed25519"), "ed25519");
        sshKeygenSign(ca, key, "-I", "default-cert", "-z", "42", "-n", CliHarness.user(), "-V", "-5m:+1h");
        // the plain key is authorized too: whichever is offered first logs in, so the log line shows the order
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(key)));
        int port = h.startSshd(authorized, "TrustedUserCAKeys " + pub(ca));

        CliHarness.Result r = CliHarness.shell(dir, Map.of("JAVA_TOOL_OPTIONS", "-Duser.home=" + home),
                "$PQSSH ssh -F none -v -p " + port + " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
                        + " -o BatchMode=yes -o KEMAuthentication=no -o IdentityAgent=none " + dest()
                        + " echo via-default-cert");
        assertEquals(0, r.rc(), r.all());
        assertEquals("via-default-cert", r.out().strip(), r.all());
        assertTrue(r.err().contains("Identity file " + key + "-cert type ED25519-CERT SHA256:"), r.all());
        String log = CliHarness.read(h.sshdLog());
        assertTrue(log.contains("Accepted publickey for " + CliHarness.user() + " from 127.0.0.1")
                && log.contains("ssh2: ED25519-CERT SHA256:") && log.contains("ID default-cert (serial 42) CA ED25519"),
                log);
    }

    @Test
    void explicitIdentityAndCertificateFileWithCasOfSshKeygenAndPqssh() throws Exception {
        h = new ForwardingHarness(dir);
        Path sshKeygenCa = CliHarness.sshKeygen(dir.resolve("ssh_keygen_ca"), "ecdsa");
        Path pqsshCa = pqsshKeygen(dir.resolve("pqssh_ca"), "ed25519");
        Files.writeString(dir.resolve("trusted_cas"), Files.readString(pub(sshKeygenCa))
                + Files.readString(pub(pqsshCa)));
        Path rsa = CliHarness.sshKeygen(dir.resolve("id_rsa"), "rsa");
        Path ecdsa = CliHarness.sshKeygen(dir.resolve("id_ecdsa"), "ecdsa");
        sshKeygenSign(sshKeygenCa, rsa, "-I", "rsa-by-ssh-keygen", "-n", CliHarness.user());
        pqsshSign(pqsshCa, ecdsa, "-I", "ecdsa-by-pqssh", "-n", "someone," + CliHarness.user());
        Path elsewhere = Files.move(dir.resolve("id_ecdsa-cert.pub"), dir.resolve("ecdsa.certificate"));
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int port = h.startSshd(authorized, "TrustedUserCAKeys " + dir.resolve("trusted_cas"));

        // -i FILE: FILE-cert.pub beside it is offered (rsa-sha2-* certificate signatures)
        CliHarness.Result rsaLogin = pqsshSsh(port, "-i", rsa.toString(), dest(), "echo rsa-cert");
        assertEquals("rsa-cert", rsaLogin.out().strip(), rsaLogin.all());
        assertTrue(CliHarness.read(h.sshdLog()).contains("ID rsa-by-ssh-keygen (serial 0) CA ECDSA"),
                CliHarness.read(h.sshdLog()));

        // without the certificate beside it the key alone is refused ...
        CliHarness.Result bare = pqsshSsh(port, "-i", ecdsa.toString(), dest(), "echo SHOULD-NOT-RUN");
        assertEquals(255, bare.rc(), bare.all());
        assertFalse(bare.out().contains("SHOULD-NOT-RUN"), bare.all());
        // ... and CertificateFile names it wherever it is
        CliHarness.Result certFile = pqsshSsh(port, "-i", ecdsa.toString(), "-o", "CertificateFile=" + elsewhere,
                dest(), "echo ecdsa-cert");
        assertEquals("ecdsa-cert", certFile.out().strip(), certFile.all());
        assertTrue(CliHarness.read(h.sshdLog()).contains("ID ecdsa-by-pqssh (serial 0) CA ED25519"),
                CliHarness.read(h.sshdLog()));

        // a CertificateFile whose key no identity holds is not offered
        CliHarness.Result unpaired = pqsshSsh(port, "-v", "-i", rsa.toString(), "-o", "CertificateFile=" + elsewhere,
                dest(), "echo SHOULD-NOT-RUN");
        assertEquals(255, unpaired.rc(), unpaired.all());
        assertTrue(unpaired.err().contains("Not using certificate " + elsewhere
                + ": no identity holds the key it certifies"), unpaired.all());
    }

    @Test
    void pqsshServerTrustsAPostQuantumCaForACertificateThePqsshClientSends() throws Exception {
        h = new ForwardingHarness(dir);
        Path ca = pqsshKeygen(dir.resolve("mldsa_ca"), "mldsa65");
        Path key = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        pqsshSign(ca, key, "-I", "signed-by-mldsa", "-n", CliHarness.user());
        Path authorized = Files.writeString(dir.resolve("authorized_keys"), "");
        int port = h.startServer(authorized, "-o", "TrustedUserCAKeys=" + pub(ca));
        CliHarness.Result ok = pqsshSsh(port, "-i", key.toString(), dest(), "echo pq-ca");
        assertEquals(0, ok.rc(), ok.all());
        assertEquals("pq-ca", ok.out().strip(), ok.all());

        // an expired certificate is not offered (MINA skips it), so the bare key is refused
        pqsshSign(ca, key, "-I", "expired", "-n", CliHarness.user(), "-V", "20200101:20200102");
        CliHarness.Result expired = pqsshSsh(port, "-i", key.toString(), dest(), "echo SHOULD-NOT-RUN");
        assertEquals(255, expired.rc(), expired.all());
        assertFalse(expired.out().contains("SHOULD-NOT-RUN"), expired.all());
    }
}
