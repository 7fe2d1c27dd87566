package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.inventory.CycloneDxSchema;

/** {@code --cbom FILE} on {@code pqssh scan} and {@code pqssh audit}: valid CycloneDX 1.6, next to the other reports. */
class CbomCliTest {
    @TempDir
    Path dir;

    @Test
    void scanOfZgrab2OutputWritesAValidCbomBesideTheJson() throws Exception {
        Path cbom = dir.resolve("scan.cdx.json");
        Path json = dir.resolve("scan.json");
        CliHarness.Result r = CliHarness.pqssh("scan", "--zgrab2", ScanStreamingCliTest.FIXTURE.toString(),
                "--cbom", cbom.toString(), "--json", json.toString(), "-q");
        assertEquals(0, r.rc(), r.all());
        String doc = Files.readString(cbom);
        CycloneDxSchema.assertValid(doc);
        JsonNode bom = new ObjectMapper().readTree(doc);
        long protocols = 0;
        for (JsonNode c : bom.get("components")) {
            if (c.at("/cryptoProperties/assetType").asText().equals("protocol")) {
                protocols++;
            }
        }
        JsonNode summary = new ObjectMapper().readTree(json.toFile()).get("summary");
        long sshTargets = summary.get("total").asLong() - summary.get("unreachable").asLong()
                - summary.get("not-ssh").asLong() - summary.get("scan-error").asLong();
        assertEquals(sshTargets, protocols, "one SSH protocol component per SSH target");
        assertEquals(protocols, bom.get("dependencies").size());
    }

    @Test
    void cbomToStdoutReplacesTheTable() throws Exception {
        CliHarness.Result r = CliHarness.pqssh("scan", "--zgrab2", ScanStreamingCliTest.FIXTURE.toString(),
                "--cbom", "-");
        assertEquals(0, r.rc(), r.all());
        CycloneDxSchema.assertValid(r.out());
        assertFalse(r.out().contains("TARGET"), "no table mixed into the CBOM");
    }

    @Test
    void auditWritesEachKeyWithItsFingerprintAndFile() throws Exception {
        Path ssh = Files.createDirectories(dir.resolve("home/erin/.ssh"));
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(KeyUtils.generateKeyPair("ssh-ed25519", 256).getPublic());
        byte[] blob = b.getCompactData();
        Path keys = ssh.resolve("authorized_keys");
        Files.writeString(keys, "ssh-ed25519 " + Base64.getEncoder().encodeToString(blob) + " erin@2019\n"
                + "cert-authority ssh-ed25519 " + Base64.getEncoder().encodeToString(blob) + " erin-ca\n");
        Path cbom = dir.resolve("audit.cdx.json");
        CliHarness.Result r = CliHarness.pqssh("audit", ssh.toString(), "--cbom", cbom.toString(), "-q");
        assertEquals(0, r.rc(), r.all());
        String doc = Files.readString(cbom);
        CycloneDxSchema.assertValid(doc);
        JsonNode bom = new ObjectMapper().readTree(doc);
        String fp = KeyFingerprints.sha256(blob);
        JsonNode key = null;
        JsonNode ca = null;
        for (JsonNode c : bom.get("components")) {
            String ref = c.get("bom-ref").asText();
            if (ref.equals("key/" + keys + ":1/" + fp)) {
                key = c;
            } else if (ref.equals("key/" + keys + ":2/" + fp)) {
                ca = c;
            }
        }
        assertTrue(key != null && ca != null, bom.get("components").toString());
        assertEquals(fp, key.at("/cryptoProperties/relatedCryptoMaterialProperties/id").asText());
        assertEquals("crypto/key/ssh-ed25519",
                key.at("/cryptoProperties/relatedCryptoMaterialProperties/algorithmRef").asText());
        assertEquals(keys.toString(), key.at("/evidence/occurrences/0/location").asText());
        assertEquals(1, key.at("/evidence/occurrences/0/line").asInt());
        assertTrue(key.get("properties").toString().contains("authorized-key"), key.toString());
        assertTrue(ca.get("properties").toString().contains("certificate-authority"), ca.toString());
        assertEquals("file/" + keys, bom.at("/dependencies/0/ref").asText());
        assertEquals(2, bom.at("/dependencies/0/dependsOn").size());
    }
}
