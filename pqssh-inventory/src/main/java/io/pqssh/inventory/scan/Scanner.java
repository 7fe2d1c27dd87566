package io.pqssh.inventory.scan;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Scans targets with bounded concurrency (a fixed pool of worker threads, shut down when the scan ends), a global
 * connection rate limit, per-target connect and read timeouts, and retries on timeouts only.
 */
public final class Scanner {
    private final int concurrency;
    private final double ratePerSecond;
    private final int retries;
    private final RawProbe probe;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final boolean hostKeys;
    private final String authProbeUser;
    private final RateLimiter limiter;

    public Scanner(Options o) {
        if (o.concurrency < 1 || o.concurrency > 4096) {
            throw new IllegalArgumentException("concurrency must be 1-4096, got " + o.concurrency);
        }
        if (o.retries < 0 || o.retries > 10) {
            throw new IllegalArgumentException("retries must be 0-10, got " + o.retries);
        }
        if (o.ratePerSecond < 0) {
            throw new IllegalArgumentException("rate must be >= 0 (0 = unlimited)");
        }
        this.concurrency = o.concurrency;
        this.ratePerSecond = o.ratePerSecond;
        this.retries = o.retries;
        this.connectTimeout = o.connectTimeout;
        this.readTimeout = o.readTimeout;
        this.hostKeys = o.hostKeys;
        this.authProbeUser = o.authProbeUser;
        this.probe = new RawProbe(o.connectTimeout, o.readTimeout);
        this.limiter = new RateLimiter(o.ratePerSecond);
    }

    /** Scan settings; defaults are the CLI's. */
    public static final class Options {
        public int concurrency = 64;
        public double ratePerSecond = 200;
        public int retries = 1;
        public Duration connectTimeout = Duration.ofSeconds(5);
        public Duration readTimeout = Duration.ofSeconds(10);
        public boolean hostKeys;
        /** {@code --auth-probe USER}: one more connection per SSH target, a none request as USER (null: off). */
        public String authProbeUser;
    }

    /** Scans all targets; results are in target order. {@code progress} gets the number done so far. */
    public List<ScanResult> scan(List<Target> targets, IntConsumer progress) throws InterruptedException {
        List<ScanResult> list = new ArrayList<>(targets.size());
        scan(targets, progress, list::add);
        return list;
    }

    /**
     * Scans all targets and hands each result to {@code sink} in target order, from the calling thread, as soon as it
     * and all before it are done. At most {@link #window} targets are in flight or waiting for an earlier one, so
     * memory does not grow with the number of targets.
     */
    public void scan(List<Target> targets, IntConsumer progress, Consumer<ScanResult> sink)
            throws InterruptedException {
        AtomicInteger done = new AtomicInteger();
        AtomicInteger threadNo = new AtomicInteger();
        ThreadFactory tf = r -> {
            Thread th = new Thread(r, "pqssh-scan-" + threadNo.incrementAndGet());
            th.setDaemon(true);
            return th;
        };
        int threads = Math.max(1, Math.min(concurrency, targets.size()));
        ExecutorService pool = Executors.newFixedThreadPool(threads, tf);
        HostKeyCollector collector = hostKeys ? new HostKeyCollector(connectTimeout.plus(readTimeout)) : null;
        AuthProbe authProbe = authProbeUser != null ? new AuthProbe(connectTimeout.plus(readTimeout), authProbeUser)
                : null;
        int window = window(threads);
        Semaphore slots = new Semaphore(window);
        Map<Integer, ScanResult> finished = new ConcurrentHashMap<>();
        Object ready = new Object();
        int next = 0;
        try {
            for (int i = 0; i < targets.size(); i++) {
                int idx = i;
                Target t = targets.get(i);
                while (!slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    next = drain(finished, next, sink, slots);
                }
                pool.execute(() -> {
                    ScanResult r;
                    try {
                        r = scanOne(t, collector);
                        if (authProbe != null && r.status() == ScanResult.Status.SSH) {
                            r = r.withAuth(authProbe.probe(t));
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        r = RawProbe.failed(t, ScanResult.Status.NOT_SSH, "not ssh: scan interrupted", System.nanoTime());
                    } catch (RuntimeException e) {
                        // a bug in a probe must not end the scan: record it as the target's result
                        r = RawProbe.failed(t, ScanResult.Status.NOT_SSH, "not ssh: probe failed: " + e,
                                System.nanoTime());
                    }
                    finished.put(idx, r);
                    if (progress != null) {
                        progress.accept(done.incrementAndGet());
                    }
                    synchronized (ready) {
                        ready.notifyAll();
                    }
                });
                next = drain(finished, next, sink, slots);
            }
            while (next < targets.size()) {
                synchronized (ready) {
                    if (!finished.containsKey(next)) {
                        ready.wait(50);
                    }
                }
                next = drain(finished, next, sink, slots);
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(connectTimeout.plus(readTimeout).toMillis() + 1000, TimeUnit.MILLISECONDS);
            if (authProbe != null) {
                try {
                    authProbe.close();
                } catch (IOException ignored) {
                    // stopping the client
                }
            }
            if (collector != null) {
                try {
                    collector.close();
                } catch (IOException ignored) {
                    // stopping the client
                }
            }
        }
    }

    /** Targets in flight or finished but not yet handed on: enough to keep every worker busy past a slow one. */
    static int window(int threads) {
        return Math.max(4 * threads, 1024);
    }

    private static int drain(Map<Integer, ScanResult> finished, int next, Consumer<ScanResult> sink,
            Semaphore slots) {
        ScanResult r;
        while ((r = finished.remove(next)) != null) {
            sink.accept(r);
            slots.release();
            next++;
        }
        return next;
    }

    ScanResult scanOne(Target t, HostKeyCollector collector) throws InterruptedException {
        long start = System.nanoTime();
        RawProbe.ProbeTimeout last = null;
        for (int attempt = 1; attempt <= retries + 1; attempt++) {
            limiter.acquire();
            try {
                ScanResult r = probe.probe(t);
                r = new ScanResult(r.target(), r.status(), r.error(), r.banner(), r.software(), r.kexInit(),
                        r.classification(), r.hostKeys(), attempt, RawProbe.millis(start));
                if (collector != null && r.status() == ScanResult.Status.SSH) {
                    r = r.withHostKeys(collector.collect(t, r.kexInit().hostKey()));
                }
                return r;
            } catch (RawProbe.ProbeTimeout e) {
                last = e;
            }
        }
        String msg = last.getMessage();
        ScanResult.Status st = msg.startsWith("unreachable") ? ScanResult.Status.UNREACHABLE
                : ScanResult.Status.NOT_SSH;
        return new ScanResult(t, st, msg, null, null, null, null, List.of(), retries + 1, RawProbe.millis(start));
    }

    public double ratePerSecond() {
        return ratePerSecond;
    }

    /** Spaces connection attempts evenly: at most {@code rate} per second over all workers. */
    static final class RateLimiter {
        private final long intervalNanos;
        private long next = System.nanoTime();

        RateLimiter(double rate) {
            this.intervalNanos = rate <= 0 ? 0 : (long) (1e9 / rate);
        }

        void acquire() throws InterruptedException {
            if (intervalNanos == 0) {
                return;
            }
            long wait;
            synchronized (this) {
                long now = System.nanoTime();
                if (next < now) {
                    next = now;
                }
                wait = next - now;
                next += intervalNanos;
            }
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
        }
    }
}
