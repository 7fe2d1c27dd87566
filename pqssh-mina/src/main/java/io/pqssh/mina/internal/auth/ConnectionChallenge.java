package io.pqssh.mina.internal.auth;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.auth.PendingChallenge;
import io.pqssh.core.auth.PendingChallengeLimiter;

/**
 * The one KEM challenge a connection may have pending, with its {@code MaxPendingKEMChallenges} slot. Kept on the
 * session, not on the method instance, so that nothing a client sends (a new request, a repeated SERVICE_REQUEST,
 * a user-auth service other than pqssh's) can make a connection hold a second slot: {@link #hold} frees the
 * previous challenge first. The slot is freed when the challenge is answered, when it expires, when the method is
 * destroyed (a new request), and when the connection closes.
 */
final class ConnectionChallenge {
    private static final AttributeKey<ConnectionChallenge> KEY = new AttributeKey<>();

    private PendingChallenge pending;
    private PendingChallengeLimiter.Permit permit;
    private ScheduledFuture<?> expiry;
    private boolean connectionClosed;

    private ConnectionChallenge() {
    }

    /** The connection's holder, created with a close listener that frees the slot when the connection drops. */
    static ConnectionChallenge of(ServerSession session) {
        return session.computeAttributeIfAbsent(KEY, k -> {
            ConnectionChallenge created = new ConnectionChallenge();
            // MINA does not destroy the current method when the connection drops
            session.addCloseFutureListener(f -> created.closed());
            return created;
        });
    }

    /** The holder if the connection ever held a challenge. */
    static ConnectionChallenge peek(ServerSession session) {
        return session.getAttribute(KEY);
    }

    /** Frees any previous challenge, then holds this one until answered, released or {@code timeout} passes. */
    void hold(PendingChallenge challenge, PendingChallengeLimiter.Permit slot, ScheduledExecutorService timer,
            Duration timeout) {
        ScheduledFuture<?> old;
        synchronized (this) {
            old = clear();
            pending = challenge;
            permit = slot;
            if (connectionClosed) {
                // the connection dropped while the challenge was being made: nothing will ever answer it
                clear();
            } else {
                expiry = timer == null ? null
                        : timer.schedule(() -> expire(challenge), timeout.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        cancel(old);
    }

    private void closed() {
        ScheduledFuture<?> old;
        synchronized (this) {
            connectionClosed = true;
            old = clear();
        }
        cancel(old);
    }

    /** Takes the pending challenge for its single comparison; the slot is freed at once. */
    PendingChallenge take() {
        PendingChallenge p;
        ScheduledFuture<?> old;
        synchronized (this) {
            p = pending;
            pending = null;
            old = clear();
        }
        cancel(old);
        return p;
    }

    synchronized boolean isPending() {
        return pending != null;
    }

    void release() {
        ScheduledFuture<?> old;
        synchronized (this) {
            old = clear();
        }
        cancel(old);
    }

    private void expire(PendingChallenge challenge) {
        synchronized (this) {
            if (pending != challenge) {
                return;
            }
            clear();
        }
    }

    /** Wipes the pending state and frees the slot; returns the expiry task to cancel outside the lock. */
    private ScheduledFuture<?> clear() {
        if (pending != null) {
            pending.cancel();
            pending = null;
        }
        if (permit != null) {
            permit.release();
            permit = null;
        }
        ScheduledFuture<?> f = expiry;
        expiry = null;
        return f;
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }
}
