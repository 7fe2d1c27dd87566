package io.pqssh.lab.load;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshException;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.core.CoreModuleProperties;

import io.pqssh.mina.auth.KemClientIdentity;
import io.pqssh.client.PqsshClient;

/**
 * N workers, each looping connect → authenticate → exec {@code true} → close against one server, for a warm-up and
 * then a measured window. Latency (connect to channel closed) of the logins completed in the window goes into an
 * HdrHistogram; failures are counted by cause. One MINA client (NIO2) is shared by the workers, TCP_NODELAY on.
 */
public final class LoadGenerator {
    /** What one window produced. */
    public record Window(long successes, Map<String, Long> failures, Histogram latencyMicros, double seconds,
            long lateLogins, long slowestMs) {
        public long failureCount() {
            return failures.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final PqsshClient client;
    private final LoadMethod method;
    private final LabKeys keys;
    private final String user;
    private final Duration timeout;
    private final AtomicLong loginsTotal = new AtomicLong();

    public LoadGenerator(LabKeys keys, LoadMethod method, List<String> kex, Duration timeout) {
        this(keys, method, kex, timeout, System.getProperty("user.name"));
    }

    /** Logs in as {@code user} (the lab's own account by default). */
    public LoadGenerator(LabKeys keys, LoadMethod method, List<String> kex, Duration timeout, String user) {
        this.keys = keys;
        this.method = method;
        this.user = user;
        this.timeout = timeout;
        PqsshClient.Builder b = PqsshClient.builder().kex(kex).warnWeakCrypto(false).timeout(timeout)
                .serverKeyVerifier((session, addr, key) -> KeyUtils.compareKeys(keys.hostPublicKey, key))
                .preferredAuthentications(List.of(method.wireMethod()));
        switch (method) {
            case KEM_MLKEM768 -> b.kemIdentity(KemClientIdentity.of(keys.mlkem768));
            case MLDSA65 -> b.identity(keys.mldsa65);
            case ED25519 -> b.identity(keys.ed25519);
            default -> throw new IllegalArgumentException(method.toString());
        }
        this.client = b.start();
        CoreModuleProperties.TCP_NODELAY.set(client.sshClient(), true);
    }

    /** Logins that completed authentication since construction (warm-up, window and drain). */
    public long loginsTotal() {
        return loginsTotal.get();
    }

    /**
     * Runs {@code workers} loops for {@code warmup} and then {@code measure}; returns the measured window.
     * {@code onMeasureStart} runs when the window opens (to snapshot server counters); {@code onTick} about every
     * second with the fraction done.
     */
    public Window run(int port, int workers, Duration warmup, Duration measure, Runnable onMeasureStart,
            Consumer<Double> onTick) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicLong successes = new AtomicLong();
        AtomicLong late = new AtomicLong();
        AtomicLong slowestNanos = new AtomicLong();
        Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
        Recorder recorder = new Recorder(3_600_000_000L, 3);
        long[] windowEnd = {Long.MAX_VALUE};
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            Thread t = new Thread(() -> {
                while (!stop.get()) {
                    long t0 = System.nanoTime();
                    boolean counted = measuring.get();
                    String cause = once(port);
                    long t1 = System.nanoTime();
                    slowestNanos.accumulateAndGet(t1 - t0, Math::max);
                    if (counted && t1 > windowEnd[0]) {
                        late.incrementAndGet();
                    }
                    if (!counted || t1 > windowEnd[0]) {
                        if (cause != null) {
                            pause();
                        }
                        continue; // started in the warm-up or finished after the window: not measured
                    }
                    if (cause == null) {
                        successes.incrementAndGet();
                        recorder.recordValue(Math.max(1, (t1 - t0) / 1000));
                    } else {
                        failures.computeIfAbsent(cause, k -> new AtomicLong()).incrementAndGet();
                        pause();
                    }
                }
            }, "lab-load-" + w);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        sleepTicking(warmup, 0, warmup.plus(measure), onTick);
        recorder.reset();
        onMeasureStart.run();
        long start = System.nanoTime();
        windowEnd[0] = start + measure.toNanos();
        measuring.set(true);
        sleepTicking(measure, warmup.toMillis(), warmup.plus(measure), onTick);
        long end = System.nanoTime();
        stop.set(true);
        for (Thread t : threads) {
            t.join(timeout.toMillis() + 5000);
        }
        Map<String, Long> f = new TreeMap<>();
        failures.forEach((k, v) -> f.put(k, v.get()));
        return new Window(successes.get(), f, recorder.getIntervalHistogram(), (Math.min(end, windowEnd[0]) - start)
                / 1e9, late.get(), slowestNanos.get() / 1_000_000);
    }

    private static void pause() {
        try {
            Thread.sleep(20); // a dead server must not become a busy loop
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepTicking(Duration d, long offsetMs, Duration total, Consumer<Double> onTick)
            throws InterruptedException {
        long end = System.nanoTime() + d.toNanos();
        long startMs = System.currentTimeMillis();
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            Thread.sleep(Math.min(1000, left / 1_000_000 + 1));
            if (onTick != null) {
                onTick.accept(Math.min(1.0, (offsetMs + System.currentTimeMillis() - startMs)
                        / (double) Math.max(1, total.toMillis())));
            }
        }
    }

    /** One login; null on success, else the failure cause. */
    String once(int port) {
        ClientSession s = null;
        try {
            s = client.login(user, "127.0.0.1", port);
            loginsTotal.incrementAndGet();
            int rc = PqsshClient.exec(s, "true", new ByteArrayOutputStream(), new ByteArrayOutputStream(), timeout);
            return rc == 0 ? null : "exec-exit-" + rc;
        } catch (Exception e) {
            return cause(e);
        } finally {
            if (s != null) {
                s.close(true);
            }
        }
    }

    static String cause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return "connect-refused";
            }
        }
        String m = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        if (m.contains("refused")) {
            return "connect-refused";
        }
        if (m.contains("timeout") || m.contains("timed out") || e instanceof java.util.concurrent.TimeoutException) {
            return "timeout";
        }
        if (m.contains("no more authentication methods") || m.contains("auth")) {
            return "auth-failed";
        }
        if (m.contains("closed") || m.contains("reset") || m.contains("broken pipe") || m.contains("eof")) {
            return "connection-closed";
        }
        if (e instanceof SshException) {
            return "ssh-error";
        }
        if (e instanceof IOException) {
            return "io-error";
        }
        return e.getClass().getSimpleName();
    }

    public void close() throws IOException {
        client.close();
    }
}
