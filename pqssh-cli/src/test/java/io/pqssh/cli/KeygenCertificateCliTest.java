package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh keygen -s} / {@code -L} against Debian's ssh-keygen 9.2 and sshd: the same listing for the same
 * certificate, and sshd accepting a pqssh-signed Ed25519 user certificate through TrustedUserCAKeys.
 */
class KeygenCertificateCliTest {
    private static CliHarness.Result sshKeygen(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH_KEYGEN.toString()));
        cmd.addAll(List.of(args));
        return CliHarness.exec(dir, cmd);
    }

    private static CliHarness.Result ok(CliHarness.Result r) {
        assertEquals(0, r.rc(), r.all());
        return r;
    }

    @Test
    void listingsMatchSshKeygenBothWays(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        Path user = CliHarness.sshKeygen(dir.resolve("id_ecdsa"), "ecdsa");
        String[] opts = {"-I", "alice@corp", "-n", "alice,root", "-V", "20260101:20300101123456", "-z", "77",
            "-O", "force-command=/usr/bin/id", "-O", "source-address=127.0.0.1/32,::1", "-O", "no-pty",
            "-O", "extension:login@example.com=alice", "-O", "critical:crit@example.com"};
        List<String> args = new ArrayList<>(List.of("keygen", "-s", ca.toString()));
        args.addAll(List.of(opts));
        args.add(pub(user).toString());
        CliHarness.Result signed = ok(CliHarness.pqssh(args.toArray(String[]::new)));
        Path cert = dir.resolve("id_ecdsa-cert.pub");
        assertTrue(signed.err().contains("Signed user key " + cert + ": id \"alice@corp\" serial 77 for alice,root"
                + " valid from 2026-01-01T00:00:00 to 2030-01-01T12:34:56"), signed.all());
        assertTrue(Files.readString(cert).strip().endsWith(" pqssh-test-id_ecdsa"), "keeps the key's comment");
        String theirs = ok(sshKeygen(dir, "-L", "-f", cert.toString())).out();
        assertEquals(theirs, ok(CliHarness.pqssh("keygen", "-L", "-f", cert.toString())).out());
        assertTrue(theirs.contains("source-address 127.0.0.1/32,::1") && theirs.contains("crit@example.com UNKNOWN"
                + " FLAG OPTION"), theirs);

        // the same options through ssh-keygen, host certificate too: pqssh -L prints what ssh-keygen -L prints
        List<String> theirArgs = new ArrayList<>(List.of("-q", "-s", ca.toString()));
        theirArgs.addAll(List.of(opts));
        theirArgs.addAll(List.of("-O", "clear", "-O", "permit-agent-forwarding", pub(user).toString()));
        ok(sshKeygen(dir, theirArgs.toArray(String[]::new)));
        assertEquals(ok(sshKeygen(dir, "-L", "-f", cert.toString())).out(),
                ok(CliHarness.pqssh("keygen", "-L", "-f", cert.toString())).out());
        ok(sshKeygen(dir, "-q", "-s", ca.toString(), "-h", "-I", "web", "-V", "-1d:forever", pub(user).toString()));
        assertEquals(ok(sshKeygen(dir, "-L", "-f", cert.toString())).out(),
                ok(CliHarness.pqssh("keygen", "-L", "-f", cert.toString())).out());
    }

    /** pqssh's stderr without its "pqssh keygen: " prefix, ssh-keygen's without the \r its log lines end in. */
    private static String errText(CliHarness.Result r) {
        return r.err().replace("\r", "").replace("pqssh keygen: ", "").strip();
    }

    /**
     * What ssh-keygen 9.2 refuses at -s, pqssh refuses with the same line and status, writing no certificate: an
     * empty principal name, a source-address list that is not addresses and CIDR blocks (sshd's
     * addr_match_cidr_list: a wildcard is refused there, so the certificate would never log in), force-command or
     * source-address twice, a missing CA or public key file.
     */
    @Test
    void signingRefusesWhatSshKeygenRefuses(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        Path user = CliHarness.sshKeygen(dir.resolve("id_user"), "ed25519");
        Path cert = dir.resolve("id_user-cert.pub");
        List<List<String>> cases = List.of(
                List.of("-n", ""), List.of("-n", "alice,,bob"), List.of("-n", "alice,"),
                List.of("-O", "source-address=300.1.1.1"), List.of("-O", "source-address=127.0.0.*"),
                List.of("-O", "source-address=!10.0.0.0/8"), List.of("-O", "source-address=10.0.0.1/8"),
                List.of("-O", "source-address=10.0.0.0/8", "-O", "source-address=::1"),
                List.of("-O", "force-command=a", "-O", "force-command=b"));
        for (List<String> c : cases) {
            List<String> args = new ArrayList<>(List.of("-s", ca.toString(), "-I", "id"));
            args.addAll(c);
            args.add(pub(user).toString());
            CliHarness.Result theirs = sshKeygen(dir, args.toArray(String[]::new));
            assertEquals(255, theirs.rc(), c + ": " + theirs.all());
            assertTrue(!Files.exists(cert), c + ": ssh-keygen wrote a certificate");
            List<String> ours = new ArrayList<>(List.of("keygen"));
            ours.addAll(args);
            CliHarness.Result r = CliHarness.pqssh(ours.toArray(String[]::new));
            assertEquals(255, r.rc(), c + ": " + r.all());
            List<String> theirLines = errText(theirs).lines().toList();
            assertEquals(theirLines.get(theirLines.size() - 1), errText(r), c.toString());
            assertTrue(!Files.exists(cert), c + ": pqssh wrote a certificate");
        }
        // a valid list of addresses and blocks is written and read back as ssh-keygen writes it
        ok(CliHarness.pqssh("keygen", "-s", ca.toString(), "-I", "id", "-O", "source-address=10.0.0.0/8,::1,192.0.2.7",
                pub(user).toString()));
        assertTrue(ok(sshKeygen(dir, "-L", "-f", cert.toString())).out()
                .contains("source-address 10.0.0.0/8,::1,192.0.2.7"));
        Files.delete(cert);
        for (String[] missing : new String[][] {{"-s", dir.resolve("no-ca").toString(), "-I", "id",
            pub(user).toString()}, {"-s", ca.toString(), "-I", "id", dir.resolve("no-key.pub").toString()}}) {
            CliHarness.Result theirs = sshKeygen(dir, missing);
            List<String> ours = new ArrayList<>(List.of("keygen"));
            ours.addAll(List.of(missing));
            CliHarness.Result r = CliHarness.pqssh(ours.toArray(String[]::new));
            assertEquals(theirs.rc(), r.rc(), r.all());
            assertEquals(errText(theirs), errText(r));
        }
    }

    /**
     * -L as ssh-keygen 9.2's do_show_cert: a file of several lines lists each certificate under FILE:N: (the first
     * line under FILE:), reports a plain key ("FILE:N is not a certificate") and a line that is no key ("FILE:N:
     * invalid key: invalid format") and goes on; stdin ("-") is "(stdin)"; exit 1 when no certificate was listed,
     * 255 for a missing file.
     */
    @Test
    void listingSeveralLinesAndStdinAsSshKeygen(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        Path user = CliHarness.sshKeygen(dir.resolve("id_user"), "ecdsa");
        ok(sshKeygen(dir, "-q", "-s", ca.toString(), "-I", "first", "-n", "a", pub(user).toString()));
        String first = Files.readString(dir.resolve("id_user-cert.pub"));
        ok(sshKeygen(dir, "-q", "-s", ca.toString(), "-I", "second", "-h", pub(user).toString()));
        String second = Files.readString(dir.resolve("id_user-cert.pub"));
        Path mixed = Files.writeString(dir.resolve("mixed"), first + "# a comment\n\n" + Files.readString(pub(ca))
                + "not a key\n" + second);
        Path leading = Files.writeString(dir.resolve("leading"), "\n  " + first);
        Path plain = pub(ca);
        for (Path f : List.of(mixed, leading, plain, dir.resolve("id_user-cert.pub"), dir.resolve("missing"))) {
            CliHarness.Result theirs = sshKeygen(dir, "-L", "-f", f.toString());
            CliHarness.Result r = CliHarness.pqssh("keygen", "-L", "-f", f.toString());
            assertEquals(theirs.rc(), r.rc(), f + ": " + r.all());
            assertEquals(theirs.out(), r.out(), f.toString());
            assertEquals(errText(theirs).replace("ssh-keygen: ", ""), errText(r), f.toString());
        }
        assertTrue(CliHarness.pqssh("keygen", "-L", "-f", mixed.toString()).out().contains(mixed + ":6:"));
        String theirStdin = CliHarness.shell(dir, java.util.Map.of(), CliHarness.SSH_KEYGEN + " -L -f - < " + mixed)
                .out();
        CliHarness.Result ours = CliHarness.pqsshWithStdin(Files.readAllBytes(mixed), "keygen", "-L", "-f", "-");
        assertEquals(0, ours.rc(), ours.all());
        assertTrue(theirStdin.startsWith("(stdin):1:\n"), theirStdin);
        assertEquals(theirStdin, ours.out());
    }

    /**
     * pqssh-signed certificates of classical CAs against Debian's OpenSSH 9.2: sshd accepts user certificates of RSA,
     * ECDSA and Ed25519 keys signed by pqssh-made RSA (rsa-sha2-512) and ECDSA P-384 CAs, and OpenSSH's ssh accepts
     * sshd's host certificate signed by {@code pqssh keygen -h} through an {@code @cert-authority} line.
     */
    @Test
    void openSshAcceptsPqsshSignedClassicalCertificates(@TempDir Path dir) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        String user = CliHarness.user();
        Path rsaCa = dir.resolve("rsa_ca");
        Path ecCa = dir.resolve("ecdsa_ca");
        ok(CliHarness.pqssh("keygen", "-q", "-t", "rsa", "-N", "", "-C", "rsa-ca", "-f", rsaCa.toString()));
        ok(CliHarness.pqssh("keygen", "-q", "-t", "ecdsa", "-b", "384", "-N", "", "-C", "ecdsa-ca", "-f",
                ecCa.toString()));
        Path trusted = Files.writeString(dir.resolve("trusted_cas"), Files.readString(pub(rsaCa))
                + Files.readString(pub(ecCa)));
        List<String[]> logins = List.of(new String[] {"rsa", "rsa-key-by-rsa-ca", rsaCa.toString(), "CA RSA"},
                new String[] {"ecdsa", "ecdsa-key-by-ecdsa-ca", ecCa.toString(), "CA ECDSA"},
                new String[] {"ed25519", "ed25519-key-by-rsa-ca", rsaCa.toString(), "CA RSA"});
        for (String[] l : logins) {
            Path key = CliHarness.sshKeygen(dir.resolve("id_" + l[0]), l[0]);
            ok(CliHarness.pqssh("keygen", "-s", l[2], "-I", l[1], "-n", user, "-V", "-5m:+1h", pub(key).toString()));
        }
        // sshd's host key, certified by pqssh before sshd starts (ForwardingHarness uses this file when present)
        Path hostKey = CliHarness.sshKeygen(dir.resolve("sshd_host_key"), "ed25519");
        ok(CliHarness.pqssh("keygen", "-s", ecCa.toString(), "-h", "-I", "sshd-host", "-n", "127.0.0.1",
                pub(hostKey).toString()));
        Path known = Files.writeString(dir.resolve("known_hosts"), "@cert-authority 127.0.0.1,[127.0.0.1]:* "
                + Files.readString(pub(ecCa)));
        try (ForwardingHarness h = new ForwardingHarness(dir)) {
            int port = h.startSshd(dir.resolve("no_authorized_keys"), "TrustedUserCAKeys " + trusted,
                    "HostCertificate " + dir.resolve("sshd_host_key-cert.pub"));
            for (String[] l : logins) {
                CliHarness.Result r = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-v", "-F", "none",
                        "-p", String.valueOf(port), "-i", dir.resolve("id_" + l[0]).toString(), "-o",
                        "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o",
                        "UserKnownHostsFile=" + known, user + "@127.0.0.1", "echo " + l[1]));
                String log = CliHarness.read(h.sshdLog());
                assertEquals(l[1], r.out().strip(), r.all() + "\nsshd:\n" + log);
                assertTrue(r.err().contains("is known and matches the ED25519-CERT host certificate."), r.all());
                assertTrue(log.contains("ID " + l[1] + " (serial 0) " + l[3] + " SHA256:"), log);
            }
        }
    }

    /** {@code -z +N} numbers the certificates of one command line N, N+1, ... as ssh-keygen does. */
    @Test
    void serialPlusNumbersEachKeyOfTheCommandLine(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        List<Path> keys = List.of(CliHarness.sshKeygen(dir.resolve("a"), "ed25519"),
                CliHarness.sshKeygen(dir.resolve("b"), "ecdsa"), CliHarness.sshKeygen(dir.resolve("c"), "ed25519"));
        List<String> tail = new ArrayList<>(List.of("-I", "batch", "-z", "+41"));
        keys.forEach(k -> tail.add(pub(k).toString()));
        List<String> ours = new ArrayList<>(List.of("keygen", "-s", ca.toString()));
        ours.addAll(tail);
        CliHarness.Result signed = ok(CliHarness.pqssh(ours.toArray(String[]::new)));
        List<String> serials = new ArrayList<>();
        for (Path k : keys) {
            Path cert = dir.resolve(k.getFileName() + "-cert.pub");
            String listing = ok(sshKeygen(dir, "-L", "-f", cert.toString())).out();
            serials.add(listing.lines().filter(l -> l.strip().startsWith("Serial:")).findFirst().orElse("").strip());
        }
        assertEquals(List.of("Serial: 41", "Serial: 42", "Serial: 43"), serials, signed.all());
        // ssh-keygen numbers the same way
        List<String> theirs = new ArrayList<>(List.of("-q", "-s", ca.toString()));
        theirs.addAll(tail);
        ok(sshKeygen(dir, theirs.toArray(String[]::new)));
        String third = ok(sshKeygen(dir, "-L", "-f", dir.resolve("c-cert.pub").toString())).out();
        assertTrue(third.contains("Serial: 43"), third);
        // a plain serial stays the same for every key; garbage after + is ssh-keygen's error
        ours.set(ours.indexOf("+41"), "7");
        ok(CliHarness.pqssh(ours.toArray(String[]::new)));
        assertTrue(ok(sshKeygen(dir, "-L", "-f", dir.resolve("c-cert.pub").toString())).out()
                .contains("Serial: 7"));
        ours.set(ours.indexOf("7"), "+x1");
        CliHarness.Result bad = CliHarness.pqssh(ours.toArray(String[]::new));
        assertTrue(bad.rc() != 0 && bad.err().contains("Invalid serial number \"x1\""), bad.all());
    }

    @Test
    void postQuantumCaCertifiesAPostQuantumHostKey(@TempDir Path dir) throws Exception {
        Path ca = dir.resolve("ca_mldsa65");
        Path host = dir.resolve("ssh_host_mldsa44_key");
        ok(CliHarness.pqssh("keygen", "-q", "-t", "mldsa65", "-N", "", "-f", ca.toString()));
        ok(CliHarness.pqssh("keygen", "-q", "-t", "mldsa44", "-N", "", "-f", host.toString()));
        ok(CliHarness.pqssh("keygen", "-s", ca.toString(), "-h", "-I", "h1", "-n", "h1.example", "-V", "+52w",
                pub(host).toString()));
        String listing = ok(CliHarness.pqssh("keygen", "-L", "-f", dir.resolve("ssh_host_mldsa44_key-cert.pub")
                .toString())).out();
        assertTrue(listing.contains("Type: ssh-mldsa-44-cert-v01@openssh.com host certificate"), listing);
        assertTrue(listing.contains("(using ssh-mldsa-65)"), listing);
        CliHarness.Result noId = CliHarness.pqssh("keygen", "-s", ca.toString(), pub(host).toString());
        assertTrue(noId.rc() != 0 && noId.err().contains("Must specify key id (-I) when certifying"), noId.all());
        CliHarness.Result badV = CliHarness.pqssh("keygen", "-s", ca.toString(), "-I", "x", "-V", "20260101",
                pub(host).toString());
        assertTrue(badV.rc() != 0 && badV.err().contains("Invalid certificate life specification 20260101"),
                badV.all());
    }

    /** OpenSSH's ssh logs in to OpenSSH's sshd with a certificate pqssh issued; sshd logs the key id and serial. */
    @Test
    void sshdAcceptsAPqsshSignedUserCertificate(@TempDir Path dir) throws Exception {
        CliHarness.requireBinary(CliHarness.SSHD, "openssh-server");
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        CliHarness.ensureSshdPrivsepDir();
        Path ca = CliHarness.sshKeygen(dir.resolve("user_ca"), "ed25519");
        Path user = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        Path hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        ok(CliHarness.pqssh("keygen", "-s", ca.toString(), "-I", "pqssh-issued", "-z", "4242", "-n",
                CliHarness.user(), "-V", "-5m:+1h", pub(user).toString()));
        // RevokedKeys: a pqssh-written KRL, first revoking only an unrelated key
        Path krl = dir.resolve("revoked.krl");
        ok(CliHarness.pqssh("keygen", "-k", "-q", "-f", krl.toString(), pub(hostKey).toString()));
        int port = CliHarness.freePort();
        Path config = Files.writeString(dir.resolve("sshd_config"), String.join("\n", "ListenAddress 127.0.0.1",
                "HostKey " + hostKey, "AuthorizedKeysFile none", "TrustedUserCAKeys " + pub(ca),
                "RevokedKeys " + krl,
                "StrictModes no", "UsePAM no", "PidFile none", "PermitRootLogin yes", "PasswordAuthentication no",
                "KbdInteractiveAuthentication no", "LogLevel VERBOSE", "AllowUsers " + CliHarness.user(), ""));
        Path log = dir.resolve("sshd.log");
        Process sshd = new ProcessBuilder(CliHarness.SSHD.toString(), "-D", "-e", "-f", config.toString(), "-p",
                String.valueOf(port)).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            CliHarness.waitUntil(Duration.ofSeconds(10), () -> !sshd.isAlive()
                    || CliHarness.read(log).contains("Server listening on 127.0.0.1 port " + port),
                    () -> "sshd did not start:\n" + CliHarness.read(log));
            if (!sshd.isAlive()) {
                fail("sshd exited:\n" + CliHarness.read(log));
            }
            CliHarness.Result r = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-p",
                    String.valueOf(port), "-i", user.toString(), "-o", "IdentitiesOnly=yes", "-o",
                    "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    CliHarness.user() + "@127.0.0.1", "echo cert-login"));
            assertEquals("cert-login", r.out().strip(), r.all() + "\nsshd:\n" + CliHarness.read(log));
            assertTrue(CliHarness.read(log).contains("ED25519-CERT SHA256:") && CliHarness.read(log)
                    .contains("ID pqssh-issued (serial 4242) CA ED25519 SHA256:"), CliHarness.read(log));

            // pqssh keygen -k -u revokes serial 4242 of the CA: sshd (reading RevokedKeys per login) refuses it
            Path spec = Files.writeString(dir.resolve("krl-spec"), "serial: 4242\n");
            ok(CliHarness.pqssh("keygen", "-k", "-u", "-q", "-f", krl.toString(), "-s", pub(ca).toString(),
                    spec.toString()));
            CliHarness.Result refused = CliHarness.exec(dir, List.of(CliHarness.SSH.toString(), "-p",
                    String.valueOf(port), "-i", user.toString(), "-o", "IdentitiesOnly=yes", "-o",
                    "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    CliHarness.user() + "@127.0.0.1", "echo cert-login"));
            assertEquals(255, refused.rc(), refused.all());
            assertTrue(refused.err().contains("Permission denied"), refused.all());
            assertTrue(CliHarness.read(log).contains("revoked by file " + krl), CliHarness.read(log));
        } finally {
            sshd.destroy();
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
            }
        }
    }
}
