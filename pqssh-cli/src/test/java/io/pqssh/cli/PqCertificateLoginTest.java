package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * {@code publickey} with user certificates of post-quantum signature keys (ML-DSA, both composite names, SLH-DSA,
 * Falcon), end to end: {@code pqssh keygen -s} certifies the key with an Ed25519 or ML-DSA-65 CA, {@code pqssh ssh}
 * offers the {@code -cert.pub} beside the identity (or a {@code CertificateFile}), {@code pqssh server} (its own
 * process, so its log can be read) checks it against TrustedUserCAKeys or a {@code cert-authority} line with the
 * checks classical certificates get. Each refusal is checked by the reason the server logs.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class PqCertificateLoginTest {
    @TempDir
    static Path dir;

    private static Process server;
    private static int port;
    private static Path log;
    private static Path edCa;
    private static Path mldsaCa;

    private static Path pqsshKeygen(Path file, String type) throws Exception {
        CliHarness.Result r = CliHarness.pqssh("keygen", "-q", "-t", type, "-N", "", "-f", file.toString());
        assertEquals(0, r.rc(), r.all());
        return file;
    }

    /** A fresh {@code type} identity certified by {@code ca} with {@code options} (writes FILE-cert.pub). */
    private static Path certifiedKey(String name, String type, String certType, Path ca, String... options)
            throws Exception {
        Path key = pqsshKeygen(dir.resolve(name), type);
        List<String> args = new ArrayList<>(List.of("keygen", "-s", ca.toString()));
        args.addAll(List.of(options));
        args.add(pub(key).toString());
        CliHarness.Result r = CliHarness.pqssh(args.toArray(String[]::new));
        assertEquals(0, r.rc(), r.all());
        assertTrue(Files.readString(dir.resolve(name + "-cert.pub")).startsWith(certType + " "),
                Files.readString(dir.resolve(name + "-cert.pub")));
        return key;
    }

    @BeforeAll
    static void startServer() throws Exception {
        edCa = pqsshKeygen(dir.resolve("ed25519_ca"), "ed25519");
        mldsaCa = pqsshKeygen(dir.resolve("mldsa_ca"), "mldsa65");
        Files.writeString(dir.resolve("authorized_keys"), "");
        Path config = Files.writeString(dir.resolve("sshd_config"), String.join("\n", "Port 0",
                "ListenAddress 127.0.0.1", "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                "AuthorizedKEMKeysFile none", "StrictModes no", "TrustedUserCAKeys " + pub(edCa)) + "\n");
        Files.writeString(dir.resolve("authorized_keys"), "cert-authority,principals=\"pqops\" "
                + Files.readString(pub(mldsaCa)));
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

    private static CliHarness.Result login(Path identity, String command, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-F", "none", "-p", String.valueOf(port), "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o",
                "IdentityAgent=none", "-o", "IdentitiesOnly=yes", "-i", identity.toString()));
        args.addAll(List.of(options));
        args.addAll(List.of(CliHarness.user() + "@127.0.0.1", command));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    private static String fingerprint(Path pubFile) throws Exception {
        return KeyFingerprints.sha256(PublicKeyLine.parse(Files.readString(pubFile).strip()).blob());
    }

    /** Logged in, and the server logged sshd's {@code Accepted publickey ... LABEL-CERT fp ID id ... CA ...}. */
    private static void assertAccepted(Path key, String label, String keyId, String caLabel, Path ca,
            String... options) throws Exception {
        CliHarness.Result r = login(key, "echo pq-cert-login", options);
        assertEquals(0, r.rc(), r.all());
        assertEquals("pq-cert-login", r.out().strip(), r.all());
        Pattern accepted = Pattern.compile(".* Accepted publickey for " + Pattern.quote(CliHarness.user())
                + " from 127\\.0\\.0\\.1 port \\d+ ssh2: " + Pattern.quote(label) + "-CERT "
                + Pattern.quote(fingerprint(pub(key))) + " ID " + Pattern.quote(keyId) + " \\(serial \\d+\\) CA "
                + Pattern.quote(caLabel) + " " + Pattern.quote(fingerprint(pub(ca))) + "$");
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines()
                .anyMatch(l -> accepted.matcher(l).matches()),
                () -> "no " + accepted + " line:\n" + CliHarness.read(log));
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
    void mlDsa65CertificateFromAnEd25519CaInTrustedUserCaKeys() throws Exception {
        Path key = certifiedKey("id_mldsa65", "mldsa65", "ssh-mldsa-65-cert-v01@openssh.com", edCa, "-I",
                "mldsa65-by-ed", "-z", "7", "-n", "someone," + CliHarness.user(), "-V", "-5m:+1h");
        assertAccepted(key, "MLDSA-65", "mldsa65-by-ed", "ED25519", edCa);
    }

    @Test
    void mlDsa65CertificateFromAnMlDsa65CaInACertAuthorityLine() throws Exception {
        Path key = certifiedKey("id_mldsa65_pq", "mldsa65", "ssh-mldsa-65-cert-v01@openssh.com", mldsaCa, "-I",
                "mldsa65-by-mldsa", "-n", "pqops", "-O", "force-command=echo forced-by-pq-cert");
        CliHarness.Result r = login(key, "echo asked-for");
        assertEquals(0, r.rc(), r.all());
        assertEquals("forced-by-pq-cert", r.out().strip(), "the certificate's force-command runs: " + r.all());
        String caFp = fingerprint(pub(mldsaCa));
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines().anyMatch(l -> l.contains(
                "ID mldsa65-by-mldsa (serial 0) CA MLDSA-65 " + caFp)
                && l.contains("Accepted publickey")), () -> "no Accepted line:\n" + CliHarness.read(log));
    }

    @Test
    void compositeCertificatesInBothNamesAreAccepted() throws Exception {
        Path ietf = certifiedKey("id_composite", "mldsa44-ed25519", "ssh-mldsa44-ed25519-cert", edCa, "-I",
                "composite-ietf", "-n", CliHarness.user());
        assertAccepted(ietf, "MLDSA44-ED25519", "composite-ietf", "ED25519", edCa);
        Path openssh = certifiedKey("id_composite_105", "mldsa44-ed25519@openssh.com",
                "ssh-mldsa44-ed25519-cert-v01@openssh.com", mldsaCa, "-I", "composite-105", "-n", "pqops");
        assertAccepted(openssh, "MLDSA44-ED25519", "composite-105", "MLDSA-65", mldsaCa);
    }

    @Test
    void slhDsaAndFalconCertificatesOfferedThroughCertificateFile() throws Exception {
        Path slh = certifiedKey("id_slh", "slhdsa128f", "ssh-slhdsapuresha2128f-cert-v01@openssh.com", edCa, "-I",
                "slh-cert", "-n", CliHarness.user());
        Path moved = Files.move(dir.resolve("id_slh-cert.pub"), dir.resolve("slh-elsewhere.pub"));
        assertAccepted(slh, "SLHDSAPURESHA2128F", "slh-cert", "ED25519", edCa, "-o", "CertificateFile=" + moved);
        Path falcon = certifiedKey("id_falcon", "falcon512", "ssh-falcon512-cert-v01@openssh.com", edCa, "-I",
                "falcon-cert", "-n", CliHarness.user());
        assertAccepted(falcon, "FALCON512", "falcon-cert", "ED25519", edCa);
    }

    @Test
    void wrongPrincipalIsRefused() throws Exception {
        assertRefused(certifiedKey("id_principal", "mldsa65", "ssh-mldsa-65-cert-v01@openssh.com", edCa, "-I",
                "pq-wrong-principal", "-n", "nobody-" + CliHarness.user()), "pq-wrong-principal",
                "name is not a listed principal");
    }

    @Test
    void certificateOfAnUntrustedCaIsRefused() throws Exception {
        Path stranger = pqsshKeygen(dir.resolve("stranger_ca"), "mldsa65");
        assertRefused(certifiedKey("id_untrusted", "mldsa65", "ssh-mldsa-65-cert-v01@openssh.com", stranger, "-I",
                "pq-untrusted", "-n", CliHarness.user()), "pq-untrusted",
                "certificate signed by unrecognized authority " + fingerprint(pub(stranger)));
    }
}
