package io.pqssh.lab.link;

/**
 * Settings of the emulated path. Side A is the server side (10.77.0.1), side B the client side (10.77.0.2).
 *
 * @param delayAtoBMicros one-way delay from A to B
 * @param delayBtoAMicros one-way delay from B to A
 * @param lossAtoB        drop probability A to B (0..1)
 * @param lossBtoA        drop probability B to A (0..1)
 * @param seed            PRNG seed of the loss draws
 * @param rateBitsPerSec  serialization rate per direction, 0 = unlimited
 * @param bufferBytes     drop-tail buffer in front of the rate limiter
 * @param initcwnd        initial congestion window (MSS) on both routes
 * @param initrwnd        initial receive window (MSS) on both routes
 */
public record LinkConfig(long delayAtoBMicros, long delayBtoAMicros, double lossAtoB, double lossBtoA, long seed,
        long rateBitsPerSec, int bufferBytes, int initcwnd, int initrwnd) {

    public LinkConfig {
        if (delayAtoBMicros < 0 || delayBtoAMicros < 0 || delayAtoBMicros > 10_000_000 || delayBtoAMicros > 10_000_000) {
            throw new IllegalArgumentException("one-way delay must be within 0..10 s");
        }
        if (!(lossAtoB >= 0 && lossAtoB < 1) || !(lossBtoA >= 0 && lossBtoA < 1)) {
            throw new IllegalArgumentException("loss must be a probability in [0, 1)");
        }
        if (rateBitsPerSec < 0 || bufferBytes < 0) {
            throw new IllegalArgumentException("rate and buffer must not be negative");
        }
        if (initcwnd < 1 || initcwnd > 1000 || initrwnd < 1 || initrwnd > 65535) {
            throw new IllegalArgumentException("initcwnd must be within 1..1000, initrwnd within 1..65535");
        }
    }

    /** Symmetric path: half the RTT each way, the same loss (percent) each way. */
    public static LinkConfig of(double rttMs, double lossPct, int initcwnd) {
        long oneWay = Math.round(rttMs * 500.0);
        return new LinkConfig(oneWay, oneWay, lossPct / 100.0, lossPct / 100.0, 1L, 0, 0, initcwnd, 1000);
    }

    public LinkConfig withSeed(long s) {
        return new LinkConfig(delayAtoBMicros, delayBtoAMicros, lossAtoB, lossBtoA, s, rateBitsPerSec, bufferBytes,
                initcwnd, initrwnd);
    }

    public LinkConfig withRate(long bitsPerSec, int buffer) {
        return new LinkConfig(delayAtoBMicros, delayBtoAMicros, lossAtoB, lossBtoA, seed, bitsPerSec, buffer,
                initcwnd, initrwnd);
    }

    public LinkConfig withInitcwnd(int iw) {
        return new LinkConfig(delayAtoBMicros, delayBtoAMicros, lossAtoB, lossBtoA, seed, rateBitsPerSec, bufferBytes,
                iw, initrwnd);
    }

    public double rttMs() {
        return (delayAtoBMicros + delayBtoAMicros) / 1000.0;
    }
}
