package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Base64;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.kem.KemPublicKey;

/** {@code pqssh audit} end to end on a small tree. */
class AuditCommandTest {
    @TempDir
    Path dir;

    @Test
    void auditReportsTheForgottenKeyAndTheClassicalConfig() throws Exception {
        Path ssh = Files.createDirectories(dir.resolve("home/dave/.ssh"));
        KeyPair ed = KeyUtils.generateKeyPair("ssh-ed25519", 256);
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(ed.getPublic());
        byte[] blob = b.getCompactData();
        KemPublicKey kem = new KemPublicKey(KemAlgorithm.MLKEM768,
                MlKem.generate(KemAlgorithm.MLKEM768, new SecureRandom()).publicKey());
        Files.writeString(ssh.resolve("authorized_keys"), kem.toLine("dave@pq") + "\nssh-ed25519 "
                + Base64.getEncoder().encodeToString(blob) + " dave@2019\n");
        Path etc = Files.createDirectories(dir.resolve("etc/ssh"));
        Files.writeString(etc.resolve("sshd_config"), "KexAlgorithms curve25519-sha256\n");
        Path json = dir.resolve("a.json");
        Path sarif = dir.resolve("a.sarif");

        ScanCommandTest.Run r = ScanCommandTest.pqssh("audit", ssh.toString(), etc.toString(), "--json",
                json.toString(), "--sarif", sarif.toString(), "--fail-on", "classical-keys,classical-kex");
        assertEquals(1, r.rc(), r.toString());
        assertTrue(r.err().contains("--fail-on classical-keys: 1 finding(s)"), r.err());
        assertTrue(r.err().contains("--fail-on classical-kex: 1 finding(s)"), r.err());
        assertTrue(r.out().contains("classical-key-beside-pq"), r.out());

        JsonNode f = new ObjectMapper().readTree(json.toFile()).get("findings");
        assertEquals(3, f.size(), f.toString());
        // configs are read first: the effective sshd_config decides which keys work
        assertEquals("classical-kex-config", f.get(0).get("rule").asText());
        assertEquals(1, f.get(0).get("line").asInt());
        assertEquals("pq-key", f.get(1).get("rule").asText());
        assertEquals("classical-key-beside-pq", f.get(2).get("rule").asText());
        assertEquals(2, f.get(2).get("line").asInt());
        assertEquals(KeyFingerprints.sha256(blob), f.get(2).get("fingerprint").asText());
        assertEquals("dave@2019", f.get(2).get("comment").asText());
        JsonNode s = new ObjectMapper().readTree(sarif.toFile());
        assertEquals(3, s.get("runs").get(0).get("results").size());

        assertEquals(0, ScanCommandTest.pqssh("audit", "-q", ssh.toString(), "--fail-on", "weak").rc());
        ScanCommandTest.Run missing = ScanCommandTest.pqssh("audit", dir.resolve("nope").toString());
        assertEquals(2, missing.rc());
        assertTrue(missing.err().contains("no such file or directory"), missing.err());
    }
}
