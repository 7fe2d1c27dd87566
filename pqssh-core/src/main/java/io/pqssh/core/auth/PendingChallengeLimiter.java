package io.pqssh.core.auth;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps pending challenges across the server and per source address, so a flood of clients that request a challenge
 * and never answer costs bounded memory. Each successful {@link #tryAcquire} must be matched by one
 * {@link Permit#release()}; releasing twice is harmless.
 */
public final class PendingChallengeLimiter {
    private final int maxGlobal;
    private final int maxPerSource;
    private final AtomicInteger global = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> perSource = new ConcurrentHashMap<>();

    public PendingChallengeLimiter(int maxGlobal, int maxPerSource) {
        if (maxGlobal < 1 || maxPerSource < 1) {
            throw new IllegalArgumentException("limits must be positive");
        }
        this.maxGlobal = maxGlobal;
        this.maxPerSource = maxPerSource;
    }

    /** Returns a permit, or null when a limit is reached. */
    public Permit tryAcquire(String source) {
        if (global.incrementAndGet() > maxGlobal) {
            global.decrementAndGet();
            return null;
        }
        // check and increment inside compute(): atomic with release()'s computeIfPresent for the same source, so an
        // acquire can never increment a counter that a concurrent release has just removed from the map
        boolean[] granted = new boolean[1];
        perSource.compute(source, (k, n) -> {
            AtomicInteger c = n == null ? new AtomicInteger() : n;
            if (c.get() < maxPerSource) {
                c.incrementAndGet();
                granted[0] = true;
            }
            return c.get() == 0 ? null : c;
        });
        if (!granted[0]) {
            global.decrementAndGet();
            return null;
        }
        return new Permit(source);
    }

    public int pending() {
        return global.get();
    }

    public int pending(String source) {
        AtomicInteger n = perSource.get(source);
        return n == null ? 0 : n.get();
    }

    public int maxGlobal() {
        return maxGlobal;
    }

    public int maxPerSource() {
        return maxPerSource;
    }

    /** One pending challenge's slot. */
    public final class Permit {
        private final String source;
        private boolean released;

        private Permit(String source) {
            this.source = source;
        }

        public synchronized void release() {
            if (released) {
                return;
            }
            released = true;
            global.decrementAndGet();
            perSource.computeIfPresent(source, (k, v) -> v.decrementAndGet() <= 0 ? null : v);
        }
    }
}
