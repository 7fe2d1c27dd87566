package io.pqssh.lab.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Short load runs against a real pqssh server (child JVM) and Debian's sshd on loopback. */
class LoadLabTest {
    @TempDir
    Path dir;

    static void requireSshd() {
        if (!Files.isExecutable(ServerProcess.DEBIAN_SSHD)) {
            fail("this test needs " + ServerProcess.DEBIAN_SSHD + ": apt-get install openssh-server");
        }
    }

    @Test
    void shortRunAgainstPqsshAndOpenSshWritesConsistentReports() throws Exception {
        requireSshd();
        LoadLab.Settings s = new LoadLab.Settings(List.of("pqssh", "openssh"),
                List.of(LoadMethod.KEM_MLKEM768, LoadMethod.MLDSA65, LoadMethod.ED25519), List.of(2),
                // 3 s: in one CI run no sshd login both started and ended inside a 1.5 s window (4 logins in 2.1 s)
                Duration.ofMillis(600), Duration.ofMillis(3000), dir.resolve("work"), ServerProcess.DEBIAN_SSHD, null,
                Duration.ofSeconds(20));
        List<LoadResult> rs = LoadLab.run(s, null);
        assertEquals(6, rs.size());
        // run interleaved, reported server by server in the order of the settings
        assertEquals(List.of("pqssh", "pqssh", "pqssh", "openssh", "openssh", "openssh"),
                rs.stream().map(LoadResult::server).toList());
        assertEquals(List.of("publickey-kem-mlkem768", "publickey-mldsa65", "publickey-ed25519"),
                rs.subList(0, 3).stream().map(LoadResult::method).toList());
        Path out = dir.resolve("out");
        LoadLab.write(out, rs);
        assertTrue(LoadLab.allOk(rs), rs.toString());

        JsonNode json = new ObjectMapper().readTree(out.resolve("load.json").toFile());
        assertEquals(6, json.size());
        for (JsonNode o : json) {
            for (String f : List.of("server", "method", "workers", "conn_per_s", "failures", "p95_ms",
                    "cpu_ms_per_conn", "peak_mem_mb")) {
                assertTrue(o.has(f), "missing " + f + " in " + o);
            }
            String server = o.get("server").asText();
            String method = o.get("method").asText();
            boolean measured = server.equals("pqssh") || method.equals("publickey-ed25519");
            if (!measured) {
                assertEquals("n/a", o.get("status").asText(), o.toString());
                assertTrue(o.get("conn_per_s").isNull(), o.toString());
                continue;
            }
            assertEquals("ok", o.get("status").asText(), o.toString());
            long successes = o.get("successes").asLong();
            assertTrue(successes > 0, o.toString());
            assertEquals(0, o.get("failures").asLong(), o.toString());
            assertEquals(successes / o.get("measured_s").asDouble(), o.get("conn_per_s").asDouble(), 0.01);
            // every login the client completed was counted by the server, and nothing else
            assertEquals(o.get("client_logins_total").asLong(), o.get("server_logins_total").asLong(), o.toString());
            assertTrue(o.get("client_logins_total").asLong() >= successes, o.toString());
            double p50 = o.get("p50_ms").asDouble();
            double p95 = o.get("p95_ms").asDouble();
            assertTrue(p50 > 0 && p50 <= p95 && p95 <= o.get("p99_ms").asDouble(), o.toString());
            assertTrue(o.get("cpu_ms_per_conn").asDouble() > 0, o.toString());
            assertTrue(o.get("client_cpu_ms_per_conn").asDouble() > 0, o.toString());
            if (server.equals("pqssh")) {
                // the JIT threads are part of the server's CPU, never more than all of it
                double jit = o.get("server_jit_ms_per_conn").asDouble();
                assertTrue(jit >= 0 && jit <= o.get("cpu_ms_per_conn").asDouble(), o.toString());
            } else {
                assertTrue(o.get("server_jit_ms_per_conn").isNull(), o.toString());
            }
            assertTrue(o.get("peak_mem_mb").asDouble() > 1, o.toString());
            assertTrue(o.get("kex").asText().startsWith("sntrup761x25519-sha512"), o.toString());
        }
        List<String> csv = Files.readAllLines(out.resolve("load.csv"));
        assertEquals(7, csv.size());
        assertTrue(csv.get(0).startsWith("server,method,workers,status,kex,conn_per_s"), csv.get(0));
        byte[] png = Files.readAllBytes(out.resolve("load.png"));
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, Arrays.copyOf(png, 4));
        String md = Files.readString(out.resolve("load.md"));
        assertTrue(md.contains("| pqssh | publickey-kem-mlkem768 | 2 | ok |"), md);
        assertTrue(md.contains("pqssh / OpenSSH logins per second"), md);
        assertTrue(LoadLab.speedups(rs).containsKey(2));
        // sshd's log agrees: as many accepted logins as the client completed
        assertNoServerLeft();
    }

    /** The server child writes its port file once it listens (its start-up takes seconds on a loaded machine). */
    private static boolean serverListening(java.nio.file.Path work) {
        try (var files = java.nio.file.Files.walk(work, 4)) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("port-"));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void serverKilledMidRunGivesFailuresAndLeavesNothingBehind() throws Exception {
        LoadLab.Settings s = new LoadLab.Settings(List.of("pqssh"), List.of(LoadMethod.ED25519), List.of(2),
                Duration.ofMillis(500), Duration.ofMillis(3500), dir.resolve("work"), ServerProcess.DEBIAN_SSHD, null,
                Duration.ofSeconds(10));
        Thread killer = new Thread(() -> {
            long end = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < end) {
                Optional<ProcessHandle> srv = labServer();
                if (srv.isPresent() && serverListening(dir.resolve("work"))) {
                    try {
                        Thread.sleep(2000); // past the 0.5 s warm-up, into the measured window
                    } catch (InterruptedException e) {
                        return;
                    }
                    srv.get().destroyForcibly();
                    return;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        killer.start();
        List<LoadResult> rs = LoadLab.run(s, null);
        killer.join();
        assertEquals(1, rs.size());
        LoadResult r = rs.get(0);
        assertEquals("server-died", r.status(), r.toString());
        assertFalse(r.serverAliveAtEnd());
        assertTrue(r.failures() > 0, r.toString());
        assertTrue(r.failuresByCause().containsKey("connect-refused"), r.failuresByCause().toString());
        assertNotNull(r.note());
        assertFalse(LoadLab.allOk(rs));
        LoadLab.write(dir.resolve("out"), rs);
        assertTrue(Files.readString(dir.resolve("out/load.md")).contains("server-died"));
        assertNoServerLeft();
    }

    @Test
    void openSshHasNoKemMethodAndUnknownNamesAreErrors() throws Exception {
        LabKeys keys = LabKeys.create(dir.resolve("k"));
        ServerProcess.OpenSsh o = new ServerProcess.OpenSsh(dir, ServerProcess.DEBIAN_SSHD, keys, "x", List.of());
        assertFalse(o.supports(LoadMethod.KEM_MLKEM768));
        assertTrue(o.supports(LoadMethod.ED25519));
        assertEquals(LoadMethod.KEM_MLKEM768, LoadMethod.parse("kem"));
        assertEquals(LoadMethod.MLDSA65, LoadMethod.parse("ML-DSA-65"));
        assertThrows(() -> LoadMethod.parse("rsa"));
        assertNull(LoadResult.notMeasured("a", "b", 1, "n/a", "k", null).connPerS());
        assertEquals("connect-refused", LoadGenerator.cause(new java.net.ConnectException("Connection refused")));
        String auth = Files.readString(keys.authorizedKeysAll);
        assertTrue(auth.contains("ssh-ed25519 ") && auth.contains("ssh-mldsa-65 ") && auth.contains("mlkem768 "), auth);
        assertFalse(Files.readString(keys.authorizedKeysOpenSsh).contains("mlkem768"));
    }

    @Test
    void bothServerKindsSkipTheShellRcForTheLabsOwnAccountAndNeitherForAnother() throws Exception {
        LabKeys keys = LabKeys.create(dir.resolve("k"));
        Duration d = Duration.ofSeconds(1);
        // the product server's main class must load; LabServerMain stands in for io.pqssh.cli.Main (not started)
        String main = LabServerMain.class.getName();
        LoadLab.Settings own = new LoadLab.Settings(List.of("pqssh-nopam", "openssh"), List.of(LoadMethod.ED25519),
                List.of(1), d, d, dir, ServerProcess.DEBIAN_SSHD, main, d);
        assertTrue(own.ownAccount());
        assertEquals(System.getProperty("user.name"), own.loginUser());
        for (String name : List.of("pqssh-nopam", "pqssh-pam")) {
            List<String> cfg = ((ServerProcess.Pqssh) LoadLab.server(own, keys, name, dir)).configLines();
            assertTrue(cfg.contains(LoadLab.SKIP_SHELL_RC), name + ": " + cfg);
        }
        for (String name : List.of("openssh", "openssh-pam")) {
            List<String> cfg = ((ServerProcess.OpenSsh) LoadLab.server(own, keys, name, dir)).configLines(2222);
            assertTrue(cfg.contains(LoadLab.SKIP_SHELL_RC), name + ": " + cfg);
            assertTrue(cfg.contains("AllowUsers " + System.getProperty("user.name")), cfg.toString());
        }
        LoadLab.Settings other = new LoadLab.Settings(List.of("pqssh-nopam", "openssh"),
                List.of(LoadMethod.ED25519), List.of(1), d, d, dir, ServerProcess.DEBIAN_SSHD, main, d, "someone",
                false);
        assertFalse(other.ownAccount());
        assertEquals("someone", other.loginUser());
        for (String name : List.of("pqssh-nopam", "pqssh-pam")) {
            List<String> cfg = ((ServerProcess.Pqssh) LoadLab.server(other, keys, name, dir)).configLines();
            assertTrue(cfg.stream().noneMatch(l -> l.startsWith("SetEnv")), name + ": " + cfg);
        }
        for (String name : List.of("openssh", "openssh-pam")) {
            List<String> cfg = ((ServerProcess.OpenSsh) LoadLab.server(other, keys, name, dir)).configLines(2222);
            assertTrue(cfg.stream().noneMatch(l -> l.startsWith("SetEnv")), name + ": " + cfg);
            assertTrue(cfg.contains("AllowUsers someone"), cfg.toString());
        }
        assertEquals(LabAccount.DEFAULT_NAME, new LoadLab.Settings(List.of("openssh"), List.of(LoadMethod.ED25519),
                List.of(1), d, d, dir, ServerProcess.DEBIAN_SSHD, null, d, null, true).loginUser());
    }

    @Test
    void anotherAccountLogsInWithItsOwnShellRcAndTheServerCpuComesFromItsCgroup() throws Exception {
        requireSshd();
        ServerCgroupTest.requireRootAndCgroup2();
        String name = "pqsshlabtest";
        // sshd opens the authorized keys as the account: the work directory's parents must let it through
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        try (LabAccount a = LabAccount.create(name)) {
            // each run of the account's ~/.bashrc leaves a line (before /etc/skel's return for non-interactive shells)
            Path rc = a.home().resolve(".bashrc");
            Files.writeString(rc, "echo x >> \"$HOME/rc-ran\"\n" + Files.readString(rc));
            LoadLab.Settings s = new LoadLab.Settings(List.of("openssh"), List.of(LoadMethod.ED25519), List.of(1),
                    Duration.ofMillis(1000), Duration.ofMillis(5000), dir.resolve("work"), ServerProcess.DEBIAN_SSHD,
                    null, Duration.ofSeconds(20), name, false);
            List<LoadResult> rs = LoadLab.run(s, null);
            LoadResult r = rs.get(0);
            assertEquals("ok", r.status(), r.toString());
            assertEquals(name, r.loginUser());
            assertEquals("cgroup-v2 cpu.stat", r.cpuSource(), r.toString());
            assertTrue(r.cpuMsPerConn() > 0 && r.procCpuMsPerConn() != null, r.toString());
            assertNotNull(r.loadavgStart());
            // sshd ran the account's shell as a real login does, start-up file included, once per login
            Path ran = a.home().resolve("rc-ran");
            assertTrue(Files.exists(ran), "the account's ~/.bashrc never ran under sshd (SetEnv SHLVL=1?)");
            assertEquals(r.clientLoginsTotal(), Files.readAllLines(ran).size(), r.toString());
        }
        assertFalse(LabAccount.exists(name));
        assertNoServerLeft();
    }

    @Test
    void createUserMakesTheAccountForTheRunAndRemovesIt() throws Exception {
        requireSshd();
        ServerCgroupTest.requireRootAndCgroup2();
        String name = "pqsshlabtest2";
        assertFalse(LabAccount.exists(name), name + " exists before the test");
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        LoadLab.Settings s = new LoadLab.Settings(List.of("openssh"), List.of(LoadMethod.ED25519), List.of(1),
                Duration.ofMillis(1000), Duration.ofMillis(5000), dir.resolve("work"), ServerProcess.DEBIAN_SSHD,
                null, Duration.ofSeconds(20), name, true);
        List<LoadResult> rs = LoadLab.run(s, null);
        assertEquals("ok", rs.get(0).status(), rs.toString());
        assertEquals(name, rs.get(0).loginUser());
        assertFalse(LabAccount.exists(name), "the lab left its account behind");
        // an account that exists is never taken over (nor removed)
        String me = System.getProperty("user.name");
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> LoadLab.run(new LoadLab.Settings(List.of("openssh"), List.of(LoadMethod.ED25519), List.of(1),
                        Duration.ofMillis(300), Duration.ofMillis(2500), dir.resolve("work2"),
                        ServerProcess.DEBIAN_SSHD, null, Duration.ofSeconds(20), me, true), null));
        assertTrue(e.getMessage().contains("already exists"), e.getMessage());
        assertTrue(LabAccount.exists(me));
        assertNoServerLeft();
    }

    private static void assertThrows(Runnable r) {
        try {
            r.run();
        } catch (IllegalArgumentException expected) {
            return;
        }
        fail("expected IllegalArgumentException");
    }

    static Optional<ProcessHandle> labServer() {
        return ProcessHandle.current().descendants().filter(p -> p.info().commandLine().orElse("")
                .contains(LabServerMain.class.getName())).findFirst();
    }

    static void assertNoServerLeft() throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < end) {
            List<ProcessHandle> left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        fail("processes left behind: " + ProcessHandle.current().descendants()
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList());
    }
}
