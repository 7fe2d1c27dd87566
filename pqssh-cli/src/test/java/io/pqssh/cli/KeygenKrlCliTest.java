package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh keygen -k} / {@code -Q} against Debian's ssh-keygen 9.2 on the same files: KRLs pqssh writes are read
 * by {@code ssh-keygen -Q}, KRLs ssh-keygen writes by {@code pqssh keygen -Q}, with the same output and exit status.
 */
class KeygenKrlCliTest {
    private static CliHarness.Result sshKeygen(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH_KEYGEN.toString()));
        cmd.addAll(List.of(args));
        return CliHarness.exec(dir, cmd);
    }

    private static CliHarness.Result rc(int rc, CliHarness.Result r) {
        assertEquals(rc, r.rc(), r.all());
        return r;
    }

    /** ssh-keygen -Q and pqssh keygen -Q on the same KRL and keys: same stdout, same exit status. */
    private static String sameCheck(Path dir, Path krl, int expectedRc, Path... keys) throws Exception {
        List<String> args = new ArrayList<>(List.of("-Q", "-f", krl.toString()));
        for (Path k : keys) {
            args.add(k.toString());
        }
        String theirs = rc(expectedRc, sshKeygen(dir, args.toArray(String[]::new))).out();
        args.add(0, "keygen");
        assertEquals(theirs, rc(expectedRc, CliHarness.pqssh(args.toArray(String[]::new))).out());
        return theirs;
    }

    @Test
    void sshKeygenReadsKrlsPqsshWritesAndBack(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        Path other = CliHarness.sshKeygen(dir.resolve("other_ca"), "ed25519");
        Path a = CliHarness.sshKeygen(dir.resolve("a"), "ed25519");
        Path b = CliHarness.sshKeygen(dir.resolve("b"), "ecdsa");
        Path c = CliHarness.sshKeygen(dir.resolve("c"), "ed25519");
        Path d = CliHarness.sshKeygen(dir.resolve("d"), "ed25519");
        // certificates of c: serial 7 (revoked by serial), serial 0 id "by-id" (revoked by key ID), serial 8 (not)
        Path bySerial = certify(dir, ca, c, "kept-id", "7", "c7");
        Path byId = certify(dir, ca, c, "by-id", "0", "c0");
        Path kept = certify(dir, ca, c, "kept-id", "8", "c8");
        Path otherCa = certify(dir, other, d, "x", "7", "d7");
        Path krl = dir.resolve("revoked.krl");
        CliHarness.Result made = rc(0, CliHarness.pqssh("keygen", "-k", "-f", krl.toString(), "-z", "3", "-C",
                "made by pqssh", pub(a).toString(), bySerial.toString(), byId.toString()));
        assertEquals("Revoking from " + pub(a) + "\nRevoking from " + bySerial + "\nRevoking from " + byId + "\n",
                made.out());
        String out = sameCheck(dir, krl, 1, pub(a), pub(b), pub(c), bySerial, byId, kept, otherCa);
        assertEquals(pub(a) + " (pqssh-test-a): REVOKED\n" + pub(b) + " (pqssh-test-b): ok\n" + pub(c)
                + " (pqssh-test-c): ok\n" + bySerial + " (pqssh-test-c): REVOKED\n" + byId
                + " (pqssh-test-c): REVOKED\n" + kept + " (pqssh-test-c): ok\n" + otherCa + " (pqssh-test-d): ok\n",
                out);
        sameCheck(dir, krl, 0, pub(b), kept);

        // -u adds to it (spec lines: a range, an ID of any CA, SHA1/SHA256 of keys); version and comment kept
        Path spec = Files.writeString(dir.resolve("spec"), "  serial: 0x8-9  # a range, in hex\n\n# comment\n"
                + "sha256: " + Files.readString(pub(b)) + "KEY: " + Files.readString(pub(d)));
        Path anyCa = Files.writeString(dir.resolve("spec-any"), "id: x\n");
        rc(0, CliHarness.pqssh("keygen", "-k", "-u", "-q", "-f", krl.toString(), "-s", pub(ca).toString(),
                spec.toString()));
        rc(0, CliHarness.pqssh("keygen", "-k", "-u", "-q", "-f", krl.toString(), "-s", "none", anyCa.toString()));
        sameCheck(dir, krl, 1, pub(a), pub(b), kept, pub(d), otherCa);
        sameCheck(dir, krl, 0, pub(c), pub(ca));
        String theirDump = rc(0, sshKeygen(dir, "-Q", "-l", "-f", krl.toString())).out();
        assertEquals(theirDump, rc(0, CliHarness.pqssh("keygen", "-Q", "-l", "-f", krl.toString())).out());
        assertTrue(theirDump.startsWith("# KRL version 3\n") && theirDump.contains("# Comment: made by pqssh\n")
                && theirDump.contains("serial: 7-9\n") && theirDump.contains("# Wildcard CA\nid: x\n"), theirDump);

        // ssh-keygen's own KRL (list, bitmap and range encodings, key IDs, SHA1 hash, explicit key), read by pqssh
        Path theirs = dir.resolve("theirs.krl");
        Path theirSpec = Files.writeString(dir.resolve("their-spec"), "serial: 1-6\nserial: 8\nserial: 10\n"
                + "serial: 17\nserial: 40\nid: by-id\nsha1: " + Files.readString(pub(b)));
        rc(0, sshKeygen(dir, "-k", "-q", "-f", theirs.toString(), "-s", pub(ca).toString(), theirSpec.toString(),
                pub(a).toString()));
        sameCheck(dir, theirs, 1, pub(a), pub(b), pub(c), bySerial, byId, kept, otherCa);
        assertEquals(rc(0, sshKeygen(dir, "-Q", "-l", "-f", theirs.toString())).out(),
                rc(0, CliHarness.pqssh("keygen", "-Q", "-l", "-f", theirs.toString())).out());
        // and pqssh -u on ssh-keygen's KRL keeps every entry
        rc(0, CliHarness.pqssh("keygen", "-k", "-u", "-q", "-f", theirs.toString(), pub(d).toString()));
        sameCheck(dir, theirs, 1, pub(a), pub(b), pub(c), pub(d), bySerial, byId, kept, otherCa);
    }

    @Test
    void errorsAreSshKeygens(@TempDir Path dir) throws Exception {
        Path ca = CliHarness.sshKeygen(dir.resolve("ca"), "ed25519");
        Path krl = dir.resolve("k.krl");
        Path serial = Files.writeString(dir.resolve("s1"), "serial: 5\n");
        Path inverted = Files.writeString(dir.resolve("s2"), "serial: 9-3\n");
        Path same = Files.writeString(dir.resolve("s3"), "serial: 5-5\n");
        Path bad = Files.writeString(dir.resolve("s4"), "\nbogus line\n");
        Path id = Files.writeString(dir.resolve("s5"), "id: x\n");
        String[][] cases = {
            {"-k", "-f", krl.toString(), serial.toString()},
            {"-k", "-f", krl.toString(), id.toString()},
            {"-k", "-f", krl.toString(), "-s", pub(ca).toString(), inverted.toString()},
            {"-k", "-f", krl.toString(), "-s", pub(ca).toString(), same.toString()},
            {"-k", "-f", krl.toString(), bad.toString()},
            {"-k", "-u", "-f", dir.resolve("absent.krl").toString(), pub(ca).toString()},
            {"-Q", "-f", dir.resolve("absent.krl").toString(), pub(ca).toString()},
            {"-Q", "-f", pub(ca).toString(), pub(ca).toString()},
        };
        for (String[] c : cases) {
            CliHarness.Result theirs = rc(255, sshKeygen(dir, c));
            List<String> args = new ArrayList<>(List.of("keygen"));
            args.addAll(List.of(c));
            CliHarness.Result ours = rc(255, CliHarness.pqssh(args.toArray(String[]::new)));
            String line = theirs.err().strip();
            assertTrue(ours.err().contains(line), String.join(" ", c) + ": ssh-keygen said " + line + "\n"
                    + ours.all());
            assertTrue(!Files.exists(krl), "nothing written on error");
        }
        rc(0, CliHarness.pqssh("keygen", "-k", "-q", "-f", krl.toString(), "-s", pub(ca).toString(), serial.toString()));
        CliHarness.Result missing = rc(255, CliHarness.pqssh("keygen", "-Q", "-f", krl.toString(),
                dir.resolve("nokey.pub").toString()));
        assertTrue(missing.err().contains("Cannot load public key " + dir.resolve("nokey.pub")
                + ": No such file or directory"), missing.all());
    }

    /**
     * Post-quantum keys and certificates: pqssh revokes and checks them; OpenSSH 9.2 reads a KRL whose PQ keys are
     * only explicit keys or hashes (opaque blobs to it), not one with a certificate section of a PQ CA, which it must
     * parse: pqssh warns when it writes one.
     */
    @Test
    void postQuantumKeysAndCertificates(@TempDir Path dir) throws Exception {
        Path ca = dir.resolve("ca_mldsa65");
        Path key = dir.resolve("id_mldsa44");
        Path other = dir.resolve("id_falcon");
        rc(0, CliHarness.pqssh("keygen", "-q", "-t", "mldsa65", "-N", "", "-f", ca.toString()));
        rc(0, CliHarness.pqssh("keygen", "-q", "-t", "mldsa44", "-N", "", "-f", key.toString()));
        rc(0, CliHarness.pqssh("keygen", "-q", "-t", "falcon512", "-N", "", "-f", other.toString()));
        rc(0, CliHarness.pqssh("keygen", "-s", ca.toString(), "-I", "pq", "-z", "5", "-n", "u", pub(key).toString()));
        Path cert = dir.resolve("id_mldsa44-cert.pub");
        Path ed = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");

        Path plain = dir.resolve("plain.krl");
        CliHarness.Result p = rc(0, CliHarness.pqssh("keygen", "-k", "-q", "-f", plain.toString(),
                pub(other).toString()));
        assertEquals("", p.err(), "no warning: explicit keys are opaque to OpenSSH");
        CliHarness.Result q = rc(1, CliHarness.pqssh("keygen", "-Q", "-f", plain.toString(), pub(other).toString(),
                pub(key).toString()));
        assertEquals(pub(other) + " (" + Files.readString(pub(other)).strip().split(" ", 3)[2] + "): REVOKED\n"
                + pub(key) + " (" + Files.readString(pub(key)).strip().split(" ", 3)[2] + "): ok\n", q.out());
        assertEquals(pub(ed) + " (pqssh-test-id_ed25519): ok\n",
                rc(0, sshKeygen(dir, "-Q", "-f", plain.toString(), pub(ed).toString())).out());

        Path bySerial = dir.resolve("serial.krl");
        CliHarness.Result w = rc(0, CliHarness.pqssh("keygen", "-k", "-q", "-f", bySerial.toString(),
                cert.toString()));
        assertTrue(w.err().contains("Warning: " + bySerial + " revokes certificates of a ssh-mldsa-65 CA: OpenSSH"
                + " cannot parse that key type"), w.all());
        rc(1, CliHarness.pqssh("keygen", "-Q", "-f", bySerial.toString(), cert.toString()));
        rc(0, CliHarness.pqssh("keygen", "-Q", "-f", bySerial.toString(), pub(key).toString()));
        CliHarness.Result theirs = rc(255, sshKeygen(dir, "-Q", "-f", bySerial.toString(), pub(ed).toString()));
        assertTrue(theirs.err().contains("Invalid KRL file " + bySerial), theirs.all());
    }

    private static Path certify(Path dir, Path ca, Path key, String id, String serial, String name)
            throws Exception {
        rc(0, sshKeygen(dir, "-q", "-s", ca.toString(), "-I", id, "-z", serial, "-n", "u", pub(key).toString()));
        Path cert = dir.resolve(name + "-cert.pub");
        Files.move(dir.resolve(key.getFileName() + "-cert.pub"), cert);
        return cert;
    }
}
