package io.pqssh.lab.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.pqssh.lab.link.Netns;
import io.pqssh.lab.report.HandshakeReport;

/** A quick lab run over the emulated link (root), and the lab's refusals. */
class HandshakeLabTest {
    static final List<String> SUMMARY_KEYS = List.of("suite", "config", "peer", "rtt_ms", "loss_pct", "initcwnd", "n",
            "auth_ms", "total_ms", "bytes_c2s", "bytes_s2c", "round_trips", "retransmissions");

    @Test
    void quickRunOfThreeConfigurationsAtRtt20(@TempDir Path out) throws Exception {
        Netns.requireUsable();
        List<HandshakeConfig> configs = List.of(HandshakeConfig.byName("ed25519+ed25519"),
                HandshakeConfig.byName("mk768+md65"), HandshakeConfig.byName("password"));
        HandshakeLab.Plan plan = new HandshakeLab.Plan(configs, List.of(20.0), List.of(0.0), List.of(10), 2, 1, 7L, out,
                false);
        List<Sample> counted = new HandshakeLab(plan, System.err).run();
        assertEquals(6, counted.size());
        for (Sample s : counted) {
            assertTrue(s.ok(), s.toString());
            // physics: ≥ 3 RTT to auth (TCP, banners+KEXINIT with the guessed KEX init in the same flight, KEX
            // reply then NEWKEYS+service+auth pipelined without the `none` probe), `true` after auth
            assertTrue(s.authMs() > 3 * 20 && s.totalMs() > s.authMs() && s.linkMs() >= s.totalMs(), s.toString());
            assertTrue(s.roundTrips() >= 4 && s.roundTripsAuth() >= 3 && s.roundTripsAuth() <= s.roundTrips(),
                    s.toString());
            assertTrue(s.bytesC2sAuth() > 1000 && s.bytesC2sAuth() <= s.bytesC2s(), s.toString());
            assertTrue(s.retransmissions() == 0 && s.emulatorRetransmissions() == 0, s.toString());
            assertEquals("mlkem768x25519-sha256", s.kex(), s.toString());
            // the emulator's TCP payload bytes are exactly what MINA wrote on one side and read on the other
            assertTrue(s.payloadC2s() > 1000 && s.payloadS2c() > 1000, s.toString());
            assertEquals(s.payloadC2s(), s.minaBytesC2s(), "c2s: emulator vs client MINA written " + s);
            assertEquals(s.payloadC2s(), s.minaServerBytesC2s(), "c2s: emulator vs server MINA read " + s);
            assertEquals(s.payloadS2c(), s.minaBytesS2c(), "s2c: emulator vs client MINA read " + s);
            assertEquals(s.payloadS2c(), s.minaServerBytesS2c(), "s2c: emulator vs server MINA written " + s);
            // the IP byte counts are the payload plus 40-60 B of IPv4+TCP headers per packet
            assertTrue(s.bytesC2s() >= s.payloadC2s() + 40 * s.packetsC2s()
                    && s.bytesC2s() <= s.payloadC2s() + 60 * s.packetsC2s(), s.toString());
        }
        // the host key crosses the wire in the KEX reply: ML-DSA-65 (1952 B key, 3309 B signature) vs Ed25519
        long ed = counted.stream().filter(s -> s.config().equals("ed25519+ed25519")).mapToLong(Sample::bytesS2cAuth)
                .max().orElseThrow();
        long md = counted.stream().filter(s -> s.config().equals("mk768+md65")).mapToLong(Sample::bytesS2cAuth)
                .min().orElseThrow();
        assertTrue(md - ed > 1952 + 3309, "ML-DSA-65 host key adds its key and signature: " + ed + " vs " + md);
        // the dissector: the KEX reply grows by the ML-DSA-65 key and signature blobs (1921 + 3246 B) plus padding
        int reply = List.of(Sample.COLUMNS).indexOf("kex_reply_s2c") - Sample.BASE_COLUMNS.length;
        long edReply = counted.stream().filter(s -> s.config().equals("ed25519+ed25519")).mapToLong(s -> s.wire()[reply])
                .max().orElseThrow();
        long mdReply = counted.stream().filter(s -> s.config().equals("mk768+md65")).mapToLong(s -> s.wire()[reply])
                .min().orElseThrow();
        assertTrue(edReply > 1088 + 51 + 83 && mdReply - edReply >= 1921 + 3246 && mdReply - edReply < 1921 + 3246 + 64,
                "KEX reply " + edReply + " vs " + mdReply);
        for (Sample s : counted) {
            long[] w = s.wire();
            int half = w.length / 2;
            assertTrue(w[0] > 10 && w[1] > 500 && w[2] > 1000 && w[half + 3] > 1000 && w[4] == 16 && w[half + 4] == 16
                    && w[6] > 100 && w[half + 6] > 100, java.util.Arrays.toString(w));
        }
        assertEquals("ssh-mldsa-65", counted.stream().filter(s -> s.config().equals("mk768+md65")).findFirst()
                .orElseThrow().hostKeyType());

        for (String f : HandshakeReport.FILES) {
            assertTrue(Files.size(out.resolve(f)) > 100, f);
        }
        List<String> csv = Files.readAllLines(out.resolve("raw.csv"));
        assertEquals(String.join(",", Sample.COLUMNS), csv.get(0));
        assertEquals(1 + 9, csv.size(), "3 configurations × (1 warm-up + 2 runs)");
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(3, summary.size());
        Set<String> names = new HashSet<>();
        for (JsonNode m : summary) {
            for (String k : SUMMARY_KEYS) {
                assertTrue(m.has(k), "summary.json lacks " + k + ": " + m);
            }
            for (String k : List.of("auth_ms", "total_ms")) {
                for (String p : List.of("p5", "p50", "p95", "p99", "mean")) {
                    assertTrue(m.get(k).get(p).isNumber(), k + "." + p);
                }
            }
            assertEquals(2, m.get("n").asInt());
            assertEquals("pqssh", m.get("peer").asText());
            assertEquals(20.0, m.get("rtt_ms").asDouble());
            names.add(m.get("config").asText());
        }
        assertEquals(Set.of("ed25519+ed25519", "mk768+md65", "password"), names);
        String md5 = Files.readString(out.resolve("report.md"));
        assertTrue(md5.contains("| fig5 | mk768+md65 |") && md5.contains("Figure 5 layout"), md5);
        assertTrue(Files.readString(out.resolve("bytes.svg")).startsWith("<svg"));
        String mine = Netns.PREFIX + ProcessHandle.current().pid() + "-";
        assertFalse(Netns.ours().stream().anyMatch(n -> n.startsWith(mine)), "namespaces left behind");
    }

    /**
     * The three pairings on one link, one configuration both OpenSSH 9.2 and pqssh run (sntrup761, Ed25519 keys):
     * OpenSSH's client needs more round trips than pqssh's client against the same sshd (no `none` probe, the
     * first KEX packet guessed right against sshd's default order, TCP_NODELAY), and every pairing is timed by the
     * emulator and negotiates the configured KEX.
     */
    @Test
    void openSshSideBySideAndPqsshClientAgainstSshd(@TempDir Path out) throws Exception {
        Netns.requireUsable();
        HandshakeConfig c = HandshakeConfig.user("sntrup761x25519-sha512", "ed25519", "ed25519");
        HandshakeLab.Plan plan = new HandshakeLab.Plan(List.of(c), List.of(20.0), List.of(0.0), List.of(10), 2, 0, 3L,
                out, false, List.of("pqssh", "openssh", HandshakeLab.PQSSH_TO_OPENSSH), null);
        List<Sample> counted = new HandshakeLab(plan, System.err).run();
        assertEquals(6, counted.size(), counted.toString());
        java.util.Map<String, Integer> maxRt = new java.util.HashMap<>();
        java.util.Map<String, Integer> minRt = new java.util.HashMap<>();
        for (Sample s : counted) {
            assertTrue(s.ok(), s.toString());
            assertEquals("sntrup761x25519-sha512", s.kex(), s.toString());
            assertEquals("ssh-ed25519", s.hostKeyType(), s.toString());
            assertTrue(s.authMs() > 3 * 20 && s.totalMs() > s.authMs(), s.toString());
            assertTrue(s.bytesC2s() > 2000 && s.bytesS2c() > 2000, s.toString());
            maxRt.merge(s.peer(), s.roundTrips(), Math::max);
            minRt.merge(s.peer(), s.roundTrips(), Math::min);
        }
        assertEquals(java.util.Set.of("pqssh", "openssh", HandshakeLab.PQSSH_TO_OPENSSH), maxRt.keySet());
        assertTrue(maxRt.get(HandshakeLab.PQSSH_TO_OPENSSH) < minRt.get("openssh"),
                "pqssh client vs OpenSSH client against the same sshd: " + maxRt + " / " + minRt);
        // the guess was right against sshd's default order: one KEX init on the wire, as from OpenSSH's client (a
        // wrong guess doubles it). (Round trips themselves are not pinned here: at a 20 ms RTT a slow sntrup761
        // key generation can make the guessed packet leave after the server's KEXINIT and count as a turn.)
        int kexInit = List.of(Sample.COLUMNS).indexOf("kex_init_c2s") - Sample.BASE_COLUMNS.length;
        long sshInit = counted.stream().filter(s -> s.peer().equals("openssh")).mapToLong(s -> s.wire()[kexInit])
                .max().orElseThrow();
        for (Sample s : counted) {
            if (s.peer().equals(HandshakeLab.PQSSH_TO_OPENSSH)) {
                assertTrue(s.wire()[kexInit] > 1000 && s.wire()[kexInit] < sshInit + 100,
                        "KEX init bytes " + s.wire()[kexInit] + " vs OpenSSH's " + sshInit);
            }
        }
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        Set<String> peers = new HashSet<>();
        summary.forEach(m -> peers.add(m.get("peer").asText()));
        assertEquals(Set.of("pqssh", "openssh", HandshakeLab.PQSSH_TO_OPENSSH), peers);
        // one plotted line per peer, not a median across them
        String svg = Files.readString(out.resolve("latency-vs-rtt.svg"));
        assertTrue(svg.contains(c.name() + " (openssh)") && svg.contains(c.name() + " (pqssh-to-openssh)"), svg);
        String mine = Netns.PREFIX + ProcessHandle.current().pid() + "-";
        assertFalse(Netns.ours().stream().anyMatch(n -> n.startsWith(mine)), "namespaces left behind");
    }

    /** Debian's OpenSSH 9.2 lacks mlkem768x25519: its rows of the default-KEX configurations run sntrup761. */
    @Test
    void openSshPeerFallsBackToTheFirstKexItHas() throws Exception {
        try (OpenSshPeer peer = new OpenSshPeer(null)) {
            HandshakeConfig ed = HandshakeConfig.byName("ed25519");
            assertEquals(null, peer.unsupported(ed));
            assertEquals("sntrup761x25519-sha512", peer.kexFor(ed).get(0), "9.2's first from " + ed.clientKex());
            assertTrue(peer.kexSubstitution(ed).contains("lacks mlkem768x25519-sha256"), peer.kexSubstitution(ed));
            HandshakeConfig same = HandshakeConfig.user("sntrup761x25519-sha512", "ed25519", "ed25519");
            assertEquals(null, peer.kexSubstitution(same));
            HandshakeConfig mlkemOnly = HandshakeConfig.user("mlkem768x25519-sha256", "ed25519", "ed25519");
            assertEquals(List.of("sntrup761x25519-sha512"), peer.kexFor(mlkemOnly));
            assertTrue(peer.kexSubstitution(mlkemOnly).startsWith("runs sntrup761x25519-sha512"));
            assertTrue(peer.unsupported(HandshakeConfig.byName("md65")).contains("Ed25519 host and user keys only"));
            // a post-quantum row stays post-quantum: mlkem768x25519,curve25519 runs sntrup761 first, not curve25519
            HandshakeConfig bothPq = HandshakeConfig.byName("blog-both-pq/ed25519-keys");
            assertEquals(List.of("sntrup761x25519-sha512", "curve25519-sha256"), peer.kexFor(bothPq));
            assertEquals(List.of("curve25519-sha256"),
                    peer.kexFor(HandshakeConfig.byName("blog-classical/ed25519-keys")));
        }
    }

    @Test
    void unknownConfigurationIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HandshakeConfig.byName("md66+md65"));
        assertTrue(e.getMessage().contains("unknown configuration 'md66+md65'") && e.getMessage().contains("md65+md65"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HandshakeConfig.suite("fig9"));
        assertThrows(IllegalArgumentException.class, () -> HandshakeConfig.user(null, "rsa", "ed25519"));
        assertThrows(IllegalArgumentException.class, () -> HandshakeLab.doubles("20,-1", "--rtt"));
    }

    @Test
    void catalogHasThePublishedLabels() {
        for (String n : List.of("ed25519", "md44", "md65", "md87", "falcon512", "falcon1024", "sd128f", "sd192f",
                "sd256f", "mk512", "mk768", "mk1024", "password", "h-md65", "h-sd192f", "h-mk768-md65",
                "h-mk768-sd192f", "ms-md65", "ms-mk768", "mk768-md65", "ed25519+ed25519", "md65+md65",
                "sd192f+sd192f", "mk768+md65", "mk768+sd192f")) {
            assertEquals(n, HandshakeConfig.byName(n).name());
        }
        assertEquals(16, HandshakeConfig.suite("blog").size());
        assertTrue(HandshakeConfig.suite("fig5").stream().allMatch(HandshakeConfig::supported));
        assertTrue(HandshakeConfig.suite("fig4").stream().allMatch(HandshakeConfig::supported));
        assertEquals(7, HandshakeConfig.suite("fig4").size());
    }

    /** Figure 4's table: client auth (the server's AuthenticationMethods) and host key per label. */
    @Test
    void figure4ConfigurationsAreThePublishedOnes() {
        String[][] rows = {
            {"h-md65", "publickey-hybrid-and", "publickey-hybrid-and", "ssh-ed25519-mldsa-65"},
            {"h-sd192f", "publickey-hybrid-and", "publickey-hybrid-and", "ssh-ed25519-slhdsapuresha2192f"},
            {"h-mk768-md65", "publickey-kem-and", "publickey-kem-and", "ssh-ed25519-mldsa-65"},
            {"h-mk768-sd192f", "publickey-kem-and", "publickey-kem-and", "ssh-ed25519-slhdsapuresha2192f"},
            {"ms-md65", "publickey,publickey", "publickey,publickey", "ssh-ed25519-mldsa-65"},
            {"ms-mk768", "publickey,publickey-kem", "publickey,publickey-kem", "ssh-ed25519-mldsa-65"},
            {"mk768-md65", "publickey-kem", "any", "ssh-mldsa-65"}};
        for (String[] r : rows) {
            HandshakeConfig c = HandshakeConfig.byName(r[0]);
            assertEquals("fig4", c.suite());
            assertEquals(r[1], c.method(), r[0]);
            assertEquals(r[2], c.serverAuthenticationMethods(), r[0]);
            assertTrue(c.serverProfile().endsWith("|" + r[2]), c.serverProfile());
            assertEquals(r[3], HandshakeConfig.SIG_TYPES.get(c.hostKey()), r[0]);
        }
        // the user keys: composite for h-md65/h-sd192f, Ed25519 then the PQ key for the multi-step ones
        assertEquals("ed25519-md65", HandshakeConfig.byName("h-md65").auth());
        assertEquals("ed25519-sd192f", HandshakeConfig.byName("h-sd192f").auth());
        assertEquals("ed25519+mk768", HandshakeConfig.byName("h-mk768-md65").auth());
        assertEquals("ed25519,md65", HandshakeConfig.byName("ms-md65").auth());
        assertEquals("ed25519,mk768", HandshakeConfig.byName("ms-mk768").auth());
        LabClient.Credentials ms = LabClient.Credentials.of("ed25519,md65");
        assertEquals(List.of("publickey"), ms.methods());
        assertEquals(List.of("ssh-ed25519", "ssh-mldsa-65"), ms.keys().stream()
                .map(k -> org.apache.sshd.common.config.keys.KeyUtils.getKeyType(k.getPublic())).toList());
        LabClient.Credentials kemAnd = LabClient.Credentials.of("ed25519+mk768");
        assertEquals(List.of("publickey-kem-and"), kemAnd.methods());
        assertTrue(kemAnd.kem().signatureKey().isPresent() && kemAnd.keys().isEmpty());
        assertEquals(List.of("publickey-hybrid-and"), LabClient.Credentials.of("ed25519-sd192f").methods());
        // user-defined configurations accept the same forms, and refuse a composite inside publickey-kem-and
        assertEquals("publickey,publickey-kem", HandshakeConfig.user(null, "ed25519-md65", "md65,mk768").method());
        assertThrows(IllegalArgumentException.class, () -> HandshakeConfig.user(null, "ed25519", "ed25519-md65+mk768"));
        assertThrows(IllegalArgumentException.class, () -> HandshakeConfig.user(null, "ed25519", "ed25519,"));
        assertThrows(IllegalArgumentException.class, () -> HandshakeConfig.user(null, "ed25519", "md65+md65"));
    }

    @Test
    void openSshPeerSaysWhichArtifactExtensionsItLacks() {
        for (HandshakeConfig c : HandshakeConfig.suite("fig4")) {
            String why = OpenSshPeer.artifactGap(c);
            assertTrue(why != null && why.startsWith("stock OpenSSH (Debian 9.2) has no "), c.name() + ": " + why);
        }
        String h = OpenSshPeer.artifactGap(HandshakeConfig.byName("h-sd192f"));
        assertTrue(h.contains("ssh-ed25519-slhdsapuresha2192f keys") && h.contains("publickey-hybrid-and"), h);
        String ms = OpenSshPeer.artifactGap(HandshakeConfig.byName("ms-md65"));
        assertTrue(ms.contains("ssh-ed25519-mldsa-65 keys") && !ms.contains("publickey-"), ms);
        assertTrue(OpenSshPeer.artifactGap(HandshakeConfig.byName("h-mk768-md65")).contains("publickey-kem-and"));
        assertEquals(null, OpenSshPeer.artifactGap(HandshakeConfig.byName("ed25519")));
    }

    /** Every Figure 4 configuration (and its Ed25519 baseline) logs in with the lab's client against its server. */
    @Test
    void figure4LogsInOnLoopback(@TempDir Path out) throws Exception {
        List<HandshakeConfig> configs = new java.util.ArrayList<>(List.of(HandshakeConfig.byName("ed25519")));
        configs.addAll(HandshakeConfig.suite("fig4"));
        assertEquals(8, configs.size());
        HandshakeLab.Plan plan = new HandshakeLab.Plan(configs, List.of(0.0), List.of(0.0), List.of(10), 1, 0, 3L, out,
                true);
        List<Sample> samples = new HandshakeLab(plan, System.err).run();
        assertEquals(8, samples.size());
        java.util.Map<String, Sample> by = new java.util.HashMap<>();
        for (Sample s : samples) {
            assertTrue(s.ok(), s.toString());
            assertEquals(HandshakeConfig.SIG_TYPES.get(HandshakeConfig.byName(s.config()).hostKey()), s.hostKeyType(),
                    s.toString());
            assertEquals(HandshakeConfig.byName(s.config()).method(), s.method());
            assertTrue(s.minaBytesC2s() > 1000 && s.minaBytesC2s() == s.minaServerBytesC2s(), s.toString());
            by.put(s.config(), s);
        }
        assertEquals(8, by.size());
        long edC2s = by.get("ed25519").minaBytesC2s();
        long edS2c = by.get("ed25519").minaBytesS2c();
        // the user's signature crosses c2s: SLH-DSA-192f's 35,664 B, ML-DSA-65's 3,309 B (plus its 1,952 B key,
        // twice: query and signed request), on top of the Ed25519 baseline
        assertTrue(by.get("h-sd192f").minaBytesC2s() - edC2s > 35_664, by.get("h-sd192f").toString());
        assertTrue(by.get("h-md65").minaBytesC2s() - edC2s > 3_309 + 2 * 1_952, by.get("h-md65").toString());
        assertTrue(by.get("ms-md65").minaBytesC2s() - edC2s > 3_309 + 2 * 1_952, by.get("ms-md65").toString());
        // s2c: the composite host key and its signature in the KEX reply replace Ed25519's (+1,952 + 3,309 B for
        // ML-DSA-65, +48 + 35,664 B for SLH-DSA-192f); PK_OK echoes the user's key; publickey-kem's challenge
        // carries an ML-KEM-768 ciphertext (1,088 B)
        long md65Host = 1_952 + 3_309;
        assertTrue(by.get("h-md65").minaBytesS2c() - edS2c > md65Host + 1_952, by.get("h-md65").toString());
        assertTrue(by.get("h-sd192f").minaBytesS2c() - edS2c > 35_664 + 48, by.get("h-sd192f").toString());
        assertTrue(by.get("h-mk768-sd192f").minaBytesS2c() - edS2c > 35_664 + 48 + 1_000,
                by.get("h-mk768-sd192f").toString());
        assertTrue(by.get("h-mk768-md65").minaBytesS2c() - edS2c > md65Host + 1_000, by.get("h-mk768-md65").toString());
        assertTrue(by.get("ms-md65").minaBytesS2c() - edS2c > md65Host + 1_952, by.get("ms-md65").toString());
        assertTrue(by.get("ms-mk768").minaBytesS2c() - edS2c > md65Host + 1_000, by.get("ms-mk768").toString());
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("h-mk768-sd192f") && !report.contains("unsupported"), report);
    }
}
