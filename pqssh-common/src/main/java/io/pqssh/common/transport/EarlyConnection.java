package io.pqssh.common.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousSocketChannel;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.sshd.common.AttributeRepository.AttributeKey;

/**
 * A TCP connection to the server started before the client is ready to use it, so the handshake (one round trip)
 * and the server's identification line travel while the process still sets itself up: providers, key files, MINA's
 * client (docs/startup.md). {@link HalfCloseTransport}'s connector hands it to MINA when MINA connects to the same
 * address, once; MINA's connect then waits for it as for its own (its time-out, its errors). Other addresses, and
 * later attempts, connect as usual. The socket is in an asynchronous channel group of its own (daemon threads, as
 * many as MINA's NIO2 workers), which the connector also uses and shuts down when it closes: a socket left in the
 * JVM's default group keeps a thread in {@code epoll_wait}, and the JVM's exit waits ~0.3 s for such threads.
 */
public final class EarlyConnection implements AutoCloseable {
    /** Where a client (its {@code SshClient}) holds the connection for its connector. */
    public static final AttributeKey<EarlyConnection> KEY = new AttributeKey<>();

    private final InetSocketAddress target;
    private final AsynchronousChannelGroup group;
    private final AsynchronousSocketChannel socket;
    private final Future<Void> connected;
    private final AtomicBoolean claimed = new AtomicBoolean();

    private EarlyConnection(InetSocketAddress target, AsynchronousChannelGroup group, AsynchronousSocketChannel socket,
            Future<Void> connected) {
        this.target = target;
        this.group = group;
        this.socket = socket;
        this.connected = connected;
    }

    /** A group made ahead by {@link #prepareGroup}, until {@link #start} takes it or it is discarded. */
    private static final java.util.concurrent.atomic.AtomicReference<java.util.concurrent.FutureTask<
            AsynchronousChannelGroup>> PREPARED = new java.util.concurrent.atomic.AtomicReference<>();

    /**
     * Starts making the channel group of the next {@link #start} on a thread of its own, before the address is
     * known: starting its threads and finding the JDK's channel provider (a service-loader scan of the class path)
     * cost a just-started client 30-50 ms on its way to the SYN. {@link #discardPreparedGroup} ends a group no
     * connection took.
     */
    public static void prepareGroup() {
        java.util.concurrent.FutureTask<AsynchronousChannelGroup> task =
                new java.util.concurrent.FutureTask<>(EarlyConnection::newGroup);
        if (PREPARED.compareAndSet(null, task)) {
            Thread t = new Thread(task, "pqssh-nio2-group");
            t.setDaemon(true);
            t.start();
        }
    }

    /** Shuts down a group made by {@link #prepareGroup} that no {@link #start} took. */
    public static void discardPreparedGroup() {
        java.util.concurrent.FutureTask<AsynchronousChannelGroup> task = PREPARED.getAndSet(null);
        if (task != null) {
            // not cancel(): a cancelled task that is already running still makes its group, and get() would then
            // not hand it over to be shut down
            task.run(); // no-op if its thread ran or runs it
            try {
                task.get().shutdownNow();
            } catch (Exception e) {
                // never made, or made and its daemon threads end with the JVM
            }
        }
    }

    private static AsynchronousChannelGroup newGroup() throws IOException {
        return AsynchronousChannelGroup.withFixedThreadPool(Runtime.getRuntime().availableProcessors() + 1, r -> {
            Thread t = new Thread(r, "pqssh-nio2");
            t.setDaemon(true);
            return t;
        });
    }

    /** The prepared group if there is one (waiting for it), else a new one. */
    private static AsynchronousChannelGroup takeGroup() throws IOException {
        java.util.concurrent.FutureTask<AsynchronousChannelGroup> task = PREPARED.getAndSet(null);
        if (task != null) {
            task.run(); // no-op if its thread ran or runs it
            try {
                return task.get();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
                // made anew below; the same failure, if any, is met there
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while making the channel group");
            }
        }
        return newGroup();
    }

    /** Starts connecting to {@code target} (resolved) and returns at once. */
    public static EarlyConnection start(InetSocketAddress target) throws IOException {
        Objects.requireNonNull(target, "target");
        if (target.isUnresolved()) {
            throw new IOException("unresolved address " + target);
        }
        AsynchronousChannelGroup group = takeGroup();
        try {
            AsynchronousSocketChannel s = AsynchronousSocketChannel.open(group);
            return new EarlyConnection(target, group, s, s.connect(target));
        } catch (IOException | RuntimeException e) {
            group.shutdownNow();
            throw e;
        }
    }

    public InetSocketAddress target() {
        return target;
    }

    /** The group of the early socket, for the connector's other sockets; shut down by {@link #shutdown}. */
    AsynchronousChannelGroup group() {
        return group;
    }

    /** Ends the group: every socket in it is closed. */
    void shutdown() {
        try {
            group.shutdownNow();
        } catch (IOException e) {
            // its threads are daemons
        }
    }

    /**
     * The socket for a connection to {@code address}, the first time it is asked for that address; null otherwise.
     * Its {@code connect(address)} returns the connection already under way.
     */
    AsynchronousSocketChannel claim(SocketAddress address) {
        if (!target.equals(address) || !claimed.compareAndSet(false, true)) {
            return null;
        }
        return new EarlyConnectedChannel(socket, target, connected);
    }

    /** Whether a connector took the socket (or {@link #close} ran). */
    boolean claimed() {
        return claimed.get();
    }

    /** The local end of the early socket once connected. */
    SocketAddress localAddress() throws IOException {
        return socket.getLocalAddress();
    }

    /** Closes the socket and its group unless a client took them (its connector closes them then). */
    @Override
    public void close() {
        if (claimed.compareAndSet(false, true)) {
            shutdown();
        }
    }
}
