package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Post-quantum host certificates: {@code pqssh server}'s {@code HostCertificate} of an ML-DSA-65 or composite host
 * key (made by {@code pqssh keygen -s -h}) is verified by {@code pqssh ssh} through an {@code @cert-authority}
 * known_hosts line as a classical host certificate is; a CA the line does not name, or an {@code @revoked} one, is
 * refused with ssh's messages.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class PqHostCertificateTest {
    @TempDir
    Path dir;

    private ForwardingHarness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private Path pqsshKeygen(String name, String type) throws Exception {
        Path file = dir.resolve(name);
        CliHarness.Result r = CliHarness.pqssh("keygen", "-q", "-t", type, "-N", "", "-f", file.toString());
        assertEquals(0, r.rc(), r.all());
        return file;
    }

    /** {@code pqssh keygen -s CA -h -I ID -n 127.0.0.1 KEY.pub}: the host certificate, of {@code certType}. */
    private Path hostCert(Path ca, Path key, String id, String certType) throws Exception {
        CliHarness.Result r = CliHarness.pqssh("keygen", "-s", ca.toString(), "-h", "-I", id, "-n", "127.0.0.1",
                pub(key).toString());
        assertEquals(0, r.rc(), r.all());
        Path cert = key.resolveSibling(key.getFileName() + "-cert.pub");
        assertTrue(Files.readString(cert).startsWith(certType + " "), Files.readString(cert));
        return cert;
    }

    private Path knownHosts(String file, String... lines) throws Exception {
        return Files.writeString(dir.resolve(file), String.join("", lines));
    }

    private String line(String marker, String hosts, Path key) throws Exception {
        return marker + " " + hosts + " " + Files.readString(pub(key));
    }

    private CliHarness.Result pqsshSsh(int port, Path knownHosts, Path key, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "GlobalKnownHostsFile=none", "-o", "KEMAuthentication=no", "-o", "IdentityAgent=none",
                "-i", key.toString(), "-p", String.valueOf(port), "-v"));
        args.addAll(List.of(extra));
        args.addAll(List.of(CliHarness.user() + "@127.0.0.1", "echo via-pqssh"));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    @Test
    void mlDsa65HostCertificateAcceptedThroughCertAuthorityAndRefusedWhenUntrustedOrRevoked() throws Exception {
        h = new ForwardingHarness(dir);
        Path key = h.userKey();
        Path ca = pqsshKeygen("host_ca", "ed25519");
        Path hostKey = pqsshKeygen("ssh_host_mldsa65_key", "mldsa65");
        Path cert = hostCert(ca, hostKey, "pq-host", "ssh-mldsa-65-cert-v01@openssh.com");
        int port = h.startServer(h.authorizedKeys(), "-o", "HostKey=" + hostKey, "-o", "HostCertificate=" + cert);

        Path trusted = knownHosts("known_hosts_ca", line("@cert-authority", "127.0.0.1,[127.0.0.1]:*", ca));
        CliHarness.Result ok = pqsshSsh(port, trusted, key);
        assertEquals(0, ok.rc(), ok.all());
        assertEquals("via-pqssh", ok.out().strip(), ok.all());
        assertTrue(ok.err().contains("kex: host key algorithm: ssh-mldsa-65-cert-v01@openssh.com")
                && ok.err().contains("Server host certificate: ssh-mldsa-65-cert-v01@openssh.com ")
                && ok.err().contains("ID \"pq-host\" CA ssh-ed25519 ")
                && ok.err().contains("Host '[127.0.0.1]:" + port + "' is known and matches the ")
                && ok.err().contains("-CERT host certificate."), ok.all());
        assertEquals(line("@cert-authority", "127.0.0.1,[127.0.0.1]:*", ca), Files.readString(trusted),
                "nothing recorded in known_hosts");

        // a CA known_hosts does not name: checked as the plain key, which is unknown here
        Path stranger = pqsshKeygen("stranger_ca", "ed25519");
        Path untrusted = knownHosts("known_hosts_stranger", line("@cert-authority", "*", stranger));
        CliHarness.Result refused = pqsshSsh(port, untrusted, key);
        assertEquals(255, refused.rc(), refused.all());
        assertFalse(refused.out().contains("via-pqssh"), refused.all());
        assertTrue(refused.err().contains("No matching CA found. Retry with plain key")
                && refused.err().contains("Host key verification failed."), refused.all());

        // the CA @revoked: refused, with no retry as the plain key even though that is known
        Path revoked = knownHosts("known_hosts_revoked", line("@cert-authority", "*", ca),
                line("@revoked", "*", ca), "[127.0.0.1]:" + port + " " + Files.readString(pub(hostKey)));
        CliHarness.Result gone = pqsshSsh(port, revoked, key);
        assertEquals(255, gone.rc(), gone.all());
        assertFalse(gone.out().contains("via-pqssh"), gone.all());
        assertTrue(gone.err().contains("-CERT host key for [127.0.0.1]:" + port + " is marked as revoked."),
                gone.all());
    }

    @Test
    void compositeHostCertificateFromAnMlDsa65Ca() throws Exception {
        h = new ForwardingHarness(dir);
        Path key = h.userKey();
        Path ca = pqsshKeygen("host_ca", "mldsa65");
        Path hostKey = pqsshKeygen("ssh_host_composite_key", "mldsa44-ed25519");
        Path cert = hostCert(ca, hostKey, "composite-host", "ssh-mldsa44-ed25519-cert");
        int port = h.startServer(h.authorizedKeys(), "-o", "HostKey=" + hostKey, "-o", "HostCertificate=" + cert);
        Path trusted = knownHosts("known_hosts_ca", line("@cert-authority", "[127.0.0.1]:*", ca));
        CliHarness.Result ok = pqsshSsh(port, trusted, key);
        assertEquals(0, ok.rc(), ok.all());
        assertEquals("via-pqssh", ok.out().strip(), ok.all());
        assertTrue(ok.err().contains("kex: host key algorithm: ssh-mldsa44-ed25519-cert")
                && ok.err().contains("ID \"composite-host\" CA ssh-mldsa-65 ")
                && ok.err().contains("-CERT host certificate."), ok.all());
    }
}
