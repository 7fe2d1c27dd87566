package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PublicKeyLine;

/**
 * {@code publickey-kem} with ML-KEM user certificates (docs/publickey-kem.md 9.5), end to end: {@code pqssh keygen -s}
 * signs an ML-KEM-768 key with an Ed25519 or ML-DSA CA, {@code pqssh ssh} offers the {@code -cert.pub} beside the
 * identity, {@code pqssh server} (its own process, so its log can be read) checks it against TrustedUserCAKeys or a
 * {@code cert-authority} line. Each refusal is checked by the reason the server logs, so a certificate refused for
 * some other reason does not pass.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KemCertificateLoginTest {
    @TempDir
    static Path dir;

    private static Process server;
    private static int port;
    private static Path log;
    private static Path edCa;
    private static Path revoked;

    private static Path pqsshKeygen(Path file, String type) throws Exception {
        CliHarness.Result r = CliHarness.pqssh("keygen", "-q", "-t", type, "-N", "", "-f", file.toString());
        assertEquals(0, r.rc(), r.all());
        return file;
    }

    /** A fresh ML-KEM-768 identity certified by {@code ca} with {@code options} (writes FILE-cert.pub). */
    private static Path certifiedKemKey(String name, Path ca, String... options) throws Exception {
        Path key = pqsshKeygen(dir.resolve(name), "mlkem768");
        List<String> args = new ArrayList<>(List.of("keygen", "-s", ca.toString()));
        args.addAll(List.of(options));
        args.add(pub(key).toString());
        CliHarness.Result r = CliHarness.pqssh(args.toArray(String[]::new));
        assertEquals(0, r.rc(), r.all());
        assertTrue(Files.readString(dir.resolve(name + "-cert.pub")).startsWith("mlkem768-cert-v01@pqssh.io "));
        return key;
    }

    @BeforeAll
    static void startServer() throws Exception {
        edCa = pqsshKeygen(dir.resolve("ed25519_ca"), "ed25519");
        revoked = Files.writeString(dir.resolve("revoked_keys"), "");
        Files.writeString(dir.resolve("authorized_keys"), "");
        Path config = Files.writeString(dir.resolve("sshd_config"), String.join("\n", "Port 0",
                "ListenAddress 127.0.0.1", "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "AuthorizedKEMKeysFile none", "StrictModes no", "PubkeyAuthentication no",
                "TrustedUserCAKeys " + pub(edCa), "RevokedKeys " + revoked) + "\n");
        Path portFile = dir.resolve("port");
        log = dir.resolve("server.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java,
                // the reason a certificate is refused (logged below sshd's INFO lines by default)
                "-Dorg.slf4j.simpleLogger.log.io.pqssh.server.CertificateAuthorizer=info",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "server", "-D", "-f",
                config.toString(), "--port-file", portFile.toString())
                .directory(dir.toFile()).redirectError(log.toFile()).redirectOutput(dir.resolve("out").toFile());
        pb.environment().put("PQSSH_CONFIG_DIR", dir.resolve("config").toString());
        server = pb.start();
        CliHarness.waitUntil(Duration.ofSeconds(60), () -> !server.isAlive()
                || CliHarness.read(portFile).strip().matches("\\d+"),
                () -> "pqssh server wrote no port:\n" + CliHarness.read(log));
        assertTrue(server.isAlive(), CliHarness.read(log));
        port = Integer.parseInt(CliHarness.read(portFile).strip());
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                server.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static CliHarness.Result login(Path identity, String command) throws Exception {
        return CliHarness.pqssh("ssh", "-F", "none", "-p", String.valueOf(port), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "IdentityAgent=none",
                "-i", identity.toString(), CliHarness.user() + "@127.0.0.1", command);
    }

    private static String fingerprint(Path pubFile) throws Exception {
        return KeyFingerprints.sha256(PublicKeyLine.parse(Files.readString(pubFile).strip()).blob());
    }

    /** Refused: exit 255, the command did not run, and the server logged {@code reason} for this key ID. */
    private static void assertRefused(Path identity, String keyId, String reason) throws Exception {
        CliHarness.Result r = login(identity, "echo SHOULD-NOT-RUN");
        assertEquals(255, r.rc(), r.all());
        assertFalse(r.out().contains("SHOULD-NOT-RUN"), r.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines()
                .anyMatch(l -> l.contains(keyId) && l.contains(reason)),
                () -> "no '" + reason + "' for " + keyId + " in the server log:\n" + CliHarness.read(log));
        assertFalse(CliHarness.read(log).lines().anyMatch(l -> l.contains("Accepted") && l.contains(keyId)),
                CliHarness.read(log));
    }

    @Test
    void ed25519CaFromTrustedUserCaKeysLogsInWithSshdsCertificateLogLine() throws Exception {
        Path key = certifiedKemKey("id_ok", edCa, "-I", "kem-ok", "-z", "7", "-n", "someone," + CliHarness.user(),
                "-V", "-5m:+1h", "-O", "source-address=127.0.0.1/32");
        CliHarness.Result r = login(key, "echo kem-cert-login");
        assertEquals(0, r.rc(), r.all());
        assertEquals("kem-cert-login", r.out().strip(), r.all());
        Pattern accepted = Pattern.compile(".* Accepted publickey-kem for " + Pattern.quote(CliHarness.user())
                + " from 127\\.0\\.0\\.1 port \\d+ ssh2: MLKEM768-CERT " + Pattern.quote(fingerprint(pub(key)))
                + " ID kem-ok \\(serial 7\\) CA ED25519 " + Pattern.quote(fingerprint(pub(edCa))) + "$");
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines()
                .anyMatch(l -> accepted.matcher(l).matches()), () -> "no Accepted line:\n" + CliHarness.read(log));
    }

    @Test
    void mlDsaCaFromACertAuthorityLineWithPrincipals() throws Exception {
        Path mldsaCa = pqsshKeygen(dir.resolve("mldsa_ca"), "mldsa65");
        Files.writeString(dir.resolve("authorized_keys"), "cert-authority,principals=\"kemops\" "
                + Files.readString(pub(mldsaCa)), java.nio.file.StandardOpenOption.APPEND);
        Path key = certifiedKemKey("id_mldsa", mldsaCa, "-I", "kem-by-mldsa", "-n", "kemops",
                "-O", "force-command=echo forced-by-kem-cert");
        CliHarness.Result r = login(key, "echo asked-for");
        assertEquals(0, r.rc(), r.all());
        assertEquals("forced-by-kem-cert", r.out().strip(), "the certificate's force-command runs: " + r.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines().anyMatch(l -> l.contains(
                "ID kem-by-mldsa (serial 0) CA MLDSA-65 ") && l.contains("Accepted publickey-kem")),
                () -> "no Accepted line:\n" + CliHarness.read(log));
        // the same CA's certificate naming only the user: principals= replaces the user name
        Path userOnly = certifiedKemKey("id_mldsa_user", mldsaCa, "-I", "kem-mldsa-user", "-n", CliHarness.user());
        assertRefused(userOnly, "kem-mldsa-user", "name is not a listed principal");
    }

    @Test
    void wrongPrincipalIsRefused() throws Exception {
        assertRefused(certifiedKemKey("id_principal", edCa, "-I", "kem-wrong-principal", "-n",
                "nobody-" + CliHarness.user()), "kem-wrong-principal", "name is not a listed principal");
    }

    @Test
    void expiredCertificateIsRefused() throws Exception {
        assertRefused(certifiedKemKey("id_expired", edCa, "-I", "kem-expired", "-n", CliHarness.user(), "-V",
                "20200101:20200102"), "kem-expired", "Certificate invalid: expired");
    }

    @Test
    void certificateOfAnUntrustedCaIsRefused() throws Exception {
        Path stranger = pqsshKeygen(dir.resolve("stranger_ca"), "ed25519");
        assertRefused(certifiedKemKey("id_untrusted", stranger, "-I", "kem-untrusted", "-n", CliHarness.user()),
                "kem-untrusted", "certificate signed by unrecognized authority " + fingerprint(pub(stranger)));
    }

    @Test
    void revokedCertifiedKeyIsRefused() throws Exception {
        Path key = certifiedKemKey("id_revoked", edCa, "-I", "kem-revoked", "-n", CliHarness.user());
        Files.writeString(revoked, Files.readString(pub(key)), java.nio.file.StandardOpenOption.APPEND);
        CliHarness.Result r = login(key, "echo SHOULD-NOT-RUN");
        assertEquals(255, r.rc(), r.all());
        assertFalse(r.out().contains("SHOULD-NOT-RUN"), r.all());
        String fp = fingerprint(pub(key));
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines().anyMatch(l -> l.contains(
                "Authentication key MLKEM768-CERT " + fp) && l.contains("revoked by file " + revoked)),
                () -> "no revocation line:\n" + CliHarness.read(log));
        assertFalse(CliHarness.read(log).contains("ID kem-revoked"), CliHarness.read(log));
    }

    @Test
    void sourceAddressMismatchIsRefused() throws Exception {
        assertRefused(certifiedKemKey("id_source", edCa, "-I", "kem-source", "-n", CliHarness.user(), "-O",
                "source-address=192.0.2.0/24"), "kem-source", "not from a permitted source address (127.0.0.1)");
    }

    @Test
    void certificateWithATamperedSignatureIsRefused() throws Exception {
        Path key = certifiedKemKey("id_tampered", edCa, "-I", "kem-tampered", "-n", CliHarness.user());
        Path cert = dir.resolve("id_tampered-cert.pub");
        String[] f = Files.readString(cert).strip().split(" ");
        byte[] blob = Base64.getDecoder().decode(f[1]);
        blob[blob.length - 1] ^= 0x01; // the last byte of the Ed25519 signature
        Files.writeString(cert, f[0] + " " + Base64.getEncoder().encodeToString(blob) + "\n");
        assertRefused(key, "kem-tampered", "Certificate signature is invalid");
    }
}
