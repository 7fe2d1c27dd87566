package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * sshd_config's algorithm lists (Ciphers, MACs, KexAlgorithms, HostKeyAlgorithms, PubkeyAcceptedAlgorithms,
 * CASignatureAlgorithms) with sshd's {@code +}, {@code -} and {@code ^} forms: OpenSSH's {@code ssh} cannot
 * negotiate what the file removed, sees the server propose what it put first, and {@code -T} prints the lists;
 * unknown names stop the server with sshd's messages.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ServerAlgorithmsCliTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final String LISTS = String.join("\n",
            "Ciphers -aes128-*",
            "MACs ^hmac-sha2-512",
            "KexAlgorithms ^diffie-hellman-group14-sha256",
            "HostKeyAlgorithms -ssh-ed25519",
            "PubkeyAcceptedAlgorithms -ssh-ed25519",
            "CASignatureAlgorithms -rsa-sha2-*,ssh-ml*", "");

    @Test
    void openSshNegotiatesOnlyWhatTheFileLeaves(@TempDir Path dir) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        String user = CliHarness.user();
        Path ed = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path ecdsa = CliHarness.sshKeygen(dir.resolve("id_ecdsa"), "ecdsa");
        Files.writeString(dir.resolve(user + "_keys"),
                Files.readString(CliHarness.pub(ed)) + Files.readString(CliHarness.pub(ecdsa)));
        Path hostEd = CliHarness.sshKeygen(dir.resolve("host_ed25519"), "ed25519");
        Path hostEcdsa = CliHarness.sshKeygen(dir.resolve("host_ecdsa"), "ecdsa");
        Path cfg = dir.resolve("cfg");
        Files.writeString(cfg, LISTS + String.join("\n", "ListenAddress 127.0.0.1", "HostKey " + hostEd,
                "HostKey " + hostEcdsa, "AuthorizedKeysFile " + dir + "/%u_keys", "StrictModes no",
                "PermitRootLogin yes", ""));
        int port = CliHarness.freePort();
        Path err = dir.resolve("server.err");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "io.pqssh.cli.Main", "server", "-D", "-f", cfg.toString(),
                "-p", Integer.toString(port)).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("server.out").toFile()).redirectError(err.toFile()).start();
        try {
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).contains("pqssh server listening"),
                    () -> "server did not start:\n" + CliHarness.read(err));
            // removed (with a wildcard): no agreement possible
            CliHarness.Result aes128 = ssh(dir, port, user, ecdsa, "-c", "aes128-ctr");
            assertEquals(255, aes128.rc(), aes128.all());
            assertTrue(aes128.err().contains("no matching cipher found"), aes128.all());
            CliHarness.Result gcm = ssh(dir, port, user, ecdsa, "-c", "aes128-gcm@openssh.com");
            assertTrue(gcm.err().contains("no matching cipher found"), gcm.all());
            CliHarness.Result hostEdOnly = ssh(dir, port, user, ecdsa, "-o", "HostKeyAlgorithms=ssh-ed25519");
            assertEquals(255, hostEdOnly.rc(), hostEdOnly.all());
            assertTrue(hostEdOnly.err().contains("no matching host key type found"), hostEdOnly.all());
            // a user key type outside PubkeyAcceptedAlgorithms is refused like a wrong key
            CliHarness.Result edUser = ssh(dir, port, user, ed);
            assertEquals(255, edUser.rc(), edUser.all());
            assertTrue(edUser.err().contains("Permission denied"), edUser.all());
            CliHarness.waitUntil(WAIT, () -> CliHarness.read(err).contains(
                    "signature algorithm ssh-ed25519 not in PubkeyAcceptedAlgorithms"), () -> CliHarness.read(err));
            // what is left works, and what the file put first leads the server's proposal
            CliHarness.Result ok = ssh(dir, port, user, ecdsa, "-vv", "-c", "aes256-ctr", "-m",
                    "hmac-sha2-256,hmac-sha2-512", "-o", "KexAlgorithms=diffie-hellman-group14-sha256");
            assertEquals(0, ok.rc(), ok.all() + "\n" + CliHarness.read(err));
            assertEquals("logged-in", ok.out().strip());
            String peer = ok.err().substring(ok.err().indexOf("peer server KEXINIT proposal"));
            assertTrue(peer.contains("debug2: KEX algorithms: diffie-hellman-group14-sha256,"), peer);
            assertTrue(peer.contains("debug2: MACs stoc: hmac-sha2-512,"), peer);
            assertTrue(peer.contains("debug2: host key algorithms: ") && !peer.matches(
                    "(?s).*host key algorithms: [^\\n]*ssh-ed25519[,\\n].*"), peer);
            // not among pqssh's defaults: usable only because ^ added it
            assertTrue(ok.err().contains("kex: algorithm: diffie-hellman-group14-sha256"), ok.err());
            assertTrue(ok.err().contains("kex: host key algorithm: ecdsa-sha2-nistp256"), ok.err());
            assertTrue(ok.err().contains("cipher: aes256-ctr MAC: hmac-sha2-256"), ok.err());
            // server-sig-algs carries PubkeyAcceptedAlgorithms
            assertTrue(ok.err().matches("(?s).*server-sig-algs=<(?![^>]*ssh-ed25519,)[^>]*ecdsa-sha2-nistp256.*"),
                    ok.err());
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void extendedTestModePrintsTheEffectiveLists(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("cfg");
        Files.writeString(cfg, LISTS);
        CliHarness.Result r = CliHarness.pqssh("server", "-T", "-f", cfg.toString());
        assertEquals(0, r.rc(), r.all());
        List<String> lines = List.of(r.out().split("\n"));
        String ciphers = value(lines, "ciphers");
        assertTrue(!ciphers.contains("aes128") && ciphers.contains("aes256-ctr")
                && ciphers.contains("chacha20-poly1305@openssh.com"), ciphers);
        assertTrue(value(lines, "macs").startsWith("hmac-sha2-512,"), value(lines, "macs"));
        assertEquals(1, count("," + value(lines, "macs") + ",", ",hmac-sha2-512,"), "^ moves, it does not duplicate");
        assertTrue(value(lines, "kexalgorithms").startsWith("diffie-hellman-group14-sha256,mlkem768x25519-sha256,"),
                value(lines, "kexalgorithms"));
        assertTrue(!value(lines, "hostkeyalgorithms").matches("(^|.*,)ssh-ed25519(,.*|$)")
                && value(lines, "hostkeyalgorithms").contains("ssh-ed25519-cert-v01@openssh.com"),
                value(lines, "hostkeyalgorithms"));
        assertTrue(!value(lines, "pubkeyacceptedalgorithms").matches("(^|.*,)ssh-ed25519(,.*|$)"),
                value(lines, "pubkeyacceptedalgorithms"));
        String ca = value(lines, "casignaturealgorithms");
        assertTrue(!ca.contains("rsa-sha2") && !ca.contains("ssh-mldsa") && ca.startsWith("ssh-ed25519,"), ca);
        // without the keywords: pqssh's defaults (OpenSSH's ciphers, no SHA-1 MAC)
        Files.writeString(cfg, "Port 2222\n");
        List<String> def = List.of(CliHarness.pqssh("server", "-T", "-f", cfg.toString()).out().split("\n"));
        assertEquals("chacha20-poly1305@openssh.com,aes128-gcm@openssh.com,aes256-gcm@openssh.com,aes128-ctr,"
                + "aes192-ctr,aes256-ctr", value(def, "ciphers"));
        assertTrue(!value(def, "macs").contains("sha1"), value(def, "macs"));
        // no SHA-1 signatures either, as OpenSSH since 8.8 (MINA's own list has ssh-rsa)
        for (String k : List.of("hostkeyalgorithms", "pubkeyacceptedalgorithms")) {
            assertTrue(!value(def, k).contains("ssh-rsa") && value(def, k).contains("rsa-sha2-512"), value(def, k));
        }
    }

    /**
     * Where the lists do not depend on the defaults (exact lists, key-type patterns) and for several Port and
     * ListenAddress lines, {@code pqssh server -T} prints what OpenSSH's {@code sshd -T} prints for the same file.
     */
    @Test
    void extendedTestModeMatchesSshdForExplicitListsAndSockets(@TempDir Path dir) throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.ensureSshdPrivsepDir();
        Path hostKey = CliHarness.sshKeygen(dir.resolve("host_key"), "ed25519");
        Path cfg = dir.resolve("cfg");
        Files.writeString(cfg, String.join("\n", "Port 2201", "Port 2202", "ListenAddress 127.0.0.1",
                "ListenAddress [::1]:2203", "ListenAddress 127.0.0.1:2204", "AddressFamily any",
                "Ciphers aes256-ctr,aes128-gcm@openssh.com,aes256-cbc", "MACs hmac-sha2-512,hmac-sha1",
                "KexAlgorithms curve25519-sha256,diffie-hellman-group14-sha256",
                // ssh-ed25519* would also match pqssh's composites (ssh-ed25519-mldsa-65), which sshd lacks
                "HostKeyAlgorithms ssh-ed25519,rsa-sha2-*",
                "PubkeyAcceptedAlgorithms ecdsa-sha2-*,ssh-ed25519-c*,ssh-ed25519",
                "CASignatureAlgorithms ssh-ed25519,ecdsa*", ""));
        CliHarness.Result ours = CliHarness.pqssh("server", "-T", "-f", cfg.toString());
        assertEquals(0, ours.rc(), ours.all());
        CliHarness.Result theirs = CliHarness.exec(dir, List.of(CliHarness.SSHD.toString(), "-T", "-f",
                cfg.toString(), "-h", hostKey.toString()));
        assertEquals(0, theirs.rc(), theirs.all());
        for (String k : List.of("port", "addressfamily", "listenaddress", "ciphers", "macs", "kexalgorithms",
                "hostkeyalgorithms", "pubkeyacceptedalgorithms", "casignaturealgorithms")) {
            assertEquals(all(theirs.out(), k), all(ours.out(), k), k);
        }
    }

    private static List<String> all(String out, String keyword) {
        return out.lines().filter(l -> l.startsWith(keyword + " ")).toList();
    }

    @Test
    void unknownNamesAreRefusedAsSshdRefusesThem(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("cfg");
        expect255(cfg, "Port 2222\nCiphers aes256-ctr,no-such-cipher\n",
                cfg + " line 2: Bad SSH2 cipher spec 'aes256-ctr,no-such-cipher'.");
        expect255(cfg, "MACs +hmac-sha9\n", cfg + " line 1: Bad SSH2 mac spec '+hmac-sha9'.");
        expect255(cfg, "KexAlgorithms ^nokex\n", cfg + " line 1: Bad SSH2 KexAlgorithms '^nokex'.");
        expect255(cfg, "HostKeyAlgorithms ssh-nothing*\n", cfg + " line 1: Bad key types 'ssh-nothing*'.");
        expect255(cfg, "PubkeyAcceptedAlgorithms +nope\n", cfg + " line 1: Bad key types '+nope'.");
        expect255(cfg, "CASignatureAlgorithms ssh-ed25519-cert-v01@openssh.com\n",
                cfg + " line 1: Bad key types 'ssh-ed25519-cert-v01@openssh.com'.");
        expect255(cfg, "MACs umac-64@openssh.com\n", "umac-64@openssh.com is OpenSSH's but not implemented by pqssh");
        expect255(cfg, "Ciphers -*\n", cfg + " line 1: Ciphers '-*' leaves no algorithm");
        // a '-' list is not checked (sshd neither): removing what is not there is harmless
        Files.writeString(cfg, "Ciphers -no-such-cipher\n");
        assertEquals(0, CliHarness.pqssh("server", "-T", "-f", cfg.toString()).rc());
    }

    private static void expect255(Path cfg, String text, String message) throws Exception {
        Files.writeString(cfg, text);
        CliHarness.Result r = CliHarness.pqssh("server", "-t", "-f", cfg.toString());
        assertEquals(255, r.rc(), r.all());
        assertTrue(r.err().contains(message), "expected '" + message + "':\n" + r.all());
    }

    private static String value(List<String> lines, String keyword) {
        return lines.stream().filter(l -> l.startsWith(keyword + " ")).map(l -> l.substring(keyword.length() + 1))
                .findFirst().orElseThrow(() -> new AssertionError("no " + keyword + " line in " + lines));
    }

    private static int count(String s, String needle) {
        return s.split(java.util.regex.Pattern.quote(needle), -1).length - 1;
    }

    private static CliHarness.Result ssh(Path dir, int port, String user, Path key, String... extra)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-F", "none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=20",
                "-o", "IdentitiesOnly=yes", "-i", key.toString(), "-p", Integer.toString(port)));
        cmd.addAll(List.of(extra));
        cmd.add(user + "@127.0.0.1");
        cmd.add("echo logged-in");
        return CliHarness.exec(dir, cmd);
    }
}
