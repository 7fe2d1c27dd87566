package io.pqssh.server.session;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.SshServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.keys.authorized.OpenSshPatterns;
import io.pqssh.mina.internal.log.SshdLog;
import io.pqssh.mina.server.ChannelActivity;
import io.pqssh.mina.server.PqsshServerSession;

/**
 * sshd's timeouts of an authenticated connection, none of which is on by default (an idle session stays open for
 * ever, as with sshd; MINA's own 10-minute idle timeout is switched off by the server):
 * <ul>
 * <li>{@code ClientAliveInterval}/{@code ClientAliveCountMax}: after an interval without a packet from the client,
 * a {@code keepalive@openssh.com} request wanting a reply; a reply resets the count; when the count would pass
 * CountMax (unless it is 0) the connection is dropped with sshd's INFO line {@code Timeout, client not responding
 * from user X A.B.C.D port N};</li>
 * <li>{@code ChannelTimeout type=interval ...}: a channel whose type matches (sshd's names: {@code session},
 * {@code session:shell}, {@code session:command}, {@code session:subsystem:NAME}, {@code direct-tcpip},
 * {@code forwarded-tcpip}, the streamlocal ones, {@code agent-connection}; wildcards; the first match wins) and
 * carried no data either way for the interval is closed ({@code channel N: closing after S seconds of
 * inactivity}, DEBUG as sshd's VERBOSE); {@code global=interval} closes every channel once none carried data;</li>
 * <li>{@code UnusedConnectionTimeout}: a connection without an open channel for the interval is dropped
 * ({@code terminating inactive connection from user X A.B.C.D port N}).</li>
 * </ul>
 * Like sshd's {@code cleanup_exit(255)} a timeout closes the TCP connection without a DISCONNECT message.
 */
public final class ConnectionTimeouts {
    private static final Logger SSHD = LoggerFactory.getLogger(SshdLog.LOGGER);
    private static final AttributeKey<ScheduledFuture<?>> TASK = new AttributeKey<>();
    /** Checks run this often, so every timeout fires within this much of its interval. */
    static final Duration TICK = Duration.ofMillis(250);

    /** One {@code type=interval} of ChannelTimeout. */
    public record ChannelTimeout(String typePattern, Duration interval) {
    }

    /** The four keywords; {@link #NONE} is sshd's default. */
    public record Settings(Duration clientAliveInterval, int clientAliveCountMax, List<ChannelTimeout> channelTimeouts,
            Duration unusedConnectionTimeout) {
        public static final Settings NONE = new Settings(Duration.ZERO, 3, List.of(), Duration.ZERO);

        public Settings {
            channelTimeouts = List.copyOf(channelTimeouts);
            if (clientAliveInterval.isNegative() || unusedConnectionTimeout.isNegative() || clientAliveCountMax < 0) {
                throw new IllegalArgumentException("negative timeout");
            }
        }

        public boolean any() {
            return !clientAliveInterval.isZero() || !unusedConnectionTimeout.isZero()
                    || channelTimeouts.stream().anyMatch(t -> !t.interval().isZero());
        }

        /**
         * sshd's ChannelTimeout value: {@code type=interval} pairs (interval in sshd's time format, 0 for none),
         * or {@code none} alone.
         */
        public static List<ChannelTimeout> parseChannelTimeouts(String value,
                java.util.function.Function<String, Duration> time) {
            String[] args = value.strip().split("\\s+");
            if (args.length == 1 && args[0].equalsIgnoreCase("none")) {
                return List.of();
            }
            List<ChannelTimeout> out = new ArrayList<>();
            for (String a : args) {
                if (a.equalsIgnoreCase("none")) {
                    throw new IllegalArgumentException("\"none\" argument must appear alone");
                }
                int eq = a.indexOf('=');
                if (eq <= 0 || eq == a.length() - 1) {
                    throw new IllegalArgumentException("invalid channel timeout " + a);
                }
                out.add(new ChannelTimeout(a.substring(0, eq), time.apply(a.substring(eq + 1))));
            }
            return out;
        }

        /** The value as {@code sshd -T} prints it. */
        public String channelTimeoutsText() {
            if (channelTimeouts.isEmpty()) {
                return "none";
            }
            StringBuilder b = new StringBuilder();
            for (ChannelTimeout t : channelTimeouts) {
                b.append(b.length() == 0 ? "" : " ").append(t.typePattern()).append('=')
                        .append(t.interval().toSeconds());
            }
            return b.toString();
        }
    }

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "pqssh-connection-timeouts");
        t.setDaemon(true);
        return t;
    });

    private ConnectionTimeouts() {
    }

    /** Watches every connection of {@code sshd} once it is authenticated. */
    public static void install(SshServer sshd, Settings settings) {
        install(sshd, settings, false);
    }

    /**
     * As above; with {@code perConnection} a connection's Match evaluation ({@code ConnectionConfig}) replaces
     * {@code settings} for that connection, so the watch is installed even when the server-wide values are off.
     */
    public static void install(SshServer sshd, Settings global, boolean perConnection) {
        if (!global.any() && !perConnection) {
            return;
        }
        sshd.setAttribute(PqsshServerSession.TRACK_ACTIVITY, Boolean.TRUE);
        sshd.addSessionListener(new SessionListener() {
            @Override
            public void sessionEvent(Session session, Event event) {
                if (event == Event.Authenticated && session instanceof PqsshServerSession s
                        && s.getAttribute(TASK) == null) {
                    Settings settings = io.pqssh.server.ConnectionConfig.get(s, c -> c.timeouts, global);
                    if (!settings.any()) {
                        return;
                    }
                    Watch w = new Watch(s, settings);
                    long tick = TICK.toMillis();
                    s.setAttribute(TASK, TIMER.scheduleWithFixedDelay(w::check, tick, tick, TimeUnit.MILLISECONDS));
                }
            }

            @Override
            public void sessionClosed(Session session) {
                ScheduledFuture<?> f = session.removeAttribute(TASK);
                if (f != null) {
                    f.cancel(false);
                }
            }
        });
    }

    /** The timeout state of one connection. */
    private static final class Watch {
        private final PqsshServerSession session;
        private final Settings settings;
        private final AtomicInteger missed = new AtomicInteger();
        private long lastAliveCheck = System.nanoTime();
        private long unusedSince = System.nanoTime();

        Watch(PqsshServerSession session, Settings settings) {
            this.session = session;
            this.settings = settings;
        }

        void check() {
            try {
                if (!session.isOpen() || session.isClosing()) {
                    return;
                }
                ChannelActivity activity = session.activity();
                long now = System.nanoTime();
                if (activity != null && clientAlive(activity, now)) {
                    return;
                }
                List<Channel> open = channels();
                if (unusedConnection(open, now)) {
                    return;
                }
                if (activity != null) {
                    channelTimeouts(activity, open, now);
                }
            } catch (RuntimeException e) {
                SSHD.debug("{}: timeout check: {}", session.who(), e.toString());
            }
        }

        /** True when the connection was dropped. */
        private boolean clientAlive(ChannelActivity activity, long now) {
            long interval = settings.clientAliveInterval().toNanos();
            if (interval == 0 || now - Math.max(activity.lastReceived(), lastAliveCheck) <= interval) {
                return false;
            }
            lastAliveCheck = now;
            int max = settings.clientAliveCountMax();
            if (max > 0 && missed.incrementAndGet() > max) {
                SSHD.info("Timeout, client not responding from {}", session.who());
                session.close(true);
                return true;
            }
            try {
                Buffer b = session.createBuffer(SshConstants.SSH_MSG_GLOBAL_REQUEST, 32);
                b.putString("keepalive@openssh.com");
                b.putBoolean(true);
                // any answer (OpenSSH's clients say failure) shows the client is there
                session.request(b, "keepalive@openssh.com", (cmd, reply) -> missed.set(0));
            } catch (IOException e) {
                SSHD.debug("{}: keepalive not sent: {}", session.who(), e.toString());
            }
            return false;
        }

        private boolean unusedConnection(List<Channel> open, long now) {
            long timeout = settings.unusedConnectionTimeout().toNanos();
            if (timeout == 0) {
                return false;
            }
            if (!open.isEmpty()) {
                unusedSince = now;
                return false;
            }
            if (now - unusedSince <= timeout) {
                return false;
            }
            SSHD.info("terminating inactive connection from {}", session.who());
            session.close(true);
            return true;
        }

        private void channelTimeouts(ChannelActivity activity, List<Channel> open, long now) {
            Set<Long> local = new HashSet<>();
            Set<Long> remote = new HashSet<>();
            long global = 0;
            for (ChannelTimeout t : settings.channelTimeouts()) {
                if (t.typePattern().equals("global")) {
                    global = t.interval().toNanos();
                    break;
                }
            }
            boolean globalExpired = global > 0 && activity.lastChannelUse() != 0
                    && now - activity.lastChannelUse() > global;
            for (Channel c : open) {
                local.add(c.getChannelId());
                remote.add(c.getRecipient());
                String type = activity.type(c.getChannelId());
                long used = activity.lastUsed(c.getChannelId(), c.getRecipient());
                Duration own = type == null ? Duration.ZERO : lookup(type);
                boolean ownExpired = !own.isZero() && used != 0 && now - used > own.toNanos();
                if (ownExpired || globalExpired) {
                    SSHD.debug("channel {}: closing after {} seconds of inactivity", c.getChannelId(),
                            ownExpired ? own.toSeconds() : global / 1_000_000_000L);
                    c.close(false); // EOF and CLOSE to the client, as sshd's channel_force_close
                }
            }
            activity.retain(local, remote);
        }

        /** sshd's lookup_timeout: the first pattern (not {@code global}) matching the type. */
        private Duration lookup(String type) {
            for (ChannelTimeout t : settings.channelTimeouts()) {
                if (!t.typePattern().equals("global") && OpenSshPatterns.matchPattern(type, t.typePattern())) {
                    return t.interval();
                }
            }
            return Duration.ZERO;
        }

        private List<Channel> channels() {
            ConnectionService service = session.getService(ConnectionService.class);
            if (service instanceof org.apache.sshd.common.session.helpers.AbstractConnectionService a) {
                return new ArrayList<>(a.getChannels());
            }
            return List.of();
        }
    }
}
