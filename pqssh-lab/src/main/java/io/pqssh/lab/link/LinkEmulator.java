package io.pqssh.lab.link;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A packet-level link between two network namespaces, the mahimahi design: each namespace has a TUN device whose
 * fd this process holds; one platform thread per direction reads packets from one TUN, drops them with a seeded
 * probability, optionally serializes them at a rate behind a drop-tail buffer, and writes them to the other TUN
 * after the one-way delay. Waiting happens inside the kernel with {@code ppoll} (nanosecond timeout); an eventfd
 * wakes the threads for shutdown. Kernel TCP runs on both ends, with {@code initcwnd}, {@code initrwnd} and
 * {@code congctl cubic} on the routes.
 *
 * <p>Side A ({@link #nsA()}, {@link #ADDR_A}) is meant for servers, side B for clients.
 */
public final class LinkEmulator implements AutoCloseable {
    public static final String ADDR_A = "10.77.0.1";
    public static final String ADDR_B = "10.77.0.2";
    private static final String SUBNET = "10.77.0.0/30";
    private static final AtomicInteger SEQ = new AtomicInteger();
    private static final int MAX_PACKET = 65_536;

    /** Packet counters of one direction. */
    public static final class Counters {
        public final AtomicLong packets = new AtomicLong();
        public final AtomicLong bytes = new AtomicLong();
        public final AtomicLong lossDrops = new AtomicLong();
        public final AtomicLong bufferDrops = new AtomicLong();
        public final AtomicLong nonTcp = new AtomicLong();
        /** Packets the emulator failed to write to the far side: a loss the link configuration did not ask for. */
        public final AtomicLong writeFailures = new AtomicLong();
        public final AtomicLong latenessNanosSum = new AtomicLong();
        public final AtomicLong latenessNanosMax = new AtomicLong();

        @Override
        public String toString() {
            long n = packets.get();
            return String.format("%d pkts, %d B, %d lost, %d buffer drops, %d write failures, %d non-TCP, lateness mean"
                    + " %.3f ms max %.3f ms", n, bytes.get(), lossDrops.get(), bufferDrops.get(), writeFailures.get(),
                    nonTcp.get(),
                    n == 0 ? 0.0 : latenessNanosSum.get() / 1e6 / n, latenessNanosMax.get() / 1e6);
        }
    }

    private final String id;
    private final String nsA;
    private final String nsB;
    private final String devA;
    private final String devB;
    private volatile LinkConfig config;
    private final List<String> createdNs = new CopyOnWriteArrayList<>();
    private final List<Process> children = new CopyOnWriteArrayList<>();
    private final Map<String, Connection> connections = new ConcurrentHashMap<>();
    private final List<Connection> order = Collections.synchronizedList(new ArrayList<>());
    private final Counters aToB = new Counters();
    private final Counters bToA = new Counters();
    private Tun tunA;
    private Tun tunB;
    private int wakeFd = -1;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;
    private volatile boolean realtime;
    private volatile Throwable failure;
    private final Thread hook;
    private boolean closed;

    private LinkEmulator(LinkConfig config) {
        this.config = config;
        long pid = ProcessHandle.current().pid();
        int n = SEQ.getAndIncrement();
        this.id = Netns.PREFIX + pid + "-" + n;
        this.nsA = id + "-a";
        this.nsB = id + "-b";
        this.devA = "pq" + pid + "x" + n + "a";
        this.devB = "pq" + pid + "x" + n + "b";
        this.hook = new Thread(this::closeQuietly, "pqssh-link-cleanup");
    }

    /** Creates the namespaces and devices and starts moving packets; close it to remove everything. */
    public static LinkEmulator start(LinkConfig config) throws IOException {
        Netns.requireUsable();
        Netns.cleanupStale();
        LinkEmulator link = new LinkEmulator(config);
        Runtime.getRuntime().addShutdownHook(link.hook);
        try {
            link.setUp();
            return link;
        } catch (IOException | RuntimeException | Error e) {
            link.closeQuietly();
            throw e;
        }
    }

    private void setUp() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            wakeFd = Libc.eventfd(Libc.newState(arena), 0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC);
        }
        if (wakeFd < 0) {
            throw new IOException("eventfd failed");
        }
        tunA = side(nsA, devA, ADDR_A);
        tunB = side(nsB, devB, ADDR_B);
        running = true;
        threads.add(direction("pqssh-link-a2b", tunA, tunB, true));
        threads.add(direction("pqssh-link-b2a", tunB, tunA, false));
        threads.forEach(Thread::start);
        routes(config.initcwnd(), config.initrwnd());
    }

    private Tun side(String ns, String dev, String addr) throws IOException {
        Netns.ip("netns", "add", ns);
        createdNs.add(ns);
        Netns.ip("netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1", "net.ipv4.tcp_no_metrics_save=1");
        Netns.ip("-n", ns, "link", "set", "lo", "up");
        Tun t = Tun.open(dev);
        try {
            Netns.ip("link", "set", "dev", dev, "netns", ns);
            Netns.ip("netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf." + dev + ".disable_ipv6=1");
            Netns.ip("-n", ns, "link", "set", "dev", dev, "mtu", "1500", "txqueuelen", "1000", "up");
            Netns.ip("-n", ns, "addr", "add", addr + "/30", "dev", dev, "noprefixroute");
        } catch (IOException e) {
            t.close();
            throw e;
        }
        return t;
    }

    private void routes(int initcwnd, int initrwnd) throws IOException {
        Netns.ip("-n", nsA, "route", "replace", SUBNET, "dev", devA, "src", ADDR_A, "initcwnd",
                Integer.toString(initcwnd), "initrwnd", Integer.toString(initrwnd), "congctl", "cubic");
        Netns.ip("-n", nsB, "route", "replace", SUBNET, "dev", devB, "src", ADDR_B, "initcwnd",
                Integer.toString(initcwnd), "initrwnd", Integer.toString(initrwnd), "congctl", "cubic");
    }

    /** Changes the initial windows on both routes (new connections only). */
    public void setInitcwnd(int initcwnd) throws IOException {
        config = config.withInitcwnd(initcwnd);
        routes(initcwnd, config.initrwnd());
    }

    /** Changes delay/loss/rate for packets arriving from now on (the seed is reapplied only at start). */
    public void reconfigure(LinkConfig c) throws IOException {
        boolean iw = c.initcwnd() != config.initcwnd() || c.initrwnd() != config.initrwnd();
        config = c;
        if (iw) {
            routes(c.initcwnd(), c.initrwnd());
        }
    }

    /** Forgets TCP metrics in both namespaces (ssthresh/RTO learned by earlier connections). */
    public void flushTcpMetrics() {
        for (String ns : List.of(nsA, nsB)) {
            try {
                Netns.ip("-n", ns, "tcp_metrics", "flush", "all");
            } catch (IOException ignored) {
                // nothing cached
            }
        }
    }

    private Thread direction(String name, Tun in, Tun out, boolean aToBDir) {
        Thread t = new Thread(() -> {
            try {
                pump(in, out, aToBDir);
            } catch (Throwable e) {
                failure = e;
            }
        }, name);
        t.setDaemon(true);
        t.setPriority(Thread.MAX_PRIORITY);
        return t;
    }

    private void pump(Tun in, Tun out, boolean aToBDir) throws IOException {
        Counters ctr = aToBDir ? aToB : bToA;
        LinkConfig c0 = config;
        SplittableRandom rnd = new SplittableRandom(c0.seed() * 31 + (aToBDir ? 1 : 2));
        ArrayDeque<Packet> queue = new ArrayDeque<>();
        long lastDepart = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = Libc.newState(arena);
            // the machine is shared: real-time priority keeps the packet clock on time (ppoll blocks, no spinning)
            realtime = Libc.setSchedulerForThisThread(st, Libc.SCHED_FIFO, 20) == 0;
            MemorySegment buf = arena.allocate(MAX_PACKET);
            MemorySegment fds = arena.allocate(16);
            MemorySegment ts = arena.allocate(16);
            fds.set(ValueLayout.JAVA_INT, 0, in.fd);
            fds.set(ValueLayout.JAVA_SHORT, 4, Libc.POLLIN);
            fds.set(ValueLayout.JAVA_INT, 8, wakeFd);
            fds.set(ValueLayout.JAVA_SHORT, 12, Libc.POLLIN);
            while (running) {
                long now = System.nanoTime();
                while (!queue.isEmpty() && queue.peekFirst().deliverNanos <= now) {
                    Packet p = queue.pollFirst();
                    MemorySegment.copy(p.data, 0, buf, ValueLayout.JAVA_BYTE, 0, p.length);
                    long w = Libc.write(st, out.fd, buf, p.length);
                    long after = System.nanoTime();
                    if (w >= 0) {
                        ctr.packets.incrementAndGet();
                        ctr.bytes.addAndGet(p.length);
                        long late = after - p.deliverNanos;
                        ctr.latenessNanosSum.addAndGet(late);
                        ctr.latenessNanosMax.accumulateAndGet(late, Math::max);
                        track(p, aToBDir, after, false, false);
                    } else {
                        ctr.writeFailures.incrementAndGet();
                    }
                    now = after;
                }
                MemorySegment timeout = MemorySegment.NULL;
                if (!queue.isEmpty()) {
                    long wait = Math.max(0, queue.peekFirst().deliverNanos - now);
                    ts.set(ValueLayout.JAVA_LONG, 0, wait / 1_000_000_000L);
                    ts.set(ValueLayout.JAVA_LONG, 8, wait % 1_000_000_000L);
                    timeout = ts;
                }
                fds.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
                fds.set(ValueLayout.JAVA_SHORT, 14, (short) 0);
                int r = Libc.ppoll(st, fds, 2, timeout);
                if (r < 0) {
                    if (Libc.errno(st) == Libc.EINTR) {
                        continue;
                    }
                    throw Libc.error("ppoll", st);
                }
                if (fds.get(ValueLayout.JAVA_SHORT, 14) != 0 || !running) {
                    break;
                }
                if (fds.get(ValueLayout.JAVA_SHORT, 6) == 0) {
                    continue;
                }
                LinkConfig c = config;
                long delayNanos = (aToBDir ? c.delayAtoBMicros() : c.delayBtoAMicros()) * 1000L;
                double loss = aToBDir ? c.lossAtoB() : c.lossBtoA();
                for (int i = 0; i < 256; i++) {
                    long n = Libc.read(st, in.fd, buf, MAX_PACKET);
                    if (n < 0) {
                        int e = Libc.errno(st);
                        if (e == Libc.EAGAIN || e == Libc.EINTR) {
                            break;
                        }
                        throw Libc.error("read(" + in.name + ")", st);
                    }
                    if (n == 0) {
                        break;
                    }
                    long t = System.nanoTime();
                    Packet p = Packet.copyOf(buf, (int) n, t);
                    if (!p.tcp) {
                        ctr.nonTcp.incrementAndGet();
                    }
                    boolean retrans = track(p, aToBDir, t, true, false);
                    if (loss > 0 && rnd.nextDouble() < loss) {
                        ctr.lossDrops.incrementAndGet();
                        track(p, aToBDir, t, false, true, retrans);
                        continue;
                    }
                    long depart = t;
                    if (c.rateBitsPerSec() > 0) {
                        long backlogNanos = Math.max(0, lastDepart - t);
                        long backlogBytes = backlogNanos * c.rateBitsPerSec() / 8_000_000_000L;
                        if (backlogBytes + p.length > c.bufferBytes()) {
                            ctr.bufferDrops.incrementAndGet();
                            track(p, aToBDir, t, false, true, retrans);
                            continue;
                        }
                        depart = Math.max(t, lastDepart) + p.length * 8_000_000_000L / c.rateBitsPerSec();
                        lastDepart = depart;
                    }
                    p.departNanos = depart;
                    p.deliverNanos = depart + delayNanos;
                    p.retrans = retrans;
                    queue.addLast(p);
                }
            }
        }
    }

    private boolean track(Packet p, boolean aToBDir, long now, boolean arrival, boolean drop) {
        return track(p, aToBDir, now, arrival, drop, p.retrans);
    }

    /** Connection bookkeeping; returns on arrival whether the segment is a retransmission. */
    private boolean track(Packet p, boolean aToBDir, long now, boolean arrival, boolean drop, boolean retrans) {
        if (!p.tcp) {
            return false;
        }
        String src = Packet.ip(p.srcIp) + ":" + p.srcPort;
        String dst = Packet.ip(p.dstIp) + ":" + p.dstPort;
        Connection c = connections.get(src + ">" + dst);
        boolean c2s = true;
        if (c == null) {
            c = connections.get(dst + ">" + src);
            c2s = false;
        }
        if (c == null) {
            if (!arrival || !p.isSyn()) {
                return false;
            }
            c = new Connection(src, dst, !aToBDir, now);
            connections.put(src + ">" + dst, c);
            order.add(c);
            c2s = true;
        }
        if (arrival) {
            return c.arrived(p, c2s);
        }
        if (drop) {
            c.dropped(p, c2s, retrans);
        } else {
            c.delivered(p, c2s, retrans, now);
        }
        return false;
    }

    /** Connections in the order of their first SYN. */
    public List<Connection> connections() {
        synchronized (order) {
            return List.copyOf(order);
        }
    }

    /** Forgets the connections seen so far (counters stay). */
    public void clearConnections() {
        synchronized (order) {
            order.clear();
            connections.clear();
        }
    }

    public String nsA() {
        return nsA;
    }

    public String nsB() {
        return nsB;
    }

    public String devA() {
        return devA;
    }

    public String devB() {
        return devB;
    }

    public LinkConfig config() {
        return config;
    }

    public Counters aToB() {
        return aToB;
    }

    public Counters bToA() {
        return bToA;
    }

    /** Whether the packet threads got SCHED_FIFO (otherwise they run at normal priority). */
    public boolean realtime() {
        return realtime;
    }

    /** Throws if a packet thread died. */
    public void checkHealthy() throws IOException {
        Throwable f = failure;
        if (f != null) {
            throw new IOException("link emulator failed: " + f, f);
        }
    }

    /** The command line prefix that runs a program inside a namespace. */
    public static List<String> inNs(String ns, List<String> command) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Netns.ipTool() == null ? "ip" : Netns.ipTool());
        cmd.addAll(List.of("netns", "exec", ns));
        cmd.addAll(command);
        return cmd;
    }

    /** Starts a child process inside a namespace; it is killed (by PID) when the link closes. */
    public Process spawn(String ns, List<String> command, ProcessBuilder.Redirect stderr) throws IOException {
        // above normal priority (the machine is shared), but not real-time: a JVM must not starve the host
        List<String> niced = new ArrayList<>(List.of("nice", "-n", "-10"));
        niced.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(inNs(ns, niced));
        pb.redirectError(stderr);
        Process p = pb.start();
        children.add(p);
        return p;
    }

    /** A java command line with this JVM's binary and class path. */
    public static List<String> java(String mainClass, List<String> args) {
        String bin = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> cmd = new ArrayList<>(List.of(bin, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(args);
        return cmd;
    }

    /** Reads a counter of /proc/net/snmp ("Tcp", "RetransSegs") inside a namespace. */
    public static long snmp(String ns, String group, String field) throws IOException {
        String[] lines = Netns.run(inNs(ns, List.of("cat", "/proc/net/snmp"))).split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].startsWith(group + ":") && lines[i + 1].startsWith(group + ":")) {
                String[] names = lines[i].trim().split("\\s+");
                String[] values = lines[i + 1].trim().split("\\s+");
                for (int k = 1; k < names.length && k < values.length; k++) {
                    if (names[k].equals(field)) {
                        return Long.parseLong(values[k]);
                    }
                }
            }
        }
        throw new IOException("no " + group + " " + field + " in /proc/net/snmp of " + ns);
    }

    /** TCP segments retransmitted by both namespaces' kernels so far. */
    public long kernelRetransmissions() throws IOException {
        return snmp(nsA, "Tcp", "RetransSegs") + snmp(nsB, "Tcp", "RetransSegs");
    }

    private void closeQuietly() {
        try {
            close();
        } catch (RuntimeException ignored) {
            // best effort in the shutdown hook
        }
    }

    /** Stops the child processes and the packet threads, removes the devices and namespaces. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Process p : children) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroy();
        }
        for (Process p : children) {
            try {
                if (!p.waitFor(2, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(2, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        running = false;
        if (wakeFd >= 0) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment one = arena.allocate(8);
                one.set(ValueLayout.JAVA_LONG, 0, 1L);
                Libc.write(Libc.newState(arena), wakeFd, one, 8);
            }
        }
        for (Thread t : threads) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (tunA != null) {
            tunA.close();
        }
        if (tunB != null) {
            tunB.close();
        }
        for (String ns : createdNs) {
            Netns.delete(ns);
        }
        if (wakeFd >= 0) {
            try (Arena arena = Arena.ofConfined()) {
                Libc.close(Libc.newState(arena), wakeFd);
            }
        }
        try {
            if (Thread.currentThread() != hook) {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        } catch (IllegalStateException ignored) {
            // JVM already shutting down
        }
    }
}
