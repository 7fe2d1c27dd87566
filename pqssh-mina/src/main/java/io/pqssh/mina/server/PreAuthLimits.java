package io.pqssh.mina.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.server.SshServer;

import io.pqssh.mina.internal.log.SshdLog;
import io.pqssh.mina.internal.server.PqsshSessionFactory;

/**
 * Limits on connections that have not authenticated yet, with OpenSSH's names where OpenSSH has one:
 * <ul>
 * <li>{@code MaxStartups start:rate:full} — with {@code start} or more unauthenticated connections, a new one is
 * dropped with probability {@code rate}% rising linearly to 100% at {@code full} (sshd's random early drop);</li>
 * <li>{@code PerSourceMaxStartups n} — at most {@code n} unauthenticated connections per source address
 * (OpenSSH 9.8);</li>
 * <li>{@code PerSourceConnectRate n:seconds} — at most {@code n} accepted connections per source address in any
 * {@code seconds}-second window (pqssh's own; OpenSSH's nearest is {@code PerSourcePenalties});</li>
 * <li>{@code MaxPreauthPacketSize bytes} — a packet payload larger than this before authentication ends the
 * connection with PROTOCOL_ERROR (MINA itself accepts up to 256 KiB at any time).</li>
 * </ul>
 * The checks run in {@link SessionListener#sessionCreated}, before the server sends its identification: MINA
 * closes a session whose creation throws. Every refusal is logged once, at INFO, as sshd does: {@code drop
 * connection #N from [ADDR]:PORT on [ADDR]:PORT past MaxStartups 10:30:100} ({@link SshdLog}).
 * {@code LoginGraceTime}, {@code MaxAuthTries} and {@code MaxPendingKEMChallenges} are MINA properties and
 * {@link io.pqssh.mina.auth.KemServerSettings}; they are not repeated here.
 */
public final class PreAuthLimits implements SessionListener, PqsshServerSession.PacketLimit {
    private static final AttributeKey<Slot> SLOT = new AttributeKey<>();
    private static final AttributeKey<PreAuthLimits> INSTALLED = new AttributeKey<>();

    /** Largest legitimate pre-auth payload: publickey-kem-and with SLH-DSA-256f (49,856-byte signature) is ~52 KB. */
    public static final int DEFAULT_MAX_PREAUTH_PACKET = 64 * 1024;

    private final Settings settings;
    private final LongSupplier clock;
    private final AtomicInteger unauthenticated = new AtomicInteger();
    private final Map<InetAddress, Integer> perSource = new ConcurrentHashMap<>();
    private final Map<InetAddress, ArrayDeque<Long>> recentConnects = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();

    /** The configured values; {@code 0} disables a per-source limit. */
    public record Settings(int startupsStart, int startupsRate, int startupsFull, int perSourceMaxStartups,
            int perSourceConnects, int perSourceSeconds, int maxPreauthPacket) {
        public Settings {
            if (startupsStart < 1 || startupsFull < startupsStart || startupsRate < 0 || startupsRate > 100) {
                throw new IllegalArgumentException("MaxStartups needs 1 <= start <= full and 0 <= rate <= 100, got "
                        + startupsStart + ":" + startupsRate + ":" + startupsFull);
            }
            if (perSourceMaxStartups < 0 || perSourceConnects < 0 || perSourceSeconds < 0) {
                throw new IllegalArgumentException("per-source limits must not be negative");
            }
            if (perSourceConnects > 0 && perSourceSeconds < 1) {
                throw new IllegalArgumentException("PerSourceConnectRate needs a window of at least 1 second");
            }
            if (maxPreauthPacket < 1024) {
                throw new IllegalArgumentException("MaxPreauthPacketSize must be at least 1024, got "
                        + maxPreauthPacket);
            }
        }

        /** OpenSSH's defaults: {@code MaxStartups 10:30:100}, no per-source limits; 64 KiB pre-auth packets. */
        public static Settings defaults() {
            return new Settings(10, 30, 100, 0, 0, 0, DEFAULT_MAX_PREAUTH_PACKET);
        }

        public Settings maxStartups(String spec) {
            String[] p = spec.strip().split(":", -1);
            try {
                if (p.length == 1) {
                    int n = Integer.parseInt(p[0]);
                    return new Settings(n, 100, n, perSourceMaxStartups, perSourceConnects, perSourceSeconds,
                            maxPreauthPacket);
                }
                if (p.length == 3) {
                    return new Settings(Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2]),
                            perSourceMaxStartups, perSourceConnects, perSourceSeconds, maxPreauthPacket);
                }
            } catch (NumberFormatException e) {
                // fall through
            }
            throw new IllegalArgumentException("MaxStartups is 'full' or 'start:rate:full', got '" + spec + "'");
        }

        public Settings perSourceMaxStartups(String spec) {
            return new Settings(startupsStart, startupsRate, startupsFull, noneOrCount(spec), perSourceConnects,
                    perSourceSeconds, maxPreauthPacket);
        }

        public Settings perSourceConnectRate(String spec) {
            String s = spec.strip().toLowerCase(Locale.ROOT);
            if (s.equals("none")) {
                return new Settings(startupsStart, startupsRate, startupsFull, perSourceMaxStartups, 0, 0,
                        maxPreauthPacket);
            }
            String[] p = s.split(":", -1);
            try {
                if (p.length == 2) {
                    return new Settings(startupsStart, startupsRate, startupsFull, perSourceMaxStartups,
                            positive(p[0]), positive(p[1]), maxPreauthPacket);
                }
            } catch (NumberFormatException e) {
                // fall through
            }
            throw new IllegalArgumentException("PerSourceConnectRate is 'count:seconds' or 'none', got '" + spec
                    + "'");
        }

        public Settings maxPreauthPacketSize(int bytes) {
            return new Settings(startupsStart, startupsRate, startupsFull, perSourceMaxStartups, perSourceConnects,
                    perSourceSeconds, bytes);
        }

        private static int noneOrCount(String spec) {
            String s = spec.strip();
            return s.equalsIgnoreCase("none") ? 0 : positive(s);
        }

        private static int positive(String s) {
            int n = Integer.parseInt(s.strip());
            if (n < 1) {
                throw new IllegalArgumentException("must be positive: " + s);
            }
            return n;
        }
    }

    public PreAuthLimits(Settings settings) {
        this(settings, System::nanoTime);
    }

    PreAuthLimits(Settings settings, LongSupplier nanoClock) {
        this.settings = settings;
        this.clock = nanoClock;
    }

    /** Registers the limits on a server that has not been started yet. */
    public static PreAuthLimits install(SshServer sshd, Settings settings) {
        PreAuthLimits limits = new PreAuthLimits(settings);
        sshd.setAttribute(INSTALLED, limits);
        sshd.addSessionListener(limits);
        sshd.setSessionFactory(new PqsshSessionFactory(sshd, limits));
        return limits;
    }

    @Override
    public int maxPreauthPacket() {
        return settings.maxPreauthPacket();
    }

    @Override
    public void refused(PqsshServerSession session, int size) {
        refused.incrementAndGet();
    }

    /** The limits installed on {@code sshd}, if any. */
    public static java.util.Optional<PreAuthLimits> of(SshServer sshd) {
        return java.util.Optional.ofNullable(sshd.getAttribute(INSTALLED));
    }

    public Settings settings() {
        return settings;
    }

    /** Connections accepted and not yet authenticated or closed. */
    public int unauthenticated() {
        return unauthenticated.get();
    }

    /** Connections and packets refused so far. */
    public long refused() {
        return refused.get();
    }

    @Override
    public void sessionCreated(Session session) {
        InetAddress source = source(session.getIoSession().getRemoteAddress());
        int waiting = unauthenticated.get();
        String reason = admit(source);
        if (reason != null) {
            refused.incrementAndGet();
            if (session instanceof PqsshServerSession p) {
                p.refusedAtStart();
            }
            SshdLog.dropConnection(waiting, session.getIoSession().getRemoteAddress(),
                    session.getIoSession().getLocalAddress(), reason);
            throw new IllegalStateException("pre-authentication limit: " + reason);
        }
        session.setAttribute(SLOT, new Slot(source));
    }

    @Override
    public void sessionEvent(Session session, Event event) {
        if (event == Event.Authenticated) {
            release(session);
        }
    }

    @Override
    public void sessionClosed(Session session) {
        release(session);
    }

    /** Decides and, when admitted, counts; {@code null} means admitted, otherwise the reason for the refusal. */
    String admit(InetAddress source) {
        Settings s = settings;
        if (s.perSourceConnects() > 0 && !rateAllows(source, s)) {
            return "past PerSourceConnectRate " + s.perSourceConnects() + ":" + s.perSourceSeconds();
        }
        int[] own = new int[1];
        perSource.compute(source, (a, v) -> own[0] = (v == null ? 0 : v) + 1);
        if (s.perSourceMaxStartups() > 0 && own[0] > s.perSourceMaxStartups()) {
            releaseSource(source);
            return "past PerSourceMaxStartups " + s.perSourceMaxStartups();
        }
        int n = unauthenticated.incrementAndGet() - 1; // connections already waiting
        if (n >= s.startupsFull() || (n >= s.startupsStart() && dropEarly(n, s))) {
            unauthenticated.decrementAndGet();
            releaseSource(source);
            return "past MaxStartups " + s.startupsStart() + ":" + s.startupsRate() + ":" + s.startupsFull();
        }
        return null;
    }

    /** sshd's drop probability: rate% at start, rising linearly to 100% at full. */
    private static boolean dropEarly(int n, Settings s) {
        if (s.startupsFull() == s.startupsStart()) {
            return true;
        }
        double p = s.startupsRate() / 100.0 + (1 - s.startupsRate() / 100.0) * (n - s.startupsStart())
                / (double) (s.startupsFull() - s.startupsStart());
        return ThreadLocalRandom.current().nextDouble() < p;
    }

    private boolean rateAllows(InetAddress source, Settings s) {
        long now = clock.getAsLong();
        long window = s.perSourceSeconds() * 1_000_000_000L;
        ArrayDeque<Long> q = recentConnects.computeIfAbsent(source, a -> new ArrayDeque<>());
        synchronized (q) {
            while (!q.isEmpty() && now - q.peekFirst() >= window) {
                q.pollFirst();
            }
            if (q.size() >= s.perSourceConnects()) {
                return false;
            }
            q.addLast(now);
        }
        if (recentConnects.size() > 10_000) {
            pruneRates(now, window);
        }
        return true;
    }

    private void pruneRates(long now, long window) {
        recentConnects.entrySet().removeIf(e -> {
            synchronized (e.getValue()) {
                return e.getValue().isEmpty() || now - e.getValue().peekLast() >= window;
            }
        });
    }

    private void release(Session session) {
        Slot slot = session.getAttribute(SLOT);
        if (slot != null && slot.released.compareAndSet(false, true)) {
            unauthenticated.decrementAndGet();
            releaseSource(slot.source);
        }
    }

    private void releaseSource(InetAddress source) {
        perSource.computeIfPresent(source, (a, v) -> v <= 1 ? null : v - 1);
    }

    private static InetAddress source(SocketAddress a) {
        return a instanceof InetSocketAddress i ? i.getAddress() : InetAddress.getLoopbackAddress();
    }

    private static final class Slot {
        final InetAddress source;
        final AtomicBoolean released = new AtomicBoolean();

        Slot(InetAddress source) {
            this.source = source;
        }
    }
}
