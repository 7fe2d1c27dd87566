package io.pqssh.mina.kex;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.mina.PqsshVersion;
import io.pqssh.mina.TestKeys;
import io.pqssh.client.PqsshClient;
import io.pqssh.server.PqsshServer;

/**
 * The name-lists of pqssh's default KEXINIT, read off the wire: the client's equal OpenSSH 10.5's (fixture
 * {@code openssh-10.5-defaults.properties}, copied from its myproposal.h) except the differences the fixture
 * lists and docs/server-config.md documents; the server offers no SHA-1 MAC, no CBC, no pre-auth zlib, and names
 * pqssh in its identification string.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenSshDefaultsTest {
    private static Properties fixture() throws IOException {
        Properties p = new Properties();
        try (InputStream in = OpenSshDefaultsTest.class.getResourceAsStream("openssh-10.5-defaults.properties")) {
            if (in == null) {
                throw new IOException("fixture openssh-10.5-defaults.properties is missing");
            }
            p.load(in);
        }
        return p;
    }

    private static List<String> names(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new AssertionError("fixture has no " + key);
        }
        return v.isEmpty() ? List.of() : Arrays.asList(v.split(","));
    }

    private static List<String> without(List<String> base, List<String> removed) {
        List<String> out = new ArrayList<>(base);
        for (String r : removed) {
            assertTrue(out.remove(r), "fixture removes " + r + ", which OpenSSH does not offer");
        }
        return out;
    }

    static KexInitCapture clientKexInit(PqsshClient.Builder builder) throws Exception {
        try (KexInitCapture.Listener listener = new KexInitCapture.Listener();
                PqsshClient client = builder.serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                        .warningSink(w -> { }).timeout(Duration.ofSeconds(20)).start()) {
            Thread login = new Thread(() -> {
                try {
                    client.login("alice", "127.0.0.1", listener.port()).close();
                } catch (Exception expected) {
                    // the capturing peer hangs up after the KEXINIT
                }
            }, "kexinit-capture-client");
            login.setDaemon(true);
            login.start();
            KexInitCapture c = listener.accept();
            login.join(20_000);
            return c;
        }
    }

    @Test
    void clientDefaultsAreOpenSsh105sWithTheDocumentedDifferences() throws Exception {
        Properties f = fixture();
        KexInitCapture c = clientKexInit(PqsshClient.builder());

        List<String> kex = new ArrayList<>(names(f, "openssh.kex"));
        kex.addAll(kex.indexOf(f.getProperty("pqssh.kex.insert-after")) + 1, names(f, "pqssh.kex.insert"));
        kex.addAll(names(f, "openssh.kex.client-markers"));
        assertEquals(kex, c.list(KexInitCapture.KEX), "KexAlgorithms");

        List<String> hostKeys = without(names(f, "openssh.hostkey"), names(f, "pqssh.hostkey.remove"));
        hostKeys.addAll(names(f, "pqssh.hostkey.append-certificates"));
        hostKeys.addAll(names(f, "pqssh.hostkey.append"));
        // the client also offers OpenSSH 10.6's name of the ML-DSA-44+Ed25519 composite (issue 23), before the
        // 10.4/10.5 one, so it verifies host keys of either generation; the library's server list keeps one name
        hostKeys.add(hostKeys.indexOf("ssh-mldsa44-ed25519@openssh.com"), "ssh-mldsa44-ed25519");
        assertEquals(hostKeys, c.list(KexInitCapture.HOST_KEY), "HostKeyAlgorithms");

        assertEquals(names(f, "openssh.cipher"), c.list(KexInitCapture.CIPHER_C2S), "Ciphers c2s");
        assertEquals(names(f, "openssh.cipher"), c.list(KexInitCapture.CIPHER_S2C), "Ciphers s2c");
        List<String> macs = without(names(f, "openssh.mac"), names(f, "pqssh.mac.remove"));
        assertEquals(macs, c.list(KexInitCapture.MAC_C2S), "MACs c2s");
        assertEquals(macs, c.list(KexInitCapture.MAC_S2C), "MACs s2c");
        assertEquals(names(f, "openssh.compression"), c.list(KexInitCapture.COMPRESSION_C2S), "Compression c2s");
        assertEquals(names(f, "openssh.compression"), c.list(KexInitCapture.COMPRESSION_S2C), "Compression s2c");

        assertNoWeakDefaults(c);
        assertEquals("SSH-2.0-" + PqsshVersion.softwareVersion(), c.identification());
    }

    @Test
    void serverOffersNoSha1MacNoCbcNoPreAuthZlibAndNamesPqssh() throws Exception {
        try (PqsshServer srv = PqsshServer.builder().host("127.0.0.1").port(0)
                .hostKeys(KeyPairProvider.wrap(TestKeys.ed25519())).password((u, p, s) -> false).start()) {
            KexInitCapture c = KexInitCapture.fromServer(srv.port());
            assertNoWeakDefaults(c);
            assertEquals(List.of("none", "zlib@openssh.com"), c.list(KexInitCapture.COMPRESSION_S2C));
            assertEquals(List.of("none", "zlib@openssh.com"), c.list(KexInitCapture.COMPRESSION_C2S));
            assertEquals(names(fixture(), "openssh.cipher"), c.list(KexInitCapture.CIPHER_S2C));
            assertTrue(c.identification().matches("SSH-2\\.0-pqssh_[0-9]+\\.[0-9]+(\\.[0-9]+)?"), c.identification());
            assertEquals("SSH-2.0-" + PqsshVersion.softwareVersion(), c.identification());
            assertFalse(c.identification().toUpperCase().contains("SSHD"), c.identification());
        }
    }

    @Test
    void oldServersGetTheEcdhAndDiffieHellmanFallbacks() throws Exception {
        // one of each kind (the larger DH groups cost seconds each on a small CI machine)
        for (String kex : List.of("ecdh-sha2-nistp256", "diffie-hellman-group14-sha256")) {
            try (PqsshServer srv = PqsshServer.builder().host("127.0.0.1").port(0).kex(List.of(kex))
                    .hostKeys(KeyPairProvider.wrap(TestKeys.ed25519())).password((u, p, s) -> "pw".equals(p)).start();
                    PqsshClient client = PqsshClient.builder().serverKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE)
                            .warningSink(w -> { }).password("pw").timeout(Duration.ofSeconds(20)).start();
                    org.apache.sshd.client.session.ClientSession s = client.login("alice", "127.0.0.1", srv.port())) {
                assertTrue(s.isAuthenticated(), kex);
                assertEquals(kex, s.getNegotiatedKexParameter(org.apache.sshd.common.kex.KexProposalOption.ALGORITHMS));
            }
        }
    }

    @Test
    void softwareVersionComesFromTheBuild() {
        // Maven filtered the project version in; an unfiltered "${project.version}" would fail to load
        assertTrue(PqsshVersion.version().matches("[0-9]+\\.[0-9]+.*"), PqsshVersion.version());
        assertTrue(PqsshVersion.softwareVersion().startsWith("pqssh_" + PqsshVersion.version().split("-")[0]));
        assertFalse(PqsshVersion.softwareVersion().substring(1).contains("-"), "RFC 4253 4.2: no minus sign");
    }

    private static void assertNoWeakDefaults(KexInitCapture c) {
        for (int i = 0; i < 8; i++) {
            for (String n : c.list(i)) {
                assertFalse(n.equals("ssh-rsa") || n.equals("ssh-rsa-cert-v01@openssh.com") || n.equals("ssh-dss")
                        || n.endsWith("-cbc") || n.contains("cbc@") || n.startsWith("hmac-sha1") || n.startsWith("hmac-md5")
                        || n.equals("zlib") || n.startsWith("arcfour") || n.equals("3des-cbc")
                        || n.equals("diffie-hellman-group1-sha1") || n.equals("diffie-hellman-group14-sha1")
                        || n.equals("diffie-hellman-group-exchange-sha1"), "weak default offered: " + n + " in "
                                + c.list(i));
            }
        }
    }
}
