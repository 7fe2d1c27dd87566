package io.pqssh.server;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.OptionalFeature;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.mac.Mac;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the server's transport ciphers and MACs over a few MB of zeros in a background thread at start-up, so that
 * the JIT has compiled them (with the JDK's AES-CTR, GHASH and SHA-2 intrinsics) before the first bulk transfer.
 * Without it a fresh server spends its first ~100 MB of SFTP in interpreted or C1 code
 * ({@code CounterMode.implCrypt} and {@code BaseMac.update} top the profile) at a third of its steady-state rate.
 * Once per JVM; {@code -Dpqssh.server.transport-warmup=false} turns it off.
 */
public final class TransportWarmup {
    public static final String PROPERTY = "pqssh.server.transport-warmup";

    private static final Logger LOG = LoggerFactory.getLogger(TransportWarmup.class);

    /** Packets per algorithm: enough calls and loop iterations for C2 (tiered thresholds are in the thousands). */
    static final int PACKETS = 12_000;

    /** Payload per packet: small, so the CPU spent before the code is compiled stays low. */
    static final int PACKET_BYTES = 1024;

    private static final AtomicReference<CompletableFuture<Void>> ONCE = new AtomicReference<>();

    private TransportWarmup() {
    }

    /** Starts the warm-up (once per JVM) and returns its completion; an already finished future when disabled. */
    public static CompletableFuture<Void> start(List<? extends NamedFactory<Cipher>> ciphers,
            List<? extends NamedFactory<Mac>> macs) {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (!ONCE.compareAndSet(null, f)) {
            return ONCE.get();
        }
        List<NamedFactory<Cipher>> cs = List.copyOf(ciphers == null ? List.of() : ciphers);
        List<NamedFactory<Mac>> ms = List.copyOf(macs == null ? List.of() : macs);
        Thread t = new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                int n = run(cs, ms, PACKETS, PACKET_BYTES);
                LOG.debug("transport warm-up: {} algorithms in {} ms", n, (System.nanoTime() - t0) / 1_000_000);
            } catch (RuntimeException | Error e) {
                LOG.debug("transport warm-up stopped: {}", e.toString());
            } finally {
                f.complete(null);
            }
        }, "pqssh-transport-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
        return f;
    }

    /** The warm-up itself; returns how many distinct implementations it ran. */
    static int run(List<? extends NamedFactory<Cipher>> ciphers, List<? extends NamedFactory<Mac>> macs,
            int packets, int packetBytes) {
        // aes128-ctr and aes256-ctr (or the -etm and plain MACs) run the same JDK code: once is enough
        Set<String> seen = new HashSet<>();
        int n = 0;
        for (NamedFactory<Cipher> f : ciphers) {
            if (f instanceof OptionalFeature o && !o.isSupported()) {
                continue;
            }
            try {
                Cipher c = f.create();
                if (c == null || !seen.add("cipher " + c.getTransformation())) {
                    continue;
                }
                warmCipher(c, packets, packetBytes);
                n++;
            } catch (Exception e) {
                // a cipher that cannot run here is not offered in practice; skip it
                LOG.debug("transport warm-up: {} skipped: {}", f.getName(), e.toString());
            }
        }
        for (NamedFactory<Mac> f : macs) {
            if (f instanceof OptionalFeature o && !o.isSupported()) {
                continue;
            }
            try {
                Mac m = f.create();
                if (m == null || !seen.add("mac " + m.getAlgorithm() + " " + m.getBlockSize())) {
                    continue;
                }
                warmMac(m, packets, packetBytes);
                n++;
            } catch (Exception e) {
                LOG.debug("transport warm-up: {} skipped: {}", f.getName(), e.toString());
            }
        }
        return n;
    }

    private static void warmCipher(Cipher c, int packets, int packetBytes) throws Exception {
        c.init(Cipher.Mode.Encrypt, new byte[c.getKdfSize()], new byte[c.getIVSize()]);
        int tag = c.getAuthenticationTagSize();
        int block = Math.max(1, c.getCipherBlockSize());
        int len = packetBytes / block * block;
        // AEAD ciphers encrypt the 4-byte length as associated data and append the tag behind the payload
        byte[] buf = new byte[4 + len + tag];
        for (int i = 0; i < packets; i++) {
            if (tag > 0) {
                c.updateWithAAD(buf, 0, 4, len);
            } else {
                c.update(buf, 0, len);
            }
        }
    }

    private static void warmMac(Mac m, int packets, int packetBytes) throws Exception {
        m.init(new byte[m.getDefaultBlockSize()]);
        byte[] buf = new byte[packetBytes];
        byte[] out = new byte[m.getDefaultBlockSize()];
        for (int i = 0; i < packets; i++) {
            m.updateUInt(i);
            m.update(buf, 0, buf.length);
            m.doFinal(out, 0);
        }
    }
}
