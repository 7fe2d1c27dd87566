package io.pqssh.server.session;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.sshd.client.future.DefaultOpenFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.Channel;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * sshd's {@code MaxSessions}: at most that many open {@code session} channels per connection (default 10; 0 leaves
 * only forwarding). The next open fails as sshd's does ({@code session_new} finds no free slot): CHANNEL_OPEN_FAILURE
 * with reason 2 (connect failed) and {@code open failed}, logged as {@code no more sessions}. A slot is free again
 * when its channel is closed. Without the cap one connection could start a root-side process per channel.
 */
public final class SessionLimit {
    /** sshd's {@code DEFAULT_SESSIONS_MAX}. */
    public static final int DEFAULT = 10;
    private static final Logger LOG = LoggerFactory.getLogger(SessionLimit.class);
    private static final AttributeKey<AtomicInteger> OPEN = new AttributeKey<>();

    private SessionLimit() {
    }

    /** The {@code session} channel factory of {@link PqsshChannelSession#factory(List)} under {@code maxSessions}. */
    public static ChannelFactory factory(List<String> acceptEnv, int maxSessions) {
        if (maxSessions < 0) {
            throw new IllegalArgumentException("MaxSessions must not be negative: " + maxSessions);
        }
        List<String> patterns = List.copyOf(acceptEnv);
        return new ChannelFactory() {
            @Override
            public String getName() {
                return "session";
            }

            @Override
            public Channel createChannel(Session session) {
                return new Limited(patterns, maxSessions);
            }
        };
    }

    /** Takes a slot of the connection's count, or returns false when all {@code max} are taken. */
    static boolean take(AtomicInteger open, int max) {
        while (true) {
            int n = open.get();
            if (n >= max) {
                return false;
            }
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    private static final class Limited extends PqsshChannelSession {
        private final int max;

        Limited(List<String> acceptEnv, int max) {
            super(DEFAULT_HANDLERS, acceptEnv);
            this.max = max;
        }

        @Override
        public OpenFuture open(long recipient, long rwSize, long packetSize, Buffer buffer) {
            AtomicInteger open = getSession().computeAttributeIfAbsent(OPEN, k -> new AtomicInteger());
            // a Match block's MaxSessions for this connection, if any
            int max = io.pqssh.server.ConnectionConfig.get(getSession(), c -> c.maxSessions, this.max);
            if (!take(open, max)) {
                LOG.error("{}: no more sessions (MaxSessions {})", getSession().getRemoteAddress(), max);
                refuse(recipient);
                // never completed: MINA's own failure reply would say "Generic error while opening channel"
                return new DefaultOpenFuture(this, futureLock);
            }
            addCloseFutureListener(f -> open.decrementAndGet());
            return super.open(recipient, rwSize, packetSize, buffer);
        }

        /** sshd's reply to a session it has no slot for: reason 2 (connect failed), "open failed". */
        private void refuse(long recipient) {
            Session session = getSession();
            ConnectionService service = session.getService(ConnectionService.class);
            if (service != null) {
                service.unregisterChannel(this);
            }
            Buffer failure = session.createBuffer(SshConstants.SSH_MSG_CHANNEL_OPEN_FAILURE, 32);
            failure.putUInt(recipient);
            failure.putUInt(SshConstants.SSH_OPEN_CONNECT_FAILED);
            failure.putString("open failed");
            failure.putString("");
            try {
                session.writePacket(failure);
            } catch (java.io.IOException e) {
                LOG.debug("{}: sending the session refusal failed: {}", session.getRemoteAddress(), e.toString());
            }
        }
    }
}
