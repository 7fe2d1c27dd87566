package io.pqssh.lab.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.lab.load.ServerProcess;

class TransferLabTest {
    @TempDir
    Path dir;

    @Test
    void sftpAndScpUploadAndDownloadAgainstPqsshAndOpenSshAreIntact() throws Exception {
        if (!Files.isExecutable(ServerProcess.DEBIAN_SSHD) || !Files.isExecutable(TransferLab.DEBIAN_SFTP_SERVER)) {
            fail("needs " + ServerProcess.DEBIAN_SSHD + " and " + TransferLab.DEBIAN_SFTP_SERVER
                    + ": apt-get install openssh-server");
        }
        List<TransferLab.Result> rs = TransferLab.run(new TransferLab.Settings(List.of("pqssh", "openssh"),
                List.of(TransferLab.parseSize("3M")), List.of("aes128-ctr"), dir.resolve("w"),
                ServerProcess.DEBIAN_SSHD, Duration.ofSeconds(30), List.of("sftp", "scp")), null);
        assertEquals(8, rs.size(), rs.toString());
        assertTrue(rs.stream().allMatch(r -> r.measured() && r.run() == 0), rs.toString());
        assertEquals(List.of("sftp", "sftp", "scp", "scp", "sftp", "sftp", "scp", "scp"),
                rs.stream().map(TransferLab.Result::protocol).toList());
        for (TransferLab.Result r : rs) {
            assertEquals(3_000_000, r.bytes());
            assertTrue(r.match() && r.sha256Source().equals(r.sha256Destination()), r.toString());
            assertEquals(64, r.sha256Source().length());
            assertTrue(r.mbPerS() > 0 && r.seconds() > 0, r.toString());
            assertEquals(r.bytes() / 1e6 / r.seconds(), r.mbPerS(), r.mbPerS() * 0.01 + 0.01);
            assertEquals("aes128-ctr", r.cipherC2s(), r.toString());
            assertTrue(r.kex().startsWith("sntrup761x25519-sha512"), r.toString());
        }
        TransferLab.write(dir.resolve("out"), rs);
        JsonNode j = new ObjectMapper().readTree(dir.resolve("out/transfer.json").toFile());
        assertEquals(8, j.size());
        assertEquals("scp", j.get(2).get("protocol").asText());
        assertTrue(j.get(0).has("mb_per_s") && j.get(0).has("sha256_destination") && j.get(0).has("cipher_c2s"));
        assertEquals(9, Files.readAllLines(dir.resolve("out/transfer.csv")).size());
        assertEquals(4, TransferLab.ratios(rs).size());
        assertTrue(TransferLab.ratios(rs).stream().anyMatch(x -> x.startsWith("scp upload 3000000 bytes")),
                TransferLab.ratios(rs).toString());
        assertTrue(Files.readString(dir.resolve("out/transfer.md")).contains("pqssh/OpenSSH"));
    }

    @Test
    void aChangedDestinationByteFailsLoudly() throws Exception {
        Path src = dir.resolve("a");
        TransferLab.randomFile(src, 100_000);
        Path dst = dir.resolve("b");
        Files.copy(src, dst);
        TransferLab.checkIntegrity(src, dst);
        byte[] b = Files.readAllBytes(dst);
        b[54_321] ^= 0x01;
        Files.write(dst, b);
        IntegrityException e = assertThrows(IntegrityException.class, () -> TransferLab.checkIntegrity(src, dst));
        assertTrue(e.getMessage().startsWith("INTEGRITY FAILURE"), e.getMessage());
        Files.write(dst, java.util.Arrays.copyOf(Files.readAllBytes(src), 99_999)); // truncated
        assertThrows(IntegrityException.class, () -> TransferLab.checkIntegrity(src, dst));
    }

    @Test
    void ratiosUseOnlyMeasuredRoundsAndPairRoundsForTheSpread() {
        String[] h = {"a", "a"};
        List<TransferLab.Result> rs = List.of(
                TransferLab.result("pqssh", "sftp", "upload", 100_000_000, 10.0, "aes128-ctr", "aes128-ctr", "m", "k",
                        h, TransferLab.WARMUP, 0),
                TransferLab.result("openssh", "sftp", "upload", 100_000_000, 1.0, "aes128-ctr", "aes128-ctr", "m",
                        "k", h, TransferLab.WARMUP, 0),
                // measured: pqssh 100 and 200 MB/s, OpenSSH 200 and 200: per round 0.5x and 1.0x, means 150/200
                TransferLab.result("pqssh", "sftp", "upload", 100_000_000, 1.0, "aes128-ctr", "aes128-ctr", "m", "k",
                        h, TransferLab.MEASURED, 0),
                TransferLab.result("openssh", "sftp", "upload", 100_000_000, 0.5, "aes128-ctr", "aes128-ctr", "m",
                        "k", h, TransferLab.MEASURED, 0),
                TransferLab.result("openssh", "sftp", "upload", 100_000_000, 0.5, "aes128-ctr", "aes128-ctr", "m",
                        "k", h, TransferLab.MEASURED, 1),
                TransferLab.result("pqssh", "sftp", "upload", 100_000_000, 0.5, "aes128-ctr", "aes128-ctr", "m", "k",
                        h, TransferLab.MEASURED, 1));
        List<String> r = TransferLab.ratios(rs);
        assertEquals(1, r.size(), r.toString());
        assertTrue(r.get(0).startsWith("sftp upload 100000000 bytes: pqssh/OpenSSH 0.75× (2 runs;"), r.get(0));
        assertTrue(r.get(0).contains("per round 0.50–1.00×") && r.get(0).endsWith("target ≥ 0.8: missed)"),
                r.get(0));
        List<String> cold = TransferLab.coldRatios(rs);
        assertEquals(1, cold.size(), cold.toString());
        assertTrue(cold.get(0).contains("pqssh/OpenSSH 0.10× (1 run;"), cold.get(0));
    }

    @Test
    void noMeasuredRoundIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TransferLab.Settings(List.of("pqssh"), List.of(1L),
                List.of(), dir, ServerProcess.DEBIAN_SSHD, Duration.ofSeconds(1), List.of("sftp"), false, 1, 0));
    }

    @Test
    void unknownProtocolIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TransferLab.Settings(
                List.of("pqssh"), List.of(1L), List.of(), dir, ServerProcess.DEBIAN_SSHD, Duration.ofSeconds(1),
                List.of("sftp", "rsync")));
        assertTrue(e.getMessage().contains("unknown protocol 'rsync'"), e.getMessage());
    }

    @Test
    void sizesParse() {
        assertEquals(100_000_000L, TransferLab.parseSize("100M"));
        assertEquals(4L << 20, TransferLab.parseSize("4MiB"));
        assertEquals(512_000L, TransferLab.parseSize("512k"));
        assertEquals(123L, TransferLab.parseSize("123"));
        assertThrows(IllegalArgumentException.class, () -> TransferLab.parseSize("-1M"));
        assertThrows(IllegalArgumentException.class, () -> TransferLab.parseSize("lots"));
    }
}
