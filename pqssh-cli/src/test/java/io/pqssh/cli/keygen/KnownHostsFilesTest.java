package io.pqssh.client.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which known_hosts lines name a host, checked against OpenSSH's own {@code ssh-keygen -F} on the same file, and the
 * verdict (OK, NEW, CHANGED, REVOKED) over several files as ssh's check_key_in_hostkeys gives it.
 */
class KnownHostsFilesTest {
    private static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");

    @TempDir
    Path dir;

    private String key(String name) throws Exception {
        Path f = dir.resolve(name);
        run(List.of(SSH_KEYGEN.toString(), "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", f.toString()));
        String[] pub = Files.readString(dir.resolve(name + ".pub")).split(" ");
        return pub[0] + " " + pub[1];
    }

    private static byte[] blob(String keyText) {
        return Base64.getDecoder().decode(keyText.split(" ")[1]);
    }

    private static String run(List<String> cmd) throws Exception {
        assertTrue(Files.isExecutable(SSH_KEYGEN), "MISSING " + SSH_KEYGEN + ": apt-get install -y openssh-client");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        return new String(out, StandardCharsets.UTF_8);
    }

    /** The line numbers ssh-keygen -F reports for the host. */
    private static List<Integer> opensshFinds(Path file, String host) throws Exception {
        String out = run(List.of(SSH_KEYGEN.toString(), "-F", host, "-f", file.toString()));
        List<Integer> lines = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^# Host .* found: line (\\d+)").matcher(out);
        while (m.find()) {
            lines.add(Integer.parseInt(m.group(1)));
        }
        return lines;
    }

    @Test
    void hostPatternsMatchAsSshKeygenFindsThem() throws Exception {
        String k = key("a");
        Path f = dir.resolve("known_hosts");
        Files.writeString(f, String.join("\n",
                "# comment",
                "web1.example.com " + k,
                "*.example.com,!db.example.com " + k,
                "web? " + k,
                "[10.0.0.1]:2222 " + k,
                "10.0.0.* " + k,
                "!*.internal,* " + k,
                "@revoked *.example.com " + k,
                "@cert-authority *.example.com " + k,
                "[*.example.com]:* " + k,
                "Web1.Example.COM " + k,
                "@bogus web1.example.com " + k,
                "web1.example.com not-a-key",
                ""));
        for (String host : List.of("web1.example.com", "db.example.com", "web2", "web22", "10.0.0.1",
                "[10.0.0.1]:2222", "[web1.example.com]:2200", "x.internal", "anything")) {
            List<Integer> ours = KnownHostsFiles.load(List.of(f), host).lines().stream()
                    .map(KnownHostsFiles.Line::number).toList();
            List<Integer> theirs = opensshFinds(f, host);
            // ssh-keygen -F lists lines it cannot parse too; a line with no usable key names no key for ssh
            theirs.removeIf(n -> n == 12 || n == 13);
            assertEquals(theirs, ours, host);
        }
    }

    @Test
    void revokedInAnyFileWinsChangedNamesTheLastOtherKeyCaLinesVouchForNoPlainKey() throws Exception {
        String good = key("good");
        String other = key("other");
        String ca = key("ca");
        Path user = dir.resolve("user");
        Path global = dir.resolve("global");
        Files.writeString(user, "h " + good + "\n");
        Files.writeString(global, "@revoked * " + good + "\n");
        List<Path> both = List.of(dir.resolve("missing"), user, global);
        assertEquals(KnownHostsFiles.Status.REVOKED, KnownHostsFiles.load(both, "h").check(blob(good)).status());
        assertEquals(KnownHostsFiles.Status.OK, KnownHostsFiles.load(List.of(user), "h").check(blob(good)).status());

        Files.writeString(user, "h " + other + "\n# x\nh,g " + ca + "\n@cert-authority h " + good + "\n");
        KnownHostsFiles.Verdict v = KnownHostsFiles.load(List.of(user), "h").check(blob(good));
        assertEquals(KnownHostsFiles.Status.CHANGED, v.status());
        assertEquals(user, v.line().file());
        assertEquals(3, v.line().number(), "ssh reports the last non-matching line");

        Files.writeString(user, "@cert-authority h " + good + "\n");
        v = KnownHostsFiles.load(List.of(user), "h").check(blob(good));
        assertEquals(KnownHostsFiles.Status.NEW, v.status(), "a CA line is not the host's key");
        assertNull(v.line());

        Files.writeString(user, "h,!h " + good + "\n");
        assertEquals(KnownHostsFiles.Status.NEW, KnownHostsFiles.load(List.of(user), "h").check(blob(good)).status(),
                "a negated match vetoes the line");
    }

    @Test
    void hashedNamesMatchAndAddedLinesAreReadBackBySshKeygen() throws Exception {
        String k = key("k");
        Path f = dir.resolve("sub/known_hosts");
        KnownHostsFiles.add(f, "[h.example]:2222", true, k.split(" ")[0], blob(k), new java.security.SecureRandom());
        KnownHostsFiles.add(f, "plain.example", false, k.split(" ")[0], blob(k), new java.security.SecureRandom());
        assertTrue(Files.readString(f).startsWith("|1|"), Files.readString(f));
        assertEquals(KnownHostsFiles.Status.OK,
                KnownHostsFiles.load(List.of(f), "[h.example]:2222").check(blob(k)).status());
        assertEquals(List.of(1), opensshFinds(f, "[h.example]:2222"));
        assertEquals(List.of(2), opensshFinds(f, "plain.example"));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(f.getParent())));
    }
}
