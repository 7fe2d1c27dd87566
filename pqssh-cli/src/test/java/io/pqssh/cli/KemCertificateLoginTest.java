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
import java.util.Map;
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

    private static Server server;
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

    /** A {@code pqssh server} process, its port and its log (stderr). */
    private record Server(Process process, int port, Path log) {
        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** Starts {@code pqssh server} with the shared files and {@code extra} sshd_config lines. */
    private static Server start(String name, String... extra) throws Exception {
        List<String> lines = new ArrayList<>(List.of("Port 0", "ListenAddress 127.0.0.1",
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"), "AuthorizedKEMKeysFile none",
                "StrictModes no", "TrustedUserCAKeys " + pub(edCa), "RevokedKeys " + revoked));
        lines.addAll(List.of(extra));
        Path config = Files.writeString(dir.resolve(name + "_config"), String.join("\n", lines) + "\n");
        Path portFile = dir.resolve(name + ".port");
        Path serverLog = dir.resolve(name + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java,
                // the reason a certificate is refused (logged below sshd's INFO lines by default)
                "-Dorg.slf4j.simpleLogger.log.io.pqssh.server.CertificateAuthorizer=info",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "server", "-D", "-f",
                config.toString(), "--port-file", portFile.toString())
                .directory(dir.toFile()).redirectError(serverLog.toFile())
                .redirectOutput(dir.resolve(name + ".out").toFile());
        pb.environment().put("PQSSH_CONFIG_DIR", dir.resolve("config").toString());
        Process p = pb.start();
        CliHarness.waitUntil(Duration.ofSeconds(60), () -> !p.isAlive()
                || CliHarness.read(portFile).strip().matches("\\d+"),
                () -> "pqssh server wrote no port:\n" + CliHarness.read(serverLog));
        assertTrue(p.isAlive(), CliHarness.read(serverLog));
        return new Server(p, Integer.parseInt(CliHarness.read(portFile).strip()), serverLog);
    }

    @BeforeAll
    static void startServer() throws Exception {
        edCa = pqsshKeygen(dir.resolve("ed25519_ca"), "ed25519");
        revoked = Files.writeString(dir.resolve("revoked_keys"), "");
        Files.writeString(dir.resolve("authorized_keys"), "");
        server = start("server", "PubkeyAuthentication no");
        port = server.port();
        log = server.log();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private static CliHarness.Result login(Path identity, String command) throws Exception {
        return loginTo(port, command, identity);
    }

    private static CliHarness.Result loginTo(int serverPort, String command, Path... identities) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-F", "none", "-p", String.valueOf(serverPort), "-o",
                "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o",
                "IdentityAgent=none"));
        for (Path i : identities) {
            args.addAll(List.of("-i", i.toString()));
        }
        args.addAll(List.of(CliHarness.user() + "@127.0.0.1", command));
        return CliHarness.pqssh(args.toArray(String[]::new));
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

    /**
     * Refused by RevokedKeys: exit 255, the command did not run, and the server logged sshd's
     * {@code auth_key_is_revoked} line for the certified key's fingerprint (sshd prints a certificate's certified
     * key's), and no certificate line for this key ID.
     */
    private static void assertRevoked(Path identity, String keyId) throws Exception {
        CliHarness.Result r = login(identity, "echo SHOULD-NOT-RUN");
        assertEquals(255, r.rc(), r.all());
        assertFalse(r.out().contains("SHOULD-NOT-RUN"), r.all());
        String line = "Authentication key MLKEM768-CERT " + fingerprint(pub(identity)) + " revoked by file "
                + revoked;
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines().anyMatch(l -> l.endsWith(line)),
                () -> "no '" + line + "' in the server log:\n" + CliHarness.read(log));
        assertFalse(CliHarness.read(log).contains("ID " + keyId + " "), CliHarness.read(log));
    }

    /** Logged in with RevokedKeys in place: the revocations above are of their certificates only. */
    private static void assertLogsIn(Path identity, String keyId) throws Exception {
        CliHarness.Result r = login(identity, "echo not-revoked");
        assertEquals(0, r.rc(), r.all());
        assertEquals("not-revoked", r.out().strip(), r.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines().anyMatch(l -> l.contains(
                "Accepted publickey-kem") && l.contains("ID " + keyId + " ")),
                () -> "no Accepted line for " + keyId + ":\n" + CliHarness.read(log));
    }

    /** RevokedKeys holds {@code content} while {@code checks} run, then is empty again. */
    private static void withRevokedKeys(byte[] content, ThrowingRunnable checks) throws Exception {
        Files.write(revoked, content);
        try {
            checks.run();
        } finally {
            Files.write(revoked, new byte[0]);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** {@code pqssh keygen -Q -f KRL}: each of {@code revokedCerts} REVOKED, {@code okCert} ok, exit 1. */
    private static void assertKrlCheck(Path krl, List<Path> revokedCerts, Path okCert) throws Exception {
        List<String> args = new ArrayList<>(List.of("keygen", "-Q", "-f", krl.toString()));
        revokedCerts.forEach(c -> args.add(c.toString()));
        args.add(okCert.toString());
        CliHarness.Result q = CliHarness.pqssh(args.toArray(String[]::new));
        assertEquals(1, q.rc(), q.all());
        for (Path c : revokedCerts) {
            assertTrue(q.out().lines().anyMatch(l -> l.startsWith(c + " ") && l.endsWith(": REVOKED")), q.all());
        }
        assertTrue(q.out().lines().anyMatch(l -> l.startsWith(okCert + " ") && l.endsWith(": ok")), q.all());
    }

    private static Path cert(Path key) {
        return dir.resolve(key.getFileName() + "-cert.pub");
    }

    @Test
    void revokedCertifiedKeyIsRefused() throws Exception {
        Path key = certifiedKemKey("id_revoked", edCa, "-I", "kem-revoked", "-n", CliHarness.user());
        withRevokedKeys(Files.readAllBytes(pub(key)), () -> assertRevoked(key, "kem-revoked"));
    }

    @Test
    void keyListNamingTheCertificateOrItsCaRevokesIt() throws Exception {
        Path listed = certifiedKemKey("id_list_cert", edCa, "-I", "kem-list-cert", "-z", "31", "-n",
                CliHarness.user());
        Path other = certifiedKemKey("id_list_other", edCa, "-I", "kem-list-other", "-z", "32", "-n",
                CliHarness.user());
        // a listed certificate revokes its key (and so every certificate of it), as sshkey_check_revoked's list
        withRevokedKeys(("# revoked\n" + Files.readString(cert(listed))).getBytes(), () -> {
            assertRevoked(listed, "kem-list-cert");
            assertLogsIn(other, "kem-list-other");
        });
        Path afterCa = certifiedKemKey("id_list_ca", edCa, "-I", "kem-list-ca", "-n", CliHarness.user());
        withRevokedKeys(Files.readAllBytes(pub(edCa)), () -> assertRevoked(afterCa, "kem-list-ca"));
    }

    @Test
    void krlFromPqsshKeygenRevokesBySerialKeyIdCertifiedKeyAndCertificate() throws Exception {
        Path bySerial = certifiedKemKey("id_krl_serial", edCa, "-I", "kem-krl-serial", "-z", "41", "-n",
                CliHarness.user());
        Path byId = certifiedKemKey("id_krl_id", edCa, "-I", "kem-krl-id", "-z", "42", "-n", CliHarness.user());
        Path byKey = certifiedKemKey("id_krl_key", edCa, "-I", "kem-krl-key", "-z", "43", "-n", CliHarness.user());
        Path byCert = certifiedKemKey("id_krl_cert", edCa, "-I", "kem-krl-cert", "-z", "44", "-n",
                CliHarness.user());
        Path control = certifiedKemKey("id_krl_ok", edCa, "-I", "kem-krl-ok", "-z", "45", "-n", CliHarness.user());
        Path spec = Files.writeString(dir.resolve("kem_krl_spec"), "serial: 41\nid: kem-krl-id\nkey: "
                + Files.readString(pub(byKey)));
        Path krl = dir.resolve("kem.krl");
        // the certificate line itself as a second specification file: revoked by its serial, as ssh-keygen -k
        CliHarness.Result made = CliHarness.pqssh("keygen", "-k", "-f", krl.toString(), "-s", pub(edCa).toString(),
                spec.toString(), cert(byCert).toString());
        assertEquals(0, made.rc(), made.all());
        assertKrlCheck(krl, List.of(cert(bySerial), cert(byId), cert(byKey), cert(byCert)), cert(control));
        withRevokedKeys(Files.readAllBytes(krl), () -> {
            assertRevoked(bySerial, "kem-krl-serial");
            assertRevoked(byId, "kem-krl-id");
            assertRevoked(byKey, "kem-krl-key");
            assertRevoked(byCert, "kem-krl-cert");
            assertLogsIn(control, "kem-krl-ok");
        });
    }

    /**
     * ssh-keygen 9.2 cannot read an ML-KEM key line, so it revokes the certified key by its SHA256 fingerprint
     * ({@code hash:}); serials and key IDs name only the (Ed25519) CA, which it reads.
     */
    @Test
    void krlFromOpenSshKeygenRevokesBySerialKeyIdAndCertifiedKeyHash() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        Path bySerial = certifiedKemKey("id_sshkrl_serial", edCa, "-I", "kem-sshkrl-serial", "-z", "51", "-n",
                CliHarness.user());
        Path byId = certifiedKemKey("id_sshkrl_id", edCa, "-I", "kem-sshkrl-id", "-z", "52", "-n",
                CliHarness.user());
        Path byHash = certifiedKemKey("id_sshkrl_hash", edCa, "-I", "kem-sshkrl-hash", "-z", "53", "-n",
                CliHarness.user());
        Path control = certifiedKemKey("id_sshkrl_ok", edCa, "-I", "kem-sshkrl-ok", "-z", "54", "-n",
                CliHarness.user());
        Path spec = Files.writeString(dir.resolve("kem_sshkrl_spec"), "serial: 51\nid: kem-sshkrl-id\nhash: "
                + fingerprint(pub(byHash)) + "\n");
        Path krl = dir.resolve("kem-openssh.krl");
        CliHarness.Result made = CliHarness.exec(dir, List.of(CliHarness.SSH_KEYGEN.toString(), "-k", "-f",
                krl.toString(), "-s", pub(edCa).toString(), spec.toString()));
        assertEquals(0, made.rc(), made.all());
        assertKrlCheck(krl, List.of(cert(bySerial), cert(byId), cert(byHash)), cert(control));
        withRevokedKeys(Files.readAllBytes(krl), () -> {
            assertRevoked(bySerial, "kem-sshkrl-serial");
            assertRevoked(byId, "kem-sshkrl-id");
            assertRevoked(byHash, "kem-sshkrl-hash");
            assertLogsIn(control, "kem-sshkrl-ok");
        });
    }

    /** Exit 255, the command did not run, and {@code serverLog} got a line holding every one of {@code parts}. */
    private static void assertRefusedWith(CliHarness.Result r, Path serverLog, String... parts) throws Exception {
        assertEquals(255, r.rc(), r.all());
        assertFalse(r.out().contains("SHOULD-NOT-RUN"), r.all());
        CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(serverLog).lines()
                .anyMatch(l -> java.util.Arrays.stream(parts).allMatch(l::contains)),
                () -> "no line with " + List.of(parts) + " in the server log:\n" + CliHarness.read(serverLog));
    }

    /**
     * {@code publickey-kem-and} (docs/publickey-kem.md 4.2) with the certificate in its KEM fields: the same
     * certificate checks as {@code publickey-kem}, its options apply, and the signature key must be authorized as
     * well; the log line names both.
     */
    @Test
    void hybridPublickeyKemAndCarriesTheKemCertificate() throws Exception {
        Path sigKey = pqsshKeygen(dir.resolve("id_and_sig"), "ed25519");
        Path strangerSig = pqsshKeygen(dir.resolve("id_and_stranger"), "ed25519");
        Files.writeString(dir.resolve("authorized_keys"), Files.readString(pub(sigKey)),
                java.nio.file.StandardOpenOption.APPEND);
        Path kem = certifiedKemKey("id_and", edCa, "-I", "kem-and-ok", "-z", "61", "-n", CliHarness.user(), "-O",
                "force-command=echo forced-by-kem-and");
        Path wrongPrincipal = certifiedKemKey("id_and_principal", edCa, "-I", "kem-and-principal", "-n",
                "nobody-" + CliHarness.user());
        Server hybrid = start("hybrid", "PubkeyAuthentication yes", "AuthenticationMethods publickey-kem-and");
        try {
            CliHarness.Result r = loginTo(hybrid.port(), "echo asked-for", kem, sigKey);
            assertEquals(0, r.rc(), r.all());
            assertEquals("forced-by-kem-and", r.out().strip(), "the certificate's force-command runs: " + r.all());
            Pattern accepted = Pattern.compile(".* Accepted publickey-kem-and for " + Pattern.quote(CliHarness.user())
                    + " from 127\\.0\\.0\\.1 port \\d+ ssh2: MLKEM768-CERT " + Pattern.quote(fingerprint(pub(kem)))
                    + " ID kem-and-ok \\(serial 61\\) CA ED25519 " + Pattern.quote(fingerprint(pub(edCa)))
                    + " ED25519 " + Pattern.quote(fingerprint(pub(sigKey))) + "$");
            CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(hybrid.log()).lines()
                    .anyMatch(l -> accepted.matcher(l).matches()),
                    () -> "no Accepted line:\n" + CliHarness.read(hybrid.log()));

            assertRefusedWith(loginTo(hybrid.port(), "echo SHOULD-NOT-RUN", wrongPrincipal, sigKey), hybrid.log(),
                    "kem-and-principal", "name is not a listed principal");
            // the certificate passes, the signature key is not in authorized_keys: sshd's Failed line names both
            assertRefusedWith(loginTo(hybrid.port(), "echo SHOULD-NOT-RUN", kem, strangerSig), hybrid.log(),
                    "Failed publickey-kem-and for " + CliHarness.user(), "ID kem-and-ok (serial 61)",
                    "ED25519 " + fingerprint(pub(strangerSig)));
            withRevokedKeys(Files.readAllBytes(pub(kem)), () -> assertRefusedWith(loginTo(hybrid.port(),
                    "echo SHOULD-NOT-RUN", kem, sigKey), hybrid.log(), "Authentication key MLKEM768-CERT "
                    + fingerprint(pub(kem)) + " revoked by file " + revoked));
        } finally {
            hybrid.stop();
        }
    }

    /**
     * An ML-KEM key held only in {@code pqssh agent}: {@code pqssh add} adds its {@code -cert.pub} too, and
     * {@code pqssh ssh} (no key file) offers the agent's certificate, which the agent answers for. The plain key is
     * authorized nowhere, so a login without the certificate in the agent fails.
     */
    @Test
    void agentHeldKemKeyOffersItsCertificate() throws Exception {
        Path key = certifiedKemKey("id_agent", edCa, "-I", "kem-in-agent", "-z", "71", "-n", CliHarness.user());
        Path home = Files.createDirectories(dir.resolve("agent_home"));
        Path sock = dir.resolve("pqssh-agent.sock");
        Map<String, String> env = AgentHarness.env(sock, home, null);
        Files.createDirectories(dir.resolve("agent_run"));
        try (ForwardingHarness h = new ForwardingHarness(dir.resolve("agent_run"))) { // stops the agent
            AgentHarness agents = new AgentHarness(dir.resolve("agent_run"), h);
            agents.pqsshAgent(sock, env);
            AgentHarness.Run add = agents.pqssh(env, "add", key.toString());
            assertEquals(0, add.rc(), add.out());
            assertTrue(add.out().contains("Certificate added: " + cert(key) + " (kem-in-agent)"), add.out());
            AgentHarness.Run listed = agents.pqssh(env, "add", "-L");
            assertTrue(listed.out().contains(Files.readString(cert(key)).strip().split(" ")[1]), listed.out());

            String[] ssh = {"ssh", "-F", "none", "-p", String.valueOf(port), "-o", "StrictHostKeyChecking=no", "-o",
                "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "IdentityAgent=" + sock,
                CliHarness.user() + "@127.0.0.1", "echo via-agent-kem-cert"};
            AgentHarness.Run r = agents.pqssh(env, ssh);
            assertEquals(0, r.rc(), r.out());
            assertTrue(r.out().contains("via-agent-kem-cert"), r.out());
            String certText = "MLKEM768-CERT " + fingerprint(pub(key)) + " ID kem-in-agent (serial 71) CA ED25519 ";
            CliHarness.waitUntil(Duration.ofSeconds(20), () -> CliHarness.read(log).lines().anyMatch(l -> l.contains(
                    "Accepted publickey-kem for " + CliHarness.user()) && l.contains(certText)),
                    () -> "no Accepted line:\n" + CliHarness.read(log));

            // the plain key alone (pqssh add -k) is not authorized: the certificate was what logged in
            assertEquals(0, agents.pqssh(env, "add", "-D").rc());
            AgentHarness.Run plain = agents.pqssh(env, "add", "-k", key.toString());
            assertFalse(plain.out().contains("Certificate added"), plain.out());
            AgentHarness.Run refused = agents.pqssh(env, ssh);
            assertEquals(255, refused.rc(), refused.out());
            assertFalse(refused.out().contains("via-agent-kem-cert"), refused.out());
        }
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
