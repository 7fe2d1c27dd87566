package io.pqssh.cli.lab;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.pqssh.lab.link.Connection;
import io.pqssh.lab.link.LinkConfig;
import io.pqssh.lab.link.LinkEmulator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pqssh lab link}: starts just the emulated link and prints how to run programs on each side. */
@Command(name = "link", mixinStandardHelpOptions = true,
        description = {"Start an emulated link between two network namespaces (TUN devices, user-space delay/loss/"
                + "rate), print the commands to run on each side, and keep it up until Ctrl-C. Needs root."})
public final class LabLinkCommand implements Callable<Integer> {
    @Option(names = "--rtt", description = "round-trip time in ms, split evenly (default ${DEFAULT-VALUE})",
            defaultValue = "67")
    double rttMs;

    @Option(names = "--delay-a2b", description = "one-way delay server→client side in ms (overrides --rtt)")
    Double delayA2b;

    @Option(names = "--delay-b2a", description = "one-way delay client→server side in ms (overrides --rtt)")
    Double delayB2a;

    @Option(names = "--loss", description = "random loss in percent, each direction (default ${DEFAULT-VALUE})",
            defaultValue = "0")
    double lossPct;

    @Option(names = "--loss-a2b", description = "loss in percent server→client (overrides --loss)")
    Double lossA2b;

    @Option(names = "--loss-b2a", description = "loss in percent client→server (overrides --loss)")
    Double lossB2a;

    @Option(names = "--seed", description = "seed of the loss draws (default ${DEFAULT-VALUE})", defaultValue = "1")
    long seed;

    @Option(names = "--rate", description = "rate cap in Mbit/s per direction, 0 = none (default ${DEFAULT-VALUE})",
            defaultValue = "0")
    double rateMbit;

    @Option(names = "--buffer", description = "drop-tail buffer in bytes in front of the rate cap "
            + "(default ${DEFAULT-VALUE})", defaultValue = "64000")
    int buffer;

    @Option(names = "--initcwnd", description = "initial congestion window in MSS on both routes "
            + "(default ${DEFAULT-VALUE})", defaultValue = "10")
    int initcwnd;

    @Option(names = "--initrwnd", description = "initial receive window in MSS (default ${DEFAULT-VALUE})",
            defaultValue = "1000")
    int initrwnd;

    @Option(names = "--stats", description = "print counters every N seconds, 0 = only new connections "
            + "(default ${DEFAULT-VALUE})", defaultValue = "0")
    int statsSeconds;

    @Override
    public Integer call() throws Exception {
        if (rttMs < 0 || lossPct < 0 || rateMbit < 0 || statsSeconds < 0) {
            throw new IllegalArgumentException("--rtt, --loss, --rate and --stats must not be negative");
        }
        long a2b = Math.round((delayA2b != null ? delayA2b : rttMs / 2) * 1000);
        long b2a = Math.round((delayB2a != null ? delayB2a : rttMs / 2) * 1000);
        double la = (lossA2b != null ? lossA2b : lossPct) / 100.0;
        double lb = (lossB2a != null ? lossB2a : lossPct) / 100.0;
        LinkConfig cfg = new LinkConfig(a2b, b2a, la, lb, seed, Math.round(rateMbit * 1e6), buffer, initcwnd, initrwnd);
        CountDownLatch forever = new CountDownLatch(1);
        try (LinkEmulator link = LinkEmulator.start(cfg)) {
            System.out.printf("link up: %.3f ms one-way A→B, %.3f ms B→A, loss %.3f %% / %.3f %%, rate %s, "
                    + "initcwnd %d, congctl cubic%s%n", a2b / 1000.0, b2a / 1000.0, la * 100, lb * 100,
                    rateMbit == 0 ? "unlimited" : rateMbit + " Mbit/s (buffer " + buffer + " B)", initcwnd,
                    link.realtime() ? ", emulator at SCHED_FIFO" : "");
            System.out.println("side A (server) " + LinkEmulator.ADDR_A + " in namespace " + link.nsA() + ":");
            System.out.println("  ip netns exec " + link.nsA() + " <command>      e.g. ... python3 -m http.server 8000"
                    + " --bind " + LinkEmulator.ADDR_A);
            System.out.println("side B (client) " + LinkEmulator.ADDR_B + " in namespace " + link.nsB() + ":");
            System.out.println("  ip netns exec " + link.nsB() + " <command>      e.g. ... curl http://"
                    + LinkEmulator.ADDR_A + ":8000/");
            System.out.println("Ctrl-C stops the link and removes both namespaces.");
            System.out.flush();
            Set<Connection> printed = new HashSet<>();
            long lastStats = System.nanoTime();
            while (!forever.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
                link.checkHealthy();
                long now = System.nanoTime();
                for (Connection c : link.connections()) {
                    // a connection is reported once it has been quiet for 2 s
                    if (!printed.contains(c) && now - c.lastPacketNanos() > 2_000_000_000L) {
                        printed.add(c);
                        System.out.println("connection " + c);
                    }
                }
                if (statsSeconds > 0 && now - lastStats >= statsSeconds * 1_000_000_000L) {
                    lastStats = now;
                    System.out.println("A→B " + link.aToB() + "; B→A " + link.bToA());
                }
                System.out.flush();
            }
        }
        return 0;
    }
}
