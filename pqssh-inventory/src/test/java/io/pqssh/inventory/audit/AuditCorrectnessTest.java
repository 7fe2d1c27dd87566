package io.pqssh.inventory.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.util.List;

import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/** Issue 13's audit correctness items, one test each. */
class AuditCorrectnessTest {
    static final SecureRandom RND = new SecureRandom();

    @TempDir
    Path root;

    static String ed25519(String comment) {
        SshSigningKey k = SshSigningKey.generate(SignatureKeyType.ED25519, RND);
        try {
            return k.publicKey().toOpenSsh(comment);
        } finally {
            k.destroy();
        }
    }

    static String mlkem(String comment) {
        return new KemPublicKey(KemAlgorithm.MLKEM768, MlKem.generate(KemAlgorithm.MLKEM768, RND).publicKey())
                .toLine(comment);
    }

    static Auditor.Options options(Path passwd) {
        Auditor.Options o = new Auditor.Options();
        o.passwd = passwd;
        o.sshdConfig = null;
        return o;
    }

    static List<Finding> in(List<Finding> all, Path file) {
        return all.stream().filter(f -> f.file().equals(file.toString())).toList();
    }

    static Finding at(List<Finding> all, Path file, int line) {
        List<Finding> l = in(all, file).stream().filter(f -> f.line() == line).toList();
        assertEquals(1, l.size(), file + ":" + line + " in " + all);
        return l.get(0);
    }

    @Test
    void homeAndRootAreWalkedRecursivelyWithoutFollowingLinksOrVirtualFileSystems() throws Exception {
        Path deep = Files.createDirectories(root.resolve("home/staff/dave/.ssh"));
        Files.writeString(deep.resolve("authorized_keys"), ed25519("dave@old") + "\n");
        Path hostKeys = Files.createDirectories(root.resolve("srv/containers/web/etc/ssh"));
        Files.writeString(hostKeys.resolve("ssh_host_ed25519_key.pub"), ed25519("root@web") + "\n");
        Files.writeString(root.resolve("home/staff/notes.pub"), "not a key at all\n");
        Files.createSymbolicLink(root.resolve("home/loop"), root.resolve("home"));

        List<Finding> f = Auditor.audit(List.of(root.resolve("home"), root.resolve("srv")), options(null));
        assertEquals(Finding.Rules.CLASSICAL_KEY, at(f, deep.resolve("authorized_keys"), 1).rule());
        assertEquals("ssh-ed25519", at(f, hostKeys.resolve("ssh_host_ed25519_key.pub"), 1).keyType());
        assertEquals(List.of(), in(f, root.resolve("home/staff/notes.pub")), "a .pub outside SSH directories is"
                + " not reported as an unreadable key");
        assertTrue(f.stream().noneMatch(x -> x.file().contains("/loop/")), "symbolic links are not followed: " + f);
        assertEquals(2, f.size(), f.toString());
        assertTrue(Auditor.SKIPPED.contains(Path.of("/proc")) && Auditor.SKIPPED.contains(Path.of("/sys")));
    }

    @Test
    void authorizedKeysFileOfTheAuditedSshdConfigIsFollowedPerUser() throws Exception {
        Path etc = Files.createDirectories(root.resolve("etc/ssh"));
        Path central = Files.createDirectories(etc.resolve("authorized_keys"));
        Path aliceHome = Files.createDirectories(root.resolve("home/alice"));
        Path bobHome = Files.createDirectories(root.resolve("home/bob"));
        Files.createDirectories(aliceHome.resolve(".ssh"));
        Files.writeString(etc.resolve("sshd_config"), "AuthorizedKeysFile " + central + "/%u %h/.ssh/keys.%u"
                + " .ssh/authorized_keys\nAuthorizedKeysFile /nowhere/%u\n");
        Path passwd = root.resolve("passwd");
        Files.writeString(passwd, "root:x:0:0:root:/nonexistent-root:/bin/sh\nalice:x:1000:1000::" + aliceHome
                + ":/bin/sh\nbob:x:1001:1001::" + bobHome + ":/bin/sh\n");
        Files.writeString(central.resolve("alice"), mlkem("alice@pq") + "\n");
        Files.writeString(aliceHome.resolve(".ssh/keys.alice"), ed25519("alice@old") + "\n");
        Files.writeString(aliceHome.resolve(".ssh/authorized_keys"), ed25519("alice@older") + "\n");
        Files.writeString(bobHome.resolve("keys.ignored"), ed25519("bob") + "\n");

        // only /etc/ssh is audited: the keys it lets in are found through AuthorizedKeysFile
        List<Finding> f = Auditor.audit(List.of(etc), options(passwd));
        assertEquals(Finding.Rules.PQ_KEY, at(f, central.resolve("alice"), 1).rule());
        Finding old = at(f, aliceHome.resolve(".ssh/keys.alice"), 1);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, old.rule(), "the central PQ key and the home key are the"
                + " same login");
        assertTrue(old.message().contains("user alice"), old.message());
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, at(f, aliceHome.resolve(".ssh/authorized_keys"), 1).rule());
        assertEquals(Finding.Rules.IGNORED_CONFIG, at(f, etc.resolve("sshd_config"), 2).rule(), "first value wins");
        assertEquals(List.of(), in(f, bobHome.resolve("keys.ignored")));
        assertEquals("/srv/k/alice%", Auditor.expandTokens("/srv/k/%u%%", "alice", "/home/alice"));
        assertEquals("/home/alice/.ssh/x", Auditor.expandTokens("%h/.ssh/x", "alice", "/home/alice"));
    }

    @Test
    void aMountedSystemRootIsAuditedAsItself() throws Exception {
        // R/etc/ssh/sshd_config: R/etc/passwd names the users, their homes are under R
        Path etc = Files.createDirectories(root.resolve("etc/ssh"));
        Files.writeString(etc.resolve("sshd_config"), "AuthorizedKeysFile /etc/ssh/keys/%u .ssh/authorized_keys\n");
        Files.writeString(root.resolve("etc/passwd"), "frank:x:1000:1000::/home/frank:/bin/sh\n");
        Path keys = Files.createDirectories(root.resolve("etc/ssh/keys"));
        Files.writeString(keys.resolve("frank"), mlkem("frank@pq") + "\n");
        Path home = Files.createDirectories(root.resolve("home/frank/.ssh"));
        Files.writeString(home.resolve("authorized_keys"), ed25519("frank@old") + "\n");
        Auditor.Options o = new Auditor.Options();
        o.sshdConfig = null;
        List<Finding> f = Auditor.audit(List.of(etc), o);
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, at(f, home.resolve("authorized_keys"), 1).rule(), f.toString());
        assertEquals(Finding.Rules.PQ_KEY, at(f, keys.resolve("frank"), 1).rule());
    }

    @Test
    void sshdConfigIsReadAsSshdTDoes() throws Exception {
        Path etc = Files.createDirectories(root.resolve("etc/ssh"));
        Files.writeString(etc.resolve("sshd_config"), String.join("\n",
                "KexAlgorithms +diffie-hellman-group14-sha1",   // 1: first value: defaults + a weak one
                "KexAlgorithms curve25519-sha256",              // 2: ignored, not a classical pin
                "Ciphers aes128-ctr,aes256-cbc",                // 3: weak
                "Match Address 10.0.0.0/8",
                "    KexAlgorithms curve25519-sha256",          // 5: invalid in Match
                "    PubkeyAcceptedAlgorithms +ssh-rsa",        // 6: allowed in Match, weak
                ""));
        List<Finding> f = Auditor.audit(List.of(etc), options(null));
        Path cfg = etc.resolve("sshd_config");
        assertEquals(Finding.Rules.WEAK_ALGORITHM_CONFIG, at(f, cfg, 1).rule(), "+list keeps the PQ defaults: weak only");
        assertEquals(Finding.Rules.IGNORED_CONFIG, at(f, cfg, 2).rule());
        assertEquals(Finding.Rules.WEAK_ALGORITHM_CONFIG, at(f, cfg, 3).rule());
        assertEquals(Finding.Rules.INVALID_CONFIG, at(f, cfg, 5).rule());
        assertTrue(at(f, cfg, 5).message().contains("sshd refuses to start"), at(f, cfg, 5).message());
        assertEquals(Finding.Rules.WEAK_ALGORITHM_CONFIG, at(f, cfg, 6).rule());
        assertTrue(f.stream().noneMatch(x -> x.rule().equals(Finding.Rules.CLASSICAL_KEX_CONFIG)), f.toString());
    }

    @Test
    void plusMinusCaretAreResolvedAgainstOpenSsh10Defaults() throws Exception {
        List<String> d = io.pqssh.inventory.scan.Algorithms.OPENSSH10_CLIENT_KEX;
        assertEquals(d.size() + 1, ConfigAudit.resolve("+diffie-hellman-group14-sha1", d).size());
        assertEquals(List.of("curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256",
                "ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256",
                "diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512", "diffie-hellman-group14-sha256"),
                ConfigAudit.resolve("-mlkem*,sntrup*", d));
        assertEquals("curve25519-sha256", ConfigAudit.resolve("^curve25519-sha256", d).get(0));
        assertEquals(d.size(), ConfigAudit.resolve("^curve25519-sha256", d).size());

        Path a = Files.createDirectories(root.resolve("a/etc/ssh"));
        Files.writeString(a.resolve("sshd_config"), "KexAlgorithms -*mlkem*,sntrup*\n");
        Finding removed = at(Auditor.audit(List.of(a), options(null)), a.resolve("sshd_config"), 1);
        assertEquals(Finding.Rules.PQ_KEX_REMOVED, removed.rule());
        assertTrue(removed.message().contains("no post-quantum method is left"), removed.message());

        Path b = Files.createDirectories(root.resolve("b/etc/ssh"));
        Files.writeString(b.resolve("sshd_config"), "KexAlgorithms -mlkem768x25519-sha256\n");
        Finding partly = at(Auditor.audit(List.of(b), options(null)), b.resolve("sshd_config"), 1);
        assertEquals(Finding.Rules.PQ_KEX_REMOVED, partly.rule());
        assertTrue(!partly.message().contains("no post-quantum method is left"), "sntrup761 is still there");

        Path c = Files.createDirectories(root.resolve("c/etc/ssh"));
        Files.writeString(c.resolve("sshd_config"), "KexAlgorithms ^curve25519-sha256\n");
        Files.writeString(c.resolve("ssh_config"), "Host *\n  KexAlgorithms ^curve25519-sha256\n");
        List<Finding> caret = Auditor.audit(List.of(c), options(null));
        assertEquals(List.of(), in(caret, c.resolve("sshd_config")), "the client's order decides: no finding");
        assertEquals("warning", at(caret, c.resolve("ssh_config"), 2).severity());
        assertEquals(Finding.Rules.CLASSICAL_KEX_CONFIG, at(caret, c.resolve("ssh_config"), 2).rule());
    }

    @Test
    void anExpiredKeyIsExpiredNotAForgottenClassicalLogin() throws Exception {
        Path home = Files.createDirectories(root.resolve("home/erin/.ssh"));
        Files.writeString(home.resolve("authorized_keys"), String.join("\n", mlkem("erin@pq"),
                "expiry-time=\"20200101\" " + ed25519("erin@expired"),
                "expiry-time=\"20991231\" " + ed25519("erin@valid"), ""));
        List<Finding> f = Auditor.audit(List.of(home), options(null));
        Finding expired = at(f, home.resolve("authorized_keys"), 2);
        assertEquals(Finding.Rules.EXPIRED_KEY, expired.rule());
        assertEquals("note", expired.severity());
        assertTrue(expired.message().contains("2020-01-01") && !expired.message().contains("quantum attacker"),
                expired.message());
        assertEquals(Finding.Rules.CLASSICAL_KEY_BESIDE_PQ, at(f, home.resolve("authorized_keys"), 3).rule());

        Files.writeString(home.resolve("authorized_keys"), "expiry-time=\"20200101\" " + mlkem("erin@pq-expired")
                + "\n" + ed25519("erin@desk") + "\n");
        List<Finding> g = Auditor.audit(List.of(home), options(null));
        assertEquals(Finding.Rules.EXPIRED_KEY, at(g, home.resolve("authorized_keys"), 1).rule());
        assertEquals(Finding.Rules.CLASSICAL_KEY, at(g, home.resolve("authorized_keys"), 2).rule(),
                "an expired PQ key is no PQ credential");
    }

    @Test
    void pemKeysGetTheirFamilyCurveAndSize() throws Exception {
        io.pqssh.inventory.LoopbackServers.requireOpenSsh();
        Path d = Files.createDirectories(root.resolve("keys/.ssh"));
        // as ssh-keygen writes them: SEC1 and PKCS#1 (-m PEM), PKCS#8 (-m PKCS8)
        io.pqssh.inventory.LoopbackServers.sshKeygen(d.resolve("id_ecdsa"), "-t", "ecdsa", "-b", "384", "-m", "PEM");
        io.pqssh.inventory.LoopbackServers.sshKeygen(d.resolve("id_rsa"), "-t", "rsa", "-b", "3072", "-m", "PEM");
        io.pqssh.inventory.LoopbackServers.sshKeygen(d.resolve("id_pkcs8"), "-t", "ecdsa", "-b", "384", "-m",
                "PKCS8");
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        Files.writeString(d.resolve("id_rsa_encrypted"), pem(rsa.generateKeyPair(), "secret".toCharArray()));
        for (String n : List.of("id_ecdsa", "id_rsa", "id_pkcs8")) {
            Files.delete(d.resolve(n + ".pub")); // only the private key files are under test
            assertTrue(Files.readString(d.resolve(n)).startsWith("-----BEGIN "), n);
        }
        List<Finding> f = Auditor.audit(List.of(d), options(null));
        Finding e = at(f, d.resolve("id_ecdsa"), 1);
        assertEquals("ECDSA", e.family());
        assertEquals("nistp384", e.curve());
        assertEquals(384, e.bits());
        Finding r = at(f, d.resolve("id_rsa"), 1);
        assertEquals("RSA", r.family());
        assertEquals(3072, r.bits());
        assertTrue(r.message().contains("PEM private key: RSA 3072"), r.message());
        Finding enc = at(f, d.resolve("id_rsa_encrypted"), 1);
        assertEquals("RSA", enc.family());
        assertNull(enc.bits(), "an encrypted PEM key is not decrypted");
        Finding p = at(f, d.resolve("id_pkcs8"), 1);
        assertEquals("ECDSA", p.family());
        assertEquals("nistp384", p.curve());
    }

    static String pem(KeyPair kp, char[] pass) throws Exception {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            if (pass == null) {
                w.writeObject(kp);
            } else {
                w.writeObject(kp, new JcePEMEncryptorBuilder("AES-128-CBC").build(pass));
            }
        }
        return s.toString();
    }
}
