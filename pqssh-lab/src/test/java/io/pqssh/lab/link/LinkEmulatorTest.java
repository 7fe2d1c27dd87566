package io.pqssh.lab.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The emulated link against real kernel TCP in two namespaces (needs root: fails loudly without it). */
class LinkEmulatorTest {
    private static final int PORT = 5001;

    @BeforeAll
    static void needsRootAndIp() throws IOException {
        Netns.requireUsable(); // throws "needs root" / "'ip' tool missing": this suite must not skip silently
    }

    @AfterEach
    void nothingLeft() throws IOException {
        String mine = Netns.PREFIX + ProcessHandle.current().pid() + "-";
        List<String> left = Netns.ours().stream().filter(n -> n.startsWith(mine)).toList();
        assertEquals(List.of(), left, "namespaces left behind");
    }

    static Process server(LinkEmulator link) throws IOException {
        Process p = link.spawn(link.nsA(), LinkEmulator.java(TcpProbe.class.getName(),
                List.of("server", Integer.toString(PORT))), ProcessBuilder.Redirect.INHERIT);
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        assertEquals("READY", line, "probe server did not start");
        return p;
    }

    /** Runs the probe client in namespace B: rows of {connect_ms, total_ms}. */
    static List<double[]> client(LinkEmulator link, int size, int count) throws Exception {
        Process p = link.spawn(link.nsB(), LinkEmulator.java(TcpProbe.class.getName(), List.of("client",
                LinkEmulator.ADDR_A, Integer.toString(PORT), Integer.toString(size), Integer.toString(count))),
                ProcessBuilder.Redirect.INHERIT);
        List<double[]> rows = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                String[] f = line.trim().split(" ");
                rows.add(new double[] {Double.parseDouble(f[0]), Double.parseDouble(f[1])});
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe client hung");
        assertEquals(0, p.exitValue(), "probe client failed");
        assertEquals(count, rows.size());
        return rows;
    }

    static double median(List<double[]> rows, int col) {
        return median(rows.stream().mapToDouble(r -> r[col]).toArray());
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The emulator's ruler for the connections since the last clear: {connect_ms, last_server_data_ms}. */
    static double[][] ruler(LinkEmulator link) {
        List<Connection> cs = link.connections();
        link.clearConnections();
        return new double[][] {cs.stream().mapToDouble(Connection::connectMs).toArray(),
                cs.stream().mapToDouble(Connection::lastServerDataMs).toArray()};
    }

    @Test
    void connectTakesTheRtt20() throws Exception {
        try (LinkEmulator link = LinkEmulator.start(LinkConfig.of(20, 0, 10))) {
            server(link);
            List<double[]> rows = client(link, 0, 15);
            List<Connection> conns = link.connections();
            double m = median(ruler(link)[0]);
            System.out.println("RTT 20: connect on the emulator's clock " + m + " ms, in the client process "
                    + median(rows, 0) + " ms, realtime " + link.realtime());
            // 2.5 ms: the emulator's crossings add ~0.7 ms per round trip under CI's load (see the initcwnd table);
            // a delay applied one way only, or twice, is off by >= 10 ms
            assertEquals(20.0, m, 2.5, "connect median at RTT 20: " + m);
            assertEquals(20.0, median(rows, 0), 5.0, "client-side connect time far from the RTT");
            link.checkHealthy();
            // the ruler saw every connection, first SYN to last packet (>= connect + close)
            assertEquals(15, conns.size(), conns.toString());
            for (Connection c : conns) {
                assertTrue(c.durationMs() >= 20.0 && c.roundTrips() >= 1, c.toString());
                assertTrue(c.clientOnSideB);
            }
            assertEquals(0, link.aToB().nonTcp.get() + link.bToA().nonTcp.get(), "IPv6/other noise crossed the link");
        }
    }

    @Test
    void rtt67AndTheInitcwndTable() throws Exception {
        // link-emulation.md: connect() to the last of N bytes sent at once by the server, RTT 67 ms, cubic
        int[] sizes = {4096, 15 * 1024, 30 * 1024};
        double[] iw3 = {135, 270, 337};
        double[] iw10 = {135, 203, 203};
        try (LinkEmulator link = LinkEmulator.start(LinkConfig.of(67, 0, 10))) {
            server(link);
            List<double[]> connect = client(link, 0, 9);
            double m = median(ruler(link)[0]);
            System.out.println("RTT 67: connect on the emulator's clock " + m + " ms, in the client process "
                    + median(connect, 0) + " ms");
            // 3 ms: a median of 9 on a 2-core box that also runs the client and server JVMs came out 68.3 ms once in
            // CI; a wrong delay (one way instead of the round trip, or a second application of it) is off by >= 33 ms
            assertEquals(67.0, m, 3.0, "connect median at RTT 67: " + m);
            List<String> report = new ArrayList<>();
            List<String> bad = new ArrayList<>();
            for (int iw : new int[] {10, 3}) {
                link.setInitcwnd(iw);
                link.flushTcpMetrics();
                for (int i = 0; i < sizes.length; i++) {
                    // two warm-up connections per client JVM are not counted
                    List<double[]> rows = client(link, sizes[i], 9 + 2).subList(2, 11);
                    double[] all = ruler(link)[1];
                    double[] r = Arrays.copyOfRange(all, 2, all.length);
                    double got = median(r);
                    System.out.println("IW" + iw + " " + sizes[i] + " B: emulator " + Arrays.toString(r)
                            + ", client process " + Arrays.toString(rows.stream().mapToDouble(x -> x[1]).toArray()));
                    double want = (iw == 3 ? iw3 : iw10)[i];
                    String cell = "IW" + iw + " " + sizes[i] + " B: " + String.format("%.1f", got) + " ms (table " + want + ")";
                    report.add(cell);
                    // every round trip crosses the emulator's queues twice, which adds a little each time (CI:
                    // +1.3 ms at 2 round trips, +3.2 ms at 5), and a busy 2-core box delays the emulator's threads
                    // (a clean-clone run with a compile beside it: +6.5 ms at 3 round trips, the median of 9); what
                    // the table checks, the number of round trips, is off by >= 67 ms when wrong (33 ms for a delay
                    // applied one way only), so 10 ms + 1 ms per round trip keeps every such error out
                    double roundTrips = Math.round(want / 67.0);
                    if (Math.abs(got - want) > 10.0 + 1.0 * roundTrips) {
                        bad.add(cell);
                    }
                }
            }
            System.out.println("initcwnd table: " + report);
            assertEquals(List.of(), bad, "cells off by more than 10 ms + 1 ms per round trip; all: " + report);
            link.checkHealthy();
        }
    }

    @Test
    void onePercentLossCausesRetransmissions() throws Exception {
        try (LinkEmulator link = LinkEmulator.start(LinkConfig.of(10, 1.0, 10).withSeed(42))) {
            server(link);
            long before = link.kernelRetransmissions();
            client(link, 30 * 1024, 40);
            long kernel = link.kernelRetransmissions() - before;
            long lost = link.aToB().lossDrops.get() + link.bToA().lossDrops.get();
            long seen = link.connections().stream().mapToLong(Connection::retransmissions).sum();
            System.out.println("1% loss: lost " + lost + ", kernel RetransSegs " + kernel + ", emulator-seen " + seen
                    + "; a->b " + link.aToB() + "; b->a " + link.bToA());
            assertTrue(lost > 0, "no packet was dropped at 1 % loss");
            assertTrue(kernel > 0, "kernel retransmitted nothing");
            assertTrue(seen > 0, "emulator saw no retransmitted segment");
        }
    }

    @Test
    void lossFreeLinkDropsNothingAndCounts() throws Exception {
        try (LinkEmulator link = LinkEmulator.start(LinkConfig.of(2, 0, 10))) {
            server(link);
            long before = link.kernelRetransmissions();
            client(link, 100_000, 3);
            assertEquals(0, link.aToB().lossDrops.get() + link.bToA().lossDrops.get());
            assertEquals(0, link.aToB().bufferDrops.get() + link.bToA().bufferDrops.get());
            assertEquals(0, link.aToB().writeFailures.get() + link.bToA().writeFailures.get());
            long retrans = link.kernelRetransmissions() - before;
            // a packet the emulator delivered late (its thread not scheduled on a loaded 2-core machine) can make
            // the kernel retransmit although nothing was lost: a tail-loss probe fires after 2 RTTs (>= 10 ms).
            // The emulator measures its own lateness, so only an unexplained retransmission fails.
            double lateMs = Math.max(link.aToB().latenessNanosMax.get(), link.bToA().latenessNanosMax.get()) / 1e6;
            assertTrue(retrans == 0 || lateMs >= 5.0, "kernel retransmitted " + retrans + " segments on a loss-free"
                    + " link with the emulator at most " + lateMs + " ms late; a->b " + link.aToB() + "; b->a "
                    + link.bToA());
            Connection c = link.connections().get(0);
            assertEquals(100_000, c.payloadS2c());
            assertEquals(4, c.payloadC2s());
            assertTrue(link.aToB().bytes.get() > 300_000, link.aToB().toString());
        }
    }

    @Test
    void rateCapWithSmallBufferDropsInSlowStart() throws Exception {
        // 2 Mbit/s and a 6 KB buffer: a 100 KB response overflows the buffer; TCP recovers
        try (LinkEmulator link = LinkEmulator.start(LinkConfig.of(20, 0, 10).withRate(2_000_000, 6000))) {
            server(link);
            List<double[]> rows = client(link, 100_000, 1);
            assertTrue(link.aToB().bufferDrops.get() > 0, link.aToB().toString());
            assertTrue(rows.get(0)[1] > 400, "100 KB at 2 Mbit/s takes > 400 ms: " + Arrays.toString(rows.get(0)));
        }
    }
}
