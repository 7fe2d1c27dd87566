package io.pqssh.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class PendingChallengeLimiterTest {

    @Test
    void perSourceCap() {
        PendingChallengeLimiter l = new PendingChallengeLimiter(10, 2);
        PendingChallengeLimiter.Permit a = l.tryAcquire("10.0.0.1");
        PendingChallengeLimiter.Permit b = l.tryAcquire("10.0.0.1");
        assertNotNull(a);
        assertNotNull(b);
        assertNull(l.tryAcquire("10.0.0.1"));
        assertEquals(2, l.pending("10.0.0.1"));
        assertEquals(2, l.pending(), "a refused acquire leaves no count behind");
        assertNotNull(l.tryAcquire("10.0.0.2"), "other sources are unaffected");
        a.release();
        assertEquals(1, l.pending("10.0.0.1"));
        assertNotNull(l.tryAcquire("10.0.0.1"));
    }

    @Test
    void globalCap() {
        PendingChallengeLimiter l = new PendingChallengeLimiter(3, 3);
        List<PendingChallengeLimiter.Permit> ps = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ps.add(l.tryAcquire("s" + i));
        }
        assertNull(l.tryAcquire("s9"));
        assertEquals(3, l.pending());
        assertEquals(0, l.pending("s9"), "refused by the global cap: no per-source count");
        ps.get(1).release();
        assertEquals(2, l.pending());
        assertNotNull(l.tryAcquire("s9"));
        assertEquals(3, l.maxGlobal());
        assertEquals(3, l.maxPerSource());
    }

    @Test
    void releaseIsIdempotentAndCleansUp() {
        PendingChallengeLimiter l = new PendingChallengeLimiter(5, 5);
        PendingChallengeLimiter.Permit p = l.tryAcquire("x");
        PendingChallengeLimiter.Permit q = l.tryAcquire("x");
        p.release();
        p.release();
        assertEquals(1, l.pending());
        assertEquals(1, l.pending("x"));
        q.release();
        assertEquals(0, l.pending());
        assertEquals(0, l.pending("x"));
    }

    @Test
    void limitsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new PendingChallengeLimiter(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new PendingChallengeLimiter(1, 0));
    }

    /**
     * Property under contention: the permits actually held for one source (counted independently) never exceed the
     * per-source cap, nor all held permits the global cap, and everything returns to zero.
     */
    @Test
    void capsHoldUnderContention() throws Exception {
        int perSource = 2;
        int global = 6;
        PendingChallengeLimiter l = new PendingChallengeLimiter(global, perSource);
        ConcurrentHashMap<String, AtomicInteger> held = new ConcurrentHashMap<>();
        AtomicInteger heldGlobal = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger granted = new AtomicInteger();
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            String source = "src" + (t % 3);
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 20_000; i++) {
                    PendingChallengeLimiter.Permit p = l.tryAcquire(source);
                    if (p == null) {
                        continue;
                    }
                    granted.incrementAndGet();
                    int s = held.computeIfAbsent(source, k -> new AtomicInteger()).incrementAndGet();
                    int g = heldGlobal.incrementAndGet();
                    if (s > perSource || g > global) {
                        violations.incrementAndGet();
                    }
                    held.get(source).decrementAndGet();
                    heldGlobal.decrementAndGet();
                    p.release();
                }
            });
            ts[t].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertTrue(granted.get() > 0);
        assertEquals(0, violations.get(), "cap exceeded " + violations.get() + " times");
        assertEquals(0, l.pending());
        for (int i = 0; i < 3; i++) {
            assertEquals(0, l.pending("src" + i));
        }
    }

    /**
     * One source, cap 1, acquire/release in tight loops: a permit is never granted while another is held. (Before
     * the fix, a release that removed the source's counter raced with an acquire that had already looked it up, and
     * the acquire incremented an orphaned counter: two permits held at once.)
     */
    @Test
    void perSourceCapOfOneHoldsUnderContention() throws Exception {
        PendingChallengeLimiter l = new PendingChallengeLimiter(100, 1);
        AtomicInteger held = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger granted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                long end = System.nanoTime() + 1_500_000_000L;
                for (int i = 0; i < 500_000 && System.nanoTime() < end; i++) {
                    PendingChallengeLimiter.Permit p = l.tryAcquire("one");
                    if (p == null) {
                        continue;
                    }
                    granted.incrementAndGet();
                    if (held.incrementAndGet() > 1) {
                        violations.incrementAndGet();
                    }
                    held.decrementAndGet();
                    p.release();
                }
            });
            ts[t].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertTrue(granted.get() > 0);
        assertEquals(0, violations.get(), "two permits held at once " + violations.get() + " times");
        assertEquals(0, l.pending());
        assertEquals(0, l.pending("one"));
    }
}
