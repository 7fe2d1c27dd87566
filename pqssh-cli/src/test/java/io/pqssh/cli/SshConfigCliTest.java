package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh -F FILE -G host}: the ssh_config parser end to end (Host/Match, first value wins, tokens, Include,
 * algorithm lists), and every way a bad option or keyword fails with exit 255 before anything connects.
 */
class SshConfigCliTest {
    @TempDir
    Path dir;

    private Path config(String... lines) throws Exception {
        Path f = dir.resolve("config");
        Files.writeString(f, String.join("\n", lines) + "\n");
        return f;
    }

    private CliHarness.Result g(Path config, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("ssh", "-F", config.toString(), "-G"));
        args.addAll(List.of(extra));
        return CliHarness.pqssh(args.toArray(String[]::new));
    }

    private static void has(CliHarness.Result r, String line) {
        assertTrue(r.out().lines().anyMatch(l -> l.equals(line)), "missing '" + line + "' in\n" + r.all());
    }

    @Test
    void hostBlocksFirstValueWinsTokensAndIdentityFilesAccumulate() throws Exception {
        Path cfg = config(
                "# comment",
                "Host web",
                "    HostName %h.example.org",
                "    Port 2201",
                "    User alice",
                "    IdentityFile ~/.ssh/id_%r_%h",
                "    UserKnownHostsFile %d/kh/%n-%p",
                "Host web !other",
                "    Port 9999",
                "    IdentityFile /keys/second",
                "Host *",
                "    User nobody",
                "    Port 22",
                "    ConnectTimeout 1m30s",
                "    StrictHostKeyChecking accept-new",
                "    ServerAliveInterval 15",
                "    ServerAliveCountMax 4");
        CliHarness.Result r = g(cfg, "web");
        assertEquals(0, r.rc(), r.all());
        String home = System.getProperty("user.home");
        has(r, "hostname web.example.org");
        has(r, "port 2201");
        has(r, "user alice");
        // -G prints identity files as written, as ssh -G does; the login expands them
        has(r, "identityfile ~/.ssh/id_%r_%h");
        has(r, "identityfile /keys/second");
        has(r, "userknownhostsfile " + home + "/kh/web-2201");
        has(r, "connecttimeout 90");
        has(r, "stricthostkeychecking accept-new");
        has(r, "serveraliveinterval 15");
        has(r, "serveralivecountmax 4");

        // the command line wins over the file: -p, -l, -o, user@
        CliHarness.Result c = g(cfg, "-p", "7", "-o", "User=bob", "-o", "ConnectTimeout=5", "web");
        assertEquals(0, c.rc(), c.all());
        has(c, "port 7");
        has(c, "user bob");
        has(c, "connecttimeout 5");
        CliHarness.Result at = g(cfg, "carol@other");
        has(at, "user carol");
        has(at, "port 22");
        has(at, "hostname other");
    }

    @Test
    void matchIncludeAndFinalPass() throws Exception {
        Path inc = dir.resolve("conf.d");
        Files.createDirectories(inc);
        Files.writeString(inc.resolve("10-a.conf"), "Host db\n  Port 3306\n");
        Files.writeString(inc.resolve("20-b.conf"), "Host db\n  Port 1\n  User fromb\n");
        Path cfg = config(
                "Include " + inc + "/*.conf",
                "Match originalhost db user fromb",
                "    HostName db.internal",
                "Match host db.internal",
                "    ConnectionAttempts 3",
                "    ServerAliveInterval 7",
                "Match localuser " + CliHarness.user() + " !host nothing",
                "    BatchMode yes",
                "Match exec \"test %h = db.internal\"",
                "    ConnectTimeout 11",
                "Match final host db.internal",
                "    Tag finaltag",
                "Match all",
                "    ServerAliveCountMax 2");
        CliHarness.Result r = g(cfg, "db");
        assertEquals(0, r.rc(), r.all());
        has(r, "port 3306");
        has(r, "user fromb");
        has(r, "hostname db.internal");
        has(r, "serveraliveinterval 7");
        has(r, "batchmode yes");
        has(r, "connecttimeout 11");
        has(r, "tag finaltag"); // Match final: only in the second pass
        has(r, "serveralivecountmax 2");
        CliHarness.Result other = g(cfg, "web");
        assertFalse(other.out().contains("tag "), other.all());
        has(other, "serveralivecountmax 2");
        has(other, "batchmode yes");
        has(other, "connecttimeout none");
    }

    @Test
    void algorithmListsPlusMinusCaret() throws Exception {
        Path cfg = config("Host a", "  KexAlgorithms -sntrup*,mlkem1024*",
                "Host b", "  KexAlgorithms ^curve25519-sha256", "Host c", "  KexAlgorithms +diffie-hellman-group14-sha256",
                "Host d", "  KexAlgorithms mlkem768x25519-sha256");
        List<String> dflt = io.pqssh.mina.internal.kex.KexInitDefaults.CLIENT_KEX;
        has(g(cfg, "a"), "kexalgorithms " + String.join(",", dflt.stream()
                .filter(k -> !k.startsWith("sntrup") && !k.startsWith("mlkem1024")).toList()));
        List<String> caret = new ArrayList<>(dflt);
        caret.remove("curve25519-sha256");
        caret.add(0, "curve25519-sha256");
        has(g(cfg, "b"), "kexalgorithms " + String.join(",", caret));
        List<String> plus = new ArrayList<>(dflt);
        if (!plus.contains("diffie-hellman-group14-sha256")) {
            plus.add("diffie-hellman-group14-sha256");
        }
        has(g(cfg, "c"), "kexalgorithms " + String.join(",", plus));
        has(g(cfg, "d"), "kexalgorithms mlkem768x25519-sha256");
        CliHarness.Result bad = g(config("KexAlgorithms mlkem768x25519-sha256,no-such-kex"), "x");
        assertEquals(255, bad.rc(), bad.all());
        assertTrue(bad.err().contains("Bad SSH2 KexAlgorithms spec"), bad.all());
        assertTrue(bad.err().contains("no-such-kex"), bad.all());
    }

    @Test
    void unknownMisspelledAndUnsupportedOptionsExit255() throws Exception {
        CliHarness.Result typo = CliHarness.pqssh("ssh", "-F", "none", "-o", "RequirePostQuantumKx=yes", "localhost",
                "true");
        assertEquals(255, typo.rc(), typo.all());
        assertEquals("pqssh: command-line line 0: Bad configuration option: requirepostquantumkx", typo.err().strip(),
                typo.all());
        CliHarness.Result badValue = CliHarness.pqssh("ssh", "-F", "none", "-o", "RequirePostQuantumKex=maybe",
                "localhost", "true");
        assertEquals(255, badValue.rc(), badValue.all());
        assertTrue(badValue.err().contains("RequirePostQuantumKex"), badValue.all());

        CliHarness.Result inFile = g(config("Host *", "  Prot 22"), "x");
        assertEquals(255, inFile.rc(), inFile.all());
        assertTrue(inFile.err().contains(dir.resolve("config") + " line 2: Bad configuration option: prot"),
                inFile.all());

        CliHarness.Result unsupported = g(config("VerifyHostKeyDNS yes"), "x");
        assertEquals(255, unsupported.rc(), unsupported.all());
        assertTrue(unsupported.err().contains("Unsupported option \"VerifyHostKeyDNS\""), unsupported.all());
        // connection sharing asked for: accepted (a warning when connecting, ExistingSshConfigTest)
        assertEquals(0, g(config("ControlMaster auto", "ForwardX11 yes"), "x").rc());
        // the value pqssh behaves as anyway is accepted; OpenSSH's own ignored keywords are ignored
        assertEquals(0, g(config("ControlMaster no", "ForwardX11 no", "GSSAPIAuthentication yes", "Protocol 2"), "x")
                .rc());
        // IgnoreUnknown, as ssh
        assertEquals(0, g(config("IgnoreUnknown UseKeychain,Foo*", "UseKeychain yes", "FooBar 1"), "x").rc());

        CliHarness.Result missing = CliHarness.pqssh("ssh", "-F", dir.resolve("nope").toString(), "x", "true");
        assertEquals(255, missing.rc(), missing.all());
        assertTrue(missing.err().contains(dir.resolve("nope").toString()), missing.all());

        CliHarness.Result picocli = CliHarness.pqssh("ssh", "-Z", "x");
        assertEquals(255, picocli.rc(), picocli.all());
        CliHarness.Result kem = CliHarness.pqssh("ssh", "-F", "none", "-o", "KEMAuthAlgorithms=ML-KEM-999", "x");
        assertEquals(255, kem.rc(), kem.all());
        assertTrue(kem.err().contains("ML-KEM-999"), kem.all());
        CliHarness.Result hostInO = CliHarness.pqssh("ssh", "-F", "none", "-o", "Host=x", "x");
        assertEquals(255, hostInO.rc(), hostInO.all());
    }

    @Test
    void forwardsAreParsedAndExposed() throws Exception {
        Path cfg = config("Host f", "  LocalForward 8080 localhost:80", "  LocalForward [::1]:8443 [::1]:443",
                "  RemoteForward 9000", "  DynamicForward 127.0.0.1:1080", "  ProxyJump jump1,jump2");
        CliHarness.Result r = g(cfg, "-L", "1:h:2", "f");
        assertEquals(0, r.rc(), r.all());
        // ssh -G's forms: dynamic first, then local, then remote; hosts in brackets
        List<String> forwards = r.out().lines().filter(l -> l.contains("forward ")).toList();
        assertEquals(List.of("dynamicforward [127.0.0.1]:1080", "localforward 1 [h]:2", "localforward 8080 [localhost]:80",
                "localforward [::1]:8443 [::1]:443", "remoteforward 9000 [socks]:0"), forwards, r.all());
        has(r, "proxyjump jump1,jump2");
        CliHarness.Result bad = g(config("LocalForward 8080"), "x");
        assertEquals(255, bad.rc(), bad.all());
        assertTrue(bad.err().contains("Bad forwarding specification"), bad.all());
    }

    @Test
    void queryAndVersion() throws Exception {
        CliHarness.Result kex = CliHarness.pqssh("ssh", "-Q", "kex");
        assertEquals(0, kex.rc(), kex.all());
        assertTrue(kex.out().lines().anyMatch("mlkem768x25519-sha256"::equals), kex.all());
        CliHarness.Result kem = CliHarness.pqssh("ssh", "-Q", "kem");
        assertEquals(List.of("mlkem512", "mlkem768", "mlkem1024"), kem.out().lines().toList());
        CliHarness.Result key = CliHarness.pqssh("ssh", "-Q", "key");
        assertTrue(key.out().lines().anyMatch("ssh-mldsa-65"::equals), key.all());
        assertTrue(key.out().lines().anyMatch("ssh-ed25519"::equals), key.all());
        assertTrue(CliHarness.pqssh("ssh", "-Q", "cipher").out().contains("aes256-gcm@openssh.com"));
        assertTrue(CliHarness.pqssh("ssh", "-Q", "mac").out().contains("hmac-sha2-256"));
        assertEquals(255, CliHarness.pqssh("ssh", "-Q", "nonsense").rc());
        CliHarness.Result v = CliHarness.pqssh("ssh", "-V");
        assertEquals(0, v.rc());
        assertTrue(v.err().startsWith("pqssh 0.1.0"), v.all());
        assertFalse(v.out().contains("pqssh"), "ssh -V prints on stderr");
    }
}
