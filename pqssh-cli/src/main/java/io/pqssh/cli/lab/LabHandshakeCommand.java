package io.pqssh.cli.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

import java.util.concurrent.Callable;

import io.pqssh.lab.handshake.HandshakeConfig;
import io.pqssh.lab.handshake.HandshakeLab;
import io.pqssh.lab.link.Netns;
import io.pqssh.lab.report.HandshakeReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pqssh lab handshake}: latency, bytes and round trips of SSH logins over the emulated link. */
@Command(name = "handshake", mixinStandardHelpOptions = true,
        description = {"Measure pqssh logins (connect, KEX, auth, `true`) between two network namespaces over the "
                + "emulated link, timed by the link's own clock. Needs root (or --loopback).",
            "Outputs in --out: raw.csv, summary.json, report.md, latency/bytes plots (PNG, SVG); see "
                + "docs/lab-handshake.md."})
public final class LabHandshakeCommand implements Callable<Integer> {
    @Option(names = "--suite", description = "fig3, fig4, fig5, blog or all")
    String suite;

    @Option(names = "--config", split = ",", description = "configuration names (see --list)")
    List<String> names = new ArrayList<>();

    @Option(names = "--kex", description = "user-defined configuration: KEX list (comma-separated)")
    String kex;

    @Option(names = "--hostkey", description = "user-defined configuration: host key (ed25519, md65, sd192f, ...)")
    String hostKey;

    @Option(names = "--auth", description = "user-defined configuration: client auth (ed25519, md65, mk768, password, ...)")
    String auth;

    @Option(names = "--rtt", description = "RTTs in ms, comma-separated (default 67; --suite fig4: 37,67,163)")
    String rtt;

    @Option(names = "--loss", description = "loss in percent, comma-separated (default ${DEFAULT-VALUE})",
            defaultValue = "0")
    String loss;

    @Option(names = "--initcwnd", description = "initial windows in MSS, comma-separated (default 10; --suite fig5: "
            + "3,5,7,10,15,20,25,30,35,40,50, with --quick 3,5,10,30)")
    String initcwnd;

    @Option(names = "--runs", description = "counted runs per configuration and setting (default 20, --quick 3)")
    Integer runs;

    @Option(names = "--warmup", description = "warm-up rounds, not counted (default 2, --quick 1)")
    Integer warmup;

    @Option(names = "--quick", description = "a short run: 3 counted runs, 1 warm-up round")
    boolean quick;

    @Option(names = "--seed", description = "seed for loss draws and shuffling (default ${DEFAULT-VALUE})",
            defaultValue = "1")
    long seed;

    @Option(names = "--out", description = "results folder (default ${DEFAULT-VALUE})", defaultValue = "lab-results")
    Path out;

    @Option(names = "--peer", description = "pqssh (default), openssh, both, all, pqssh-to-openssh (the pqssh client "
            + "against OpenSSH's sshd); comma-separated",
            defaultValue = "pqssh")
    String peer;

    @Option(names = "--openssh-bin", description = "directory with ssh, sshd, ssh-keygen (default: the system's)")
    Path opensshBin;

    @Option(names = "--loopback", description = "no emulated link: server and client on 127.0.0.1 (no root needed; "
            + "no ruler, no byte counts)")
    boolean loopback;

    @Option(names = "--list", description = "list the named configurations and exit")
    boolean list;

    @Option(names = "--rewrite-report", paramLabel = "DIR", description = "write report.md and the plots again "
            + "from DIR/summary.json (a finished run, e.g. under docs/results) and exit")
    java.nio.file.Path rewriteReport;

    @Override
    public Integer call() throws Exception {
        if (rewriteReport != null) {
            HandshakeReport.rewrite(rewriteReport);
            System.out.println("rewrote " + rewriteReport.resolve("report.md") + " and its plots");
            return 0;
        }
        if (list) {
            for (HandshakeConfig c : HandshakeConfig.catalog()) {
                System.out.printf("%-5s %-34s host %-16s auth %-16s %s%n", c.suite(), c.name(), c.hostKey(), c.auth(),
                        c.supported() ? "" : "UNSUPPORTED: " + c.unsupported());
            }
            return 0;
        }
        List<String> peers = new ArrayList<>();
        for (String p : peer.toLowerCase(Locale.ROOT).split(",")) {
            if (p.equals("both")) {
                peers.addAll(List.of("pqssh", "openssh"));
            } else if (p.equals("all")) {
                peers.addAll(List.of("pqssh", "openssh", HandshakeLab.PQSSH_TO_OPENSSH));
            } else if (p.equals("pqssh") || p.equals("openssh") || p.equals(HandshakeLab.PQSSH_TO_OPENSSH)) {
                peers.add(p);
            } else {
                throw new IllegalArgumentException("--peer " + p + ": use pqssh, openssh, " + HandshakeLab.PQSSH_TO_OPENSSH
                        + ", both or all");
            }
        }
        LinkedHashSet<HandshakeConfig> configs = new LinkedHashSet<>();
        if (suite != null) {
            configs.addAll(HandshakeConfig.suite(suite));
        }
        for (String n : names) {
            configs.add(HandshakeConfig.byName(n.trim()));
        }
        if (kex != null || hostKey != null || auth != null) {
            configs.add(HandshakeConfig.user(kex, hostKey, auth));
        }
        if (configs.isEmpty()) {
            throw new IllegalArgumentException("choose configurations: --suite, --config NAME[,NAME] or "
                    + "--kex/--hostkey/--auth (see --list)");
        }
        if (!loopback) {
            try {
                Netns.requireUsable();
            } catch (Netns.LabUnavailableException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
        boolean fig5 = "fig5".equalsIgnoreCase(suite);
        boolean fig4 = "fig4".equalsIgnoreCase(suite);
        String rttSpec = rtt != null ? rtt : fig4 ? "37,67,163" : "67";
        String iwSpec = initcwnd != null ? initcwnd
                : fig5 ? (quick ? "3,5,10,30" : "3,5,7,10,15,20,25,30,35,40,50") : "10";
        int r = runs != null ? runs : quick ? 3 : 20;
        int w = warmup != null ? warmup : 1 + (quick ? 0 : 1);
        if (r < 1 || w < 0 || r > 100_000) {
            throw new IllegalArgumentException("--runs must be within 1..100000 and --warmup not negative");
        }
        HandshakeLab.Plan plan = new HandshakeLab.Plan(List.copyOf(configs),
                loopback ? List.of(0.0) : HandshakeLab.doubles(rttSpec, "--rtt"),
                loopback ? List.of(0.0) : HandshakeLab.doubles(loss, "--loss"),
                loopback ? List.of(10) : HandshakeLab.ints(iwSpec, "--initcwnd"), r, w, seed, out, loopback,
                peers.stream().distinct().toList(), opensshBin);
        new HandshakeLab(plan, System.err).run();
        System.out.print(java.nio.file.Files.readString(out.resolve("report.md")));
        System.out.println("\nwritten to " + out.toAbsolutePath() + ": " + String.join(", ", HandshakeReport.FILES));
        return 0;
    }

}
