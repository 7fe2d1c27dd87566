package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.keys.kem.ResearchIdentityFile;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;

/**
 * {@code pqssh keygen} against Debian's ssh-keygen on the same files: -l/-E labels and sizes, -b, -p, -F/-R/-H on
 * known_hosts (hashed names both ways), -A, -Y find-principals/check-novalidate, -f into a missing directory, and
 * -y/-l/-e on the KEMUAuth research implementation's identity files.
 */
class KeygenCliTest {
    private static final Path KEYGEN = CliHarness.SSH_KEYGEN;

    private static CliHarness.Result sshKeygen(Path dir, String... args) throws Exception {
        CliHarness.requireBinary(KEYGEN, "openssh-client");
        List<String> cmd = new java.util.ArrayList<>(List.of(KEYGEN.toString()));
        cmd.addAll(List.of(args));
        return CliHarness.exec(dir, cmd);
    }

    private static CliHarness.Result sshKeygenStdin(Path dir, Path stdin, String... args) throws Exception {
        CliHarness.requireBinary(KEYGEN, "openssh-client");
        StringBuilder sh = new StringBuilder("exec ").append(KEYGEN);
        for (String a : args) {
            sh.append(" '").append(a.replace("'", "'\\''")).append("'");
        }
        sh.append(" < '").append(stdin).append("'");
        return CliHarness.exec(dir, List.of("/bin/sh", "-c", sh.toString()));
    }

    private static CliHarness.Result pqsshStdin(byte[] stdin, String... args) throws Exception {
        return CliHarness.pqsshWithStdin(stdin, args);
    }

    @Test
    void fingerprintLinesMatchSshKeygenForEveryClassicalTypeAndBothHashes(@TempDir Path dir) throws Exception {
        Path rsa = CliHarness.sshKeygen(dir.resolve("ossh_rsa"), "rsa"); // 3072 bits, ssh-keygen's default
        Path ecdsa = CliHarness.sshKeygen(dir.resolve("ossh_ecdsa"), "ecdsa");
        Path ed = CliHarness.sshKeygen(dir.resolve("ossh_ed25519"), "ed25519");
        Path mine = dir.resolve("pq_rsa2048");
        CliHarness.Result g = CliHarness.pqssh("keygen", "-t", "rsa", "-b", "2048", "-N", "", "-C", "c", "-q",
                "-f", mine.toString());
        assertEquals(0, g.rc(), g.all());
        Path mineEc = dir.resolve("pq_ecdsa521");
        assertEquals(0, CliHarness.pqssh("keygen", "-t", "ecdsa", "-b", "521", "-N", "", "-q", "-f",
                mineEc.toString()).rc());
        for (Path k : List.of(rsa, ecdsa, ed, mine, mineEc)) {
            for (Path f : List.of(k, CliHarness.pub(k))) {
                for (String e : List.of("sha256", "md5")) {
                    CliHarness.Result theirs = sshKeygen(dir, "-l", "-E", e, "-f", f.toString());
                    CliHarness.Result ours = CliHarness.pqssh("keygen", "-l", "-E", e, "-f", f.toString());
                    assertEquals(0, theirs.rc(), theirs.all());
                    assertEquals(theirs.out().strip(), ours.out().strip(), f + " -E " + e + "\n" + ours.all());
                }
            }
        }
        assertTrue(sshKeygen(dir, "-l", "-f", rsa.toString()).out().startsWith("3072 "));
        assertTrue(CliHarness.pqssh("keygen", "-l", "-f", mine.toString()).out().startsWith("2048 "));
        assertTrue(CliHarness.pqssh("keygen", "-l", "-f", ecdsa.toString()).out().strip().endsWith("(ECDSA)"));
        assertTrue(CliHarness.pqssh("keygen", "-l", "-f", mineEc.toString()).out().startsWith("521 "));
        // ssh-keygen reads pqssh's RSA/ECDSA private keys: -y gives the same public key
        assertEquals(Files.readString(CliHarness.pub(mine)).split(" ")[1],
                sshKeygen(dir, "-y", "-f", mine.toString()).out().strip().split(" ")[1]);
    }

    @Test
    void fingerprintLinesOfCertificatesMatchSshKeygen(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        for (String type : List.of("ed25519", "rsa", "ecdsa", "dsa")) {
            Path key = CliHarness.sshKeygen(dir.resolve("id_" + type), type);
            CliHarness.sshKeygenSign(ca, key, "-I", "id-" + type, "-n", "alice");
            Path cert = dir.resolve("id_" + type + "-cert.pub");
            for (String e : List.of("sha256", "md5")) {
                CliHarness.Result theirs = sshKeygen(dir, "-l", "-E", e, "-f", cert.toString());
                CliHarness.Result ours = CliHarness.pqssh("keygen", "-l", "-E", e, "-f", cert.toString());
                assertEquals(0, theirs.rc(), theirs.all());
                assertEquals(0, ours.rc(), ours.all());
                assertEquals(theirs.out().strip(), ours.out().strip(), cert + " -E " + e);
            }
            // the certified key's fingerprint, labelled as a certificate
            String plain = sshKeygen(dir, "-l", "-f", CliHarness.pub(key).toString()).out().strip();
            String label = type.equals("dsa") ? "DSA" : type.toUpperCase(java.util.Locale.ROOT);
            assertEquals(plain.replace("(" + label + ")", "(" + label + "-CERT)"),
                    CliHarness.pqssh("keygen", "-l", "-f", cert.toString()).out().strip());
        }
    }

    @Test
    void wrongBitsAndMissingDirectoriesAreClearErrorsThatWriteNothing(@TempDir Path dir) throws Exception {
        CliHarness.Result ed = CliHarness.pqssh("keygen", "-t", "ed25519", "-b", "1024", "-N", "", "-f",
                dir.resolve("a").toString());
        assertNotEquals(0, ed.rc());
        assertTrue(ed.err().contains("fixed size"), ed.all());
        CliHarness.Result kem = CliHarness.pqssh("keygen", "-t", "mlkem768", "-b", "4096", "-N", "", "-f",
                dir.resolve("b").toString());
        assertNotEquals(0, kem.rc());
        CliHarness.Result rsa = CliHarness.pqssh("keygen", "-t", "rsa", "-b", "512", "-N", "", "-f",
                dir.resolve("c").toString());
        assertNotEquals(0, rsa.rc());
        assertTrue(rsa.err().contains("Invalid RSA key length"), rsa.all());
        CliHarness.Result ec = CliHarness.pqssh("keygen", "-t", "ecdsa", "-b", "300", "-N", "", "-f",
                dir.resolve("d").toString());
        assertTrue(ec.err().contains("256, 384 or 521"), ec.all());
        Path missing = dir.resolve("no").resolve("such").resolve("id_ed25519");
        CliHarness.Result m = CliHarness.pqssh("keygen", "-t", "ed25519", "-N", "", "-f", missing.toString());
        assertNotEquals(0, m.rc());
        assertTrue(m.err().contains("does not exist"), m.all());
        assertFalse(Files.exists(dir.resolve("no")), "keygen created the directory");
        try (var s = Files.list(dir)) {
            assertEquals(0, s.count(), "a refused keygen left files behind");
        }
        // the default path is the one exception, as in ssh-keygen: ~/.ssh is created (0700)
        String home = System.getProperty("user.home");
        Path fakeHome = Files.createDirectory(dir.resolve("home"));
        System.setProperty("user.home", fakeHome.toString());
        try {
            CliHarness.Result d = CliHarness.pqssh("keygen", "-t", "ed25519", "-N", "", "-q");
            assertEquals(0, d.rc(), d.all());
            assertTrue(d.out().contains("Created directory '" + fakeHome.resolve(".ssh") + "'."), d.all());
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(fakeHome.resolve(".ssh"))));
            assertTrue(Files.exists(fakeHome.resolve(".ssh/id_ed25519")));
        } finally {
            System.setProperty("user.home", home);
        }
    }

    @Test
    void changesPassphrasesOfOpenSshAndPqsshKeys(@TempDir Path dir) throws Exception {
        Path rsa = dir.resolve("id_rsa");
        assertEquals(0, sshKeygen(dir, "-t", "rsa", "-N", "old one", "-C", "keep-me", "-q", "-f", rsa.toString())
                .rc());
        CliHarness.Result p = CliHarness.pqssh("keygen", "-p", "-P", "old one", "-N", "new one", "-f",
                rsa.toString());
        assertEquals(0, p.rc(), p.all());
        assertTrue(p.out().contains("saved with the new passphrase"), p.all());
        assertEquals(0, sshKeygen(dir, "-y", "-P", "new one", "-f", rsa.toString()).rc());
        assertNotEquals(0, sshKeygen(dir, "-y", "-P", "old one", "-f", rsa.toString()).rc());
        assertTrue(sshKeygen(dir, "-y", "-P", "new one", "-f", rsa.toString()).out().strip().endsWith("keep-me"));
        CliHarness.Result wrong = CliHarness.pqssh("keygen", "-p", "-P", "old one", "-N", "x", "-f", rsa.toString());
        assertNotEquals(0, wrong.rc());
        assertTrue(wrong.err().contains("incorrect passphrase"), wrong.all());
        // to no passphrase and back, on an ML-KEM key pqssh made
        Path kem = dir.resolve("id_mlkem768");
        assertEquals(0, CliHarness.pqssh("keygen", "-t", "mlkem768", "-N", "pw", "-q", "-f", kem.toString()).rc());
        assertEquals(0, CliHarness.pqssh("keygen", "-p", "-P", "pw", "-N", "", "-f", kem.toString()).rc());
        assertFalse(OpenSshKeyV1.isEncrypted(Files.readString(kem)));
        assertEquals(0, CliHarness.pqssh("keygen", "-p", "-N", "again", "-f", kem.toString()).rc());
        assertTrue(OpenSshKeyV1.isEncrypted(Files.readString(kem)));
        assertEquals(Files.readString(CliHarness.pub(kem)).strip(),
                CliHarness.pqssh("keygen", "-y", "-P", "again", "-f", kem.toString()).out().strip());
        assertEquals(KeyFilePermissions.PRIVATE, Files.getPosixFilePermissions(kem));
    }

    @Test
    void knownHostsFindRemoveAndHashAgreeWithSshKeygen(@TempDir Path dir) throws Exception {
        Path a = CliHarness.sshKeygen(dir.resolve("ka"), "ed25519");
        Path b = CliHarness.sshKeygen(dir.resolve("kb"), "ecdsa");
        String ka = String.join(" ", List.of(Files.readString(CliHarness.pub(a)).split(" ")).subList(0, 2));
        String kb = String.join(" ", List.of(Files.readString(CliHarness.pub(b)).split(" ")).subList(0, 2));
        String text = "# comment\nalpha,10.0.0.1 " + ka + "\n[beta]:2222 " + kb + "\n*.wild " + ka
                + "\n@cert-authority *.ca " + kb + "\ngamma " + kb + "\n";
        Path ours = dir.resolve("kh_ours");
        Path theirs = dir.resolve("kh_theirs");
        Files.writeString(ours, text);
        Files.writeString(theirs, text);
        for (String host : List.of("alpha", "10.0.0.1", "[beta]:2222", "x.wild", "gamma", "nothere")) {
            CliHarness.Result t = sshKeygen(dir, "-F", host, "-f", theirs.toString());
            CliHarness.Result o = CliHarness.pqssh("keygen", "-F", host, "-f", ours.toString());
            assertEquals(t.rc(), o.rc(), host + "\n" + o.all());
            assertEquals(t.out(), o.out(), host);
            CliHarness.Result tl = sshKeygen(dir, "-F", host, "-l", "-f", theirs.toString());
            CliHarness.Result ol = CliHarness.pqssh("keygen", "-F", host, "-l", "-f", ours.toString());
            assertEquals(tl.out(), ol.out(), host + " -l");
        }
        // -l on a whole known_hosts file and on an authorized_keys file with options: one line per key, as ssh-keygen
        Path ak = dir.resolve("authorized_keys");
        Files.writeString(ak, "# keys\nfrom=\"10.0.0.0/8\",no-pty " + Files.readString(CliHarness.pub(a))
                + "\n" + Files.readString(CliHarness.pub(b)) + "not a key line\n");
        for (Path f : List.of(ours, ak)) {
            CliHarness.Result t = sshKeygen(dir, "-l", "-f", f.toString());
            CliHarness.Result o = CliHarness.pqssh("keygen", "-l", "-f", f.toString());
            assertEquals(0, o.rc(), o.all());
            assertEquals(t.out(), o.out(), "-l " + f.getFileName());
        }
        // pqssh hashes; ssh-keygen finds every plain name in the hashed file, and pqssh finds them in ssh-keygen's
        CliHarness.Result h = CliHarness.pqssh("keygen", "-H", "-f", ours.toString());
        assertEquals(0, h.rc(), h.all());
        assertEquals(text, Files.readString(dir.resolve("kh_ours.old")));
        assertEquals(0, sshKeygen(dir, "-H", "-f", theirs.toString()).rc());
        String hashed = Files.readString(ours);
        assertFalse(hashed.contains("alpha") || hashed.contains("gamma") || hashed.contains("10.0.0.1"), hashed);
        assertTrue(hashed.contains("*.wild ") && hashed.contains("@cert-authority *.ca "), hashed);
        for (String host : List.of("alpha", "10.0.0.1", "[beta]:2222", "gamma")) {
            CliHarness.Result t = sshKeygen(dir, "-F", host, "-f", ours.toString());
            assertEquals(0, t.rc(), host + " not found by ssh-keygen in pqssh's hashed file\n" + hashed);
            CliHarness.Result o = CliHarness.pqssh("keygen", "-F", host, "-f", theirs.toString());
            assertEquals(0, o.rc(), host + " not found by pqssh in ssh-keygen's hashed file");
            assertEquals(sshKeygen(dir, "-F", host, "-f", theirs.toString()).out(), o.out());
        }
        assertNotEquals(0, sshKeygen(dir, "-F", "beta", "-f", ours.toString()).rc());
        // removal: both tools agree on what is left
        CliHarness.Result r = CliHarness.pqssh("keygen", "-R", "alpha", "-f", theirs.toString());
        assertEquals(0, r.rc(), r.all());
        assertTrue(r.out().startsWith("# Host alpha found: line 2\n"), r.all());
        assertNotEquals(0, sshKeygen(dir, "-F", "alpha", "-f", theirs.toString()).rc());
        assertEquals(0, sshKeygen(dir, "-F", "gamma", "-f", theirs.toString()).rc());
        Path plain = dir.resolve("kh_plain");
        Files.writeString(plain, text);
        assertEquals(0, CliHarness.pqssh("keygen", "-R", "gamma", "-f", plain.toString()).rc());
        assertFalse(Files.readString(plain).contains("gamma"));
        assertTrue(Files.readString(plain).contains("@cert-authority *.ca"), "-R must keep CA lines");
        CliHarness.Result none = CliHarness.pqssh("keygen", "-R", "nothere", "-f", plain.toString());
        assertEquals(0, none.rc());
        assertTrue(none.err().contains("not found"), none.all());
        Path broken = dir.resolve("kh_broken");
        Files.writeString(broken, "alpha\n");
        assertNotEquals(0, CliHarness.pqssh("keygen", "-H", "-f", broken.toString()).rc());
        assertEquals("alpha\n", Files.readString(broken), "an invalid file must be left alone");
    }

    @Test
    void hostKeysForEveryOpenSsh105TypeUnderAPrefix(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("etc/ssh"));
        Files.writeString(dir.resolve("etc/ssh/ssh_host_ed25519_key"), "");
        CliHarness.Result a = CliHarness.pqssh("keygen", "-A", "-f", dir.toString());
        assertEquals(0, a.rc(), a.all());
        assertEquals("pqssh keygen: generating new host keys: RSA ECDSA ED25519 MLDSA44-ED25519", a.out().strip());
        for (String t : List.of("rsa", "ecdsa", "ed25519")) {
            Path k = dir.resolve("etc/ssh/ssh_host_" + t + "_key");
            assertEquals(KeyFilePermissions.PRIVATE, Files.getPosixFilePermissions(k));
            CliHarness.Result l = sshKeygen(dir, "-l", "-f", k.toString());
            assertEquals(0, l.rc(), l.all());
            assertEquals(l.out().strip(), CliHarness.pqssh("keygen", "-l", "-f", k.toString()).out().strip());
        }
        Path composite = dir.resolve("etc/ssh/ssh_host_mldsa44_ed25519_key");
        assertTrue(CliHarness.pqssh("keygen", "-l", "-f", composite.toString()).out().strip()
                .endsWith("(MLDSA44-ED25519)"));
        CliHarness.Result again = CliHarness.pqssh("keygen", "-A", "-f", dir.toString());
        assertEquals("", again.out(), "existing keys must be kept: " + again.all());
        CliHarness.Result missing = CliHarness.pqssh("keygen", "-A", "-f", dir.resolve("nope").toString());
        assertNotEquals(0, missing.rc());
        assertFalse(Files.exists(dir.resolve("nope")));
    }

    @Test
    void sshsigFindPrincipalsAndCheckNovalidateBothWays(@TempDir Path dir) throws Exception {
        Path key = CliHarness.sshKeygen(dir.resolve("signer"), "ed25519");
        Path msg = dir.resolve("m.txt");
        Files.writeString(msg, "message\n");
        Path signers = dir.resolve("allowed_signers");
        String pub = Files.readString(CliHarness.pub(key)).strip();
        String other = Files.readString(CliHarness.pub(CliHarness.sshKeygen(dir.resolve("other"), "ed25519")))
                .strip();
        Files.writeString(signers, "other@x " + other + "\nalice@x,bob@y namespaces=\"file\" " + pub + "\n");
        // ssh-keygen signs, pqssh checks
        assertEquals(0, sshKeygen(dir, "-Y", "sign", "-f", key.toString(), "-n", "file", msg.toString()).rc());
        Path sig = dir.resolve("m.txt.sig");
        CliHarness.Result fp = CliHarness.pqssh("keygen", "-Y", "find-principals", "-s", sig.toString(), "-f",
                signers.toString());
        CliHarness.Result tfp = sshKeygen(dir, "-Y", "find-principals", "-s", sig.toString(), "-f",
                signers.toString());
        assertEquals(0, fp.rc(), fp.all());
        assertEquals(tfp.out(), fp.out());
        assertEquals("alice@x\nbob@y\n", fp.out());
        CliHarness.Result cn = pqsshStdin(Files.readAllBytes(msg), "keygen", "-Y", "check-novalidate", "-n", "file",
                "-s", sig.toString());
        assertEquals(0, cn.rc(), cn.all());
        assertEquals(sshKeygenStdin(dir, msg, "-Y", "check-novalidate", "-n", "file", "-s", sig.toString()).out(),
                cn.out());
        assertNotEquals(0, pqsshStdin("other\n".getBytes(), "keygen", "-Y", "check-novalidate", "-n", "file", "-s",
                sig.toString()).rc());
        assertNotEquals(0, pqsshStdin(Files.readAllBytes(msg), "keygen", "-Y", "check-novalidate", "-n", "git",
                "-s", sig.toString()).rc());
        // pqssh signs, ssh-keygen checks
        Path mine = dir.resolve("mine");
        assertEquals(0, CliHarness.pqssh("keygen", "-t", "ed25519", "-N", "", "-q", "-f", mine.toString()).rc());
        Path msg2 = dir.resolve("n.txt");
        Files.writeString(msg2, "other message\n");
        assertEquals(0, CliHarness.pqssh("keygen", "-Y", "sign", "-f", mine.toString(), "-n", "file",
                msg2.toString()).rc());
        Path sig2 = dir.resolve("n.txt.sig");
        CliHarness.Result t = sshKeygenStdin(dir, msg2, "-Y", "check-novalidate", "-n", "file", "-s",
                sig2.toString());
        assertEquals(0, t.rc(), t.all());
        Files.writeString(signers, "carol@z " + Files.readString(CliHarness.pub(mine)), 
                java.nio.file.StandardOpenOption.APPEND);
        assertEquals("carol@z\n", sshKeygen(dir, "-Y", "find-principals", "-s", sig2.toString(), "-f",
                signers.toString()).out());
        assertEquals("carol@z\n", CliHarness.pqssh("keygen", "-Y", "find-principals", "-s", sig2.toString(), "-f",
                signers.toString()).out());
        Path unknown = dir.resolve("unknown");
        Files.writeString(unknown, "nobody@x " + other + "\n");
        CliHarness.Result no = CliHarness.pqssh("keygen", "-Y", "find-principals", "-s", sig2.toString(), "-f",
                unknown.toString());
        assertNotEquals(0, no.rc());
        assertTrue(no.err().contains("No principal matched."), no.all());
    }

    @Test
    void readsTheResearchImplementationsIdentityFiles(@TempDir Path dir) throws Exception {
        KemKeyPair kp = MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom());
        Path id = dir.resolve("id_mlkem768_research");
        KeyFilePermissions.writePrivateKeyFile(id, ResearchIdentityFile.format(kp));
        KemPublicKey pub = new KemPublicKey(KemAlgorithm.MLKEM768, kp.publicKey());
        CliHarness.Result y = CliHarness.pqssh("keygen", "-y", "-f", id.toString());
        assertEquals(0, y.rc(), y.all());
        assertEquals(pub.toLine(""), y.out().strip());
        CliHarness.Result l = CliHarness.pqssh("keygen", "-l", "-f", id.toString());
        assertEquals("768 " + pub.fingerprint() + " no comment (MLKEM768)", l.out().strip(), l.all());
        CliHarness.Result e = CliHarness.pqssh("keygen", "-e", "-f", id.toString());
        assertEquals(0, e.rc(), e.all());
        assertEquals("mlkem768 " + java.util.Base64.getEncoder().encodeToString(kp.publicKey()), e.out().strip());
        // a broken identity file is an error, not a key
        Path bad = dir.resolve("bad");
        KeyFilePermissions.writePrivateKeyFile(bad, "algorithm mlkem768\nsecret AAAA\n");
        assertNotEquals(0, CliHarness.pqssh("keygen", "-y", "-f", bad.toString()).rc());
    }
}
