package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host certificates both ways: {@code pqssh server}'s {@code HostCertificate} verified by OpenSSH's ssh through an
 * {@code @cert-authority} known_hosts line, Debian's sshd's verified by {@code pqssh ssh}; a wrong principal, an
 * expired certificate and a revoked CA give ssh's messages (compared with OpenSSH's ssh on the same files).
 */
class HostCertificateTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    /** {@code ssh-keygen -s CA -h -I ID -n PRINCIPALS [-V ...] KEY.pub}, the certificate moved to {@code name}. */
    private Path hostCert(Path ca, Path key, String name, String principals, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH_KEYGEN.toString(), "-q", "-s", ca.toString(), "-h",
                "-I", name, "-n", principals));
        cmd.addAll(List.of(extra));
        cmd.add(pub(key).toString());
        CliHarness.Result r = CliHarness.exec(dir, cmd);
        assertEquals(0, r.rc(), r.all());
        return Files.move(key.resolveSibling(key.getFileName() + "-cert.pub"), dir.resolve(name + "-cert.pub"));
    }

    private Path caLine(String file, Path ca, String marker, String hosts) throws Exception {
        return Files.writeString(dir.resolve(file), marker + " " + hosts + " " + Files.readString(pub(ca)));
    }

    private CliHarness.Result openSsh(int port, Path knownHosts, Path key, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "GlobalKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes", "-i", key.toString(),
                "-p", String.valueOf(port)));
        cmd.addAll(List.of(extra));
        cmd.addAll(List.of(CliHarness.user() + "@127.0.0.1", "echo via-openssh"));
        return CliHarness.exec(dir, cmd);
    }

    private CliHarness.Result pqsshSsh(int port, Path knownHosts, Path key, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "GlobalKnownHostsFile=none", "-o", "KEMAuthentication=no", "-o", "IdentityAgent=none",
                "-i", key.toString(), "-p", String.valueOf(port)));
        args.addAll(List.of(extra));
        args.addAll(List.of(CliHarness.user() + "@127.0.0.1", "echo via-pqssh"));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    /**
     * stderr without ssh's carriage returns and without the log lines of MINA that this test JVM's logger prints
     * (the pqssh launcher's logging keeps them off the terminal).
     */
    private static String messages(String err) {
        return err.lines().map(l -> l.replace("\r", ""))
                .filter(l -> !l.isBlank() && !l.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d+ .*"))
                .collect(Collectors.joining("\n"));
    }

    @Test
    void pqsshServerHostCertificateVerifiedByOpenSsh() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        h = new ForwardingHarness(dir);
        Path key = h.userKey();
        Path ca = CliHarness.sshKeygen(dir.resolve("host_ca"), "ed25519");
        Path hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        Path cert = hostCert(ca, hostKey, "pqssh-host", "127.0.0.1,localhost");
        int port = h.startServer(h.authorizedKeys(), "-o", "HostCertificate=" + cert);
        Path known = caLine("known_hosts_ca", ca, "@cert-authority", "127.0.0.1,[127.0.0.1]:*");

        CliHarness.Result r = openSsh(port, known, key, "-v");
        assertEquals(0, r.rc(), r.all());
        assertEquals("via-openssh", r.out().strip(), r.all());
        assertTrue(r.err().contains("kex: host key algorithm: ssh-ed25519-cert-v01@openssh.com")
                && r.err().contains("is known and matches the ED25519-CERT host certificate."), r.all());
        assertEquals(Files.readString(known), Files.readString(dir.resolve("known_hosts_ca")), "ssh wrote a key");
        // pqssh ssh too, and neither records anything in known_hosts (accept-new adds no plain key)
        CliHarness.Result p = pqsshSsh(port, known, key, "-o", "StrictHostKeyChecking=accept-new", "-v");
        assertEquals(0, p.rc(), p.all());
        assertTrue(p.err().contains("is known and matches the ED25519-CERT host certificate."), p.all());
        assertEquals(caLineText(ca, "127.0.0.1,[127.0.0.1]:*"), Files.readString(known));
    }

    private String caLineText(Path ca, String hosts) throws Exception {
        return "@cert-authority " + hosts + " " + Files.readString(pub(ca));
    }

    @Test
    void openSshdHostCertificatesCheckedByPqsshAsSshDoes() throws Exception {
        h = new ForwardingHarness(dir);
        Path key = h.userKey();
        Path ca = CliHarness.sshKeygen(dir.resolve("host_ca"), "ecdsa");
        Path hostKey = CliHarness.sshKeygen(dir.resolve("sshd_host_key"), "ed25519");
        Path good = hostCert(ca, hostKey, "good", "127.0.0.1");
        Path wrongName = hostCert(ca, hostKey, "wrong-name", "db.example.org");
        Path expired = hostCert(ca, hostKey, "expired", "127.0.0.1", "-V", "20200101:20200102");
        Path wildcard = hostCert(ca, hostKey, "wildcard", "127.0.0.*");
        Path known = caLine("known_hosts_ca", ca, "@cert-authority", "*");

        int goodPort = h.startSshd(h.authorizedKeys(), "HostCertificate " + good);
        CliHarness.Result ok = pqsshSsh(goodPort, known, key, "-v");
        assertEquals(0, ok.rc(), ok.all());
        assertEquals("via-pqssh", ok.out().strip(), ok.all());
        assertTrue(ok.err().contains("kex: host key algorithm: ssh-ed25519-cert-v01@openssh.com")
                && ok.err().contains("Host '[127.0.0.1]:" + goodPort
                        + "' is known and matches the ED25519-CERT host certificate.")
                && ok.err().contains("Found CA key in " + known + ":1"), ok.all());

        // CASignatureAlgorithms without the CA's algorithm (ECDSA): OpenSSH 10's reason, then the plain key
        CliHarness.Result narrowed = pqsshSsh(goodPort, known, key, "-o", "CASignatureAlgorithms=ssh-ed25519");
        assertEquals(255, narrowed.rc(), narrowed.all());
        assertTrue(narrowed.err().contains("Certificate signed with disallowed algorithm"), narrowed.all());

        int wildPort = h.startSshd(h.authorizedKeys(), "HostCertificate " + wildcard);
        assertEquals(0, pqsshSsh(wildPort, known, key).rc(), "a principal pattern naming the host");

        // invalid certificates: ssh prints the reason, then checks the plain key, which is unknown here
        for (Path bad : List.of(wrongName, expired)) {
            int port = h.startSshd(h.authorizedKeys(), "HostCertificate " + bad);
            CliHarness.Result theirs = openSsh(port, known, key);
            CliHarness.Result ours = pqsshSsh(port, known, key);
            assertEquals(255, theirs.rc(), theirs.all());
            assertEquals(255, ours.rc(), ours.all());
            assertFalse(ours.out().contains("via-pqssh"), ours.all());
            assertEquals(messages(theirs.err()), messages(ours.err()), bad + ": pqssh's and ssh's messages");
            assertTrue(ours.err().contains(bad == expired ? "Certificate invalid: expired"
                    : "Certificate invalid: name is not a listed principal"), ours.all());
        }

        // a revoked CA refuses its certificates (no retry with the plain key, even if that is known)
        Path revoked = Files.writeString(dir.resolve("known_hosts_revoked"), Files.readString(known)
                + "@revoked * " + Files.readString(pub(ca)) + "[127.0.0.1]:" + goodPort + " "
                + Files.readString(pub(hostKey)));
        CliHarness.Result theirs = openSsh(goodPort, revoked, key);
        CliHarness.Result ours = pqsshSsh(goodPort, revoked, key);
        assertEquals(255, theirs.rc(), theirs.all());
        assertEquals(255, ours.rc(), ours.all());
        assertEquals(messages(theirs.err()), messages(ours.err()), "revoked CA: pqssh's and ssh's messages");
        assertTrue(ours.err().contains("The ED25519-CERT host key for [127.0.0.1]:" + goodPort
                + " is marked as revoked."), ours.all());

        // a CA that vouches for other hosts only: the certificate is checked as its plain key, known here
        Path otherHosts = Files.writeString(dir.resolve("known_hosts_other"), caLineText(ca, "*.example.org")
                + "[127.0.0.1]:" + goodPort + " " + Files.readString(pub(hostKey)));
        CliHarness.Result plain = pqsshSsh(goodPort, otherHosts, key, "-v");
        assertEquals(0, plain.rc(), plain.all());
        assertTrue(plain.err().contains("No matching CA found. Retry with plain key"), plain.all());
        assertEquals(0, openSsh(goodPort, otherHosts, key).rc());
    }
}
