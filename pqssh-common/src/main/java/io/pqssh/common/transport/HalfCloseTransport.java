package io.pqssh.common.transport;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousSocketChannel;

import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.PropertyResolver;
import org.apache.sshd.common.forward.TcpipClientChannel;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoOutputStream;
import org.apache.sshd.common.io.IoServiceFactory;
import org.apache.sshd.common.io.IoServiceFactoryFactory;
import org.apache.sshd.common.io.nio2.Nio2CompletionHandler;
import org.apache.sshd.common.io.nio2.Nio2Connector;
import org.apache.sshd.common.io.nio2.Nio2Service;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactory;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactoryFactory;
import org.apache.sshd.common.io.nio2.Nio2Session;
import org.apache.sshd.common.util.Readable;
import org.apache.sshd.common.util.threads.CloseableExecutorService;

/**
 * MINA's NIO2 transport with half-close for forwarded connections. MINA 2.20's {@code Nio2Session} closes the whole
 * socket when a read returns end of stream ({@code handleReadCycleCompletion}: {@code close(true)}), so the channel
 * of a forwarded connection ({@code -L} in the client, {@code -R} listeners in the server) is closed as soon as the
 * local program shuts down its sending side, and the reply still on its way is lost. Here a socket carrying a
 * forwarded channel instead ends that channel's sending side: its pending data, then {@code SSH_MSG_CHANNEL_EOF};
 * the socket stays open for the reply, and MINA closes it with the channel once the peer closes that, as OpenSSH
 * does. A socket that carries no channel (the SSH connection itself) still closes on end of stream.
 * <p>
 * The forwarded socket is recognised by what MINA's forwarder attaches to it ({@link TcpipClientChannel} under its
 * class, in {@code DefaultForwarder.StaticIoHandler.sessionCreated}), or by a {@link HalfCloseTarget} attribute
 * for channels of pqssh's own.
 */
public final class HalfCloseTransport extends Nio2ServiceFactoryFactory {
    /** What a channel does when its socket's input ended; attach it to the socket's session under this class. */
    public interface HalfCloseTarget {
        /** @return false if the channel cannot take it (then the socket is closed as MINA would) */
        boolean inputEnded();
    }

    /**
     * What the builders install under coalescing: this, unless MINA's transport system property chose another
     * transport (the lab's byte counter), which is then used as MINA would.
     */
    public static IoServiceFactoryFactory orMinasChoice() {
        if (System.getProperty(IoServiceFactoryFactory.class.getName()) != null) {
            return org.apache.sshd.common.io.DefaultIoServiceFactoryFactory
                    .getDefaultIoServiceFactoryFactoryInstance();
        }
        return new HalfCloseTransport();
    }

    @Override
    public IoServiceFactory create(FactoryManager manager) {
        return new Factory(manager, newExecutor(), newExecutor());
    }

    /**
     * Whether sockets acknowledge received data at once ({@code TCP_QUICKACK} after each read; see
     * {@code Session.acknowledgeNow}); {@code PqsshClient} and {@code PqsshServer} turn it on.
     */
    public static final org.apache.sshd.common.Property<Boolean> TCP_QUICKACK =
            org.apache.sshd.common.Property.bool("pqssh-tcp-quickack", false);

    /**
     * Whether a write the socket takes at once completes on the writing thread ({@link InlineSocketWrite});
     * {@code PqsshClient} turns it on unless the system property {@value #INLINE_WRITES_PROPERTY} is {@code false}.
     */
    public static final org.apache.sshd.common.Property<Boolean> INLINE_WRITES =
            org.apache.sshd.common.Property.bool("pqssh-inline-writes", false);

    /** System property that turns {@link #INLINE_WRITES} off where it is on by default ({@code false}). */
    public static final String INLINE_WRITES_PROPERTY = "pqssh.inlineWrites";

    /** The default for products that turn {@link #INLINE_WRITES} on: true unless the system property says false. */
    public static boolean inlineWritesByDefault() {
        return !"false".equalsIgnoreCase(System.getProperty(INLINE_WRITES_PROPERTY, "true").trim());
    }

    private static final class Factory extends Nio2ServiceFactory {
        private final CloseableExecutorService resume;

        Factory(FactoryManager manager, CloseableExecutorService executors, CloseableExecutorService resume) {
            super(manager, executors, resume);
            this.resume = resume;
        }

        /** MINA's connector, or one that takes the client's {@link EarlyConnection} when it has one. */
        @Override
        public IoConnector createConnector(IoHandler handler) {
            EarlyConnection early = getFactoryManager().getAttribute(EarlyConnection.KEY);
            if (early == null) {
                return super.createConnector(handler);
            }
            // MINA's group is private to its factory: this connector's sockets, the early one and any other (another
            // address, a second attempt), are in the early connection's group, shut down when the connector closes
            AsynchronousChannelGroup group = early.group();
            CloseableExecutorService executor = org.apache.sshd.common.util.threads.ThreadUtils.newCachedThreadPoolIf(
                    resume, "pqssh-connector-resume");
            return autowireCreatedService(new EarlyConnector(this, getFactoryManager(), handler, group, executor,
                    early, resume == null));
        }

        @Override
        public Nio2Session createSession(Nio2Service service, IoHandler handler, AsynchronousSocketChannel socket,
                SocketAddress acceptanceAddress) throws Throwable {
            return new Session(service, getFactoryManager(), handler, socket, acceptanceAddress);
        }
    }

    private static final class EarlyConnector extends Nio2Connector {
        private final EarlyConnection early;
        private final CloseableExecutorService executor;
        private final boolean ownExecutor;

        EarlyConnector(Nio2ServiceFactory factory, PropertyResolver resolver, IoHandler handler,
                AsynchronousChannelGroup group, CloseableExecutorService executor, EarlyConnection early,
                boolean ownExecutor) {
            super(factory, resolver, handler, group, executor);
            this.executor = executor;
            this.early = early;
            this.ownExecutor = ownExecutor;
        }

        @Override
        protected org.apache.sshd.common.Closeable getInnerCloseable() {
            return builder().close(super.getInnerCloseable()).run(toString(), () -> {
                early.shutdown();
                if (ownExecutor) {
                    executor.shutdownNow();
                }
            }).build();
        }

        @Override
        protected AsynchronousSocketChannel openAsynchronousSocketChannel(SocketAddress address,
                AsynchronousChannelGroup group) throws IOException {
            AsynchronousSocketChannel s = early.claim(address);
            return s != null ? s : super.openAsynchronousSocketChannel(address, group);
        }
    }

    private static final class Session extends Nio2Session {
        private boolean quickAck;
        private final boolean inlineWrites;
        private final long writeTimeoutMillis;

        Session(Nio2Service service, PropertyResolver resolver, IoHandler handler, AsynchronousSocketChannel socket,
                SocketAddress acceptanceAddress) throws IOException {
            super(service, resolver, handler, socket, acceptanceAddress);
            quickAck = TCP_QUICKACK.getRequired(resolver);
            inlineWrites = INLINE_WRITES.getRequired(resolver);
            writeTimeoutMillis = org.apache.sshd.core.CoreModuleProperties.NIO2_MIN_WRITE_TIMEOUT.getRequired(resolver)
                    .toMillis();
        }

        @Override
        protected void doWriteCycle(ByteBuffer buffer, Nio2CompletionHandler<Integer, Object> completion) {
            if (!inlineWrites || !InlineSocketWrite.write(getSocket(), buffer, completion, writeTimeoutMillis)) {
                super.doWriteCycle(buffer, completion);
            }
        }

        @Override
        protected void handleReadCycleCompletion(ByteBuffer buffer, Readable bufReader,
                Nio2CompletionHandler<Integer, Object> completionHandler, Integer result, Object attachment) {
            if (quickAck && result != null && result > 0) {
                acknowledgeNow();
            }
            if (result != null && result < 0 && !isClosing() && inputEnded()) {
                // no further read: the channel's close closes this socket
                return;
            }
            super.handleReadCycleCompletion(buffer, bufReader, completionHandler, result, attachment);
        }

        /**
         * Sends the ACK for what was just read now rather than after Linux's delayed-ACK timer (up to 40 ms): a
         * server that leaves Nagle's algorithm on (OpenSSH's sshd does until a session is interactive) holds its
         * next small packet, e.g. SSH_MSG_CHANNEL_OPEN_CONFIRMATION behind the hostkeys-00 request, until the
         * previous one is acknowledged. Linux only ({@code TCP_QUICKACK} clears the socket's interactive "pingpong"
         * state, which is what delays the ACK, and sends an ACK already scheduled); it is set again after every read
         * because the kernel re-enters that state when this side sends. Elsewhere the option is unsupported and
         * this is not tried again.
         */
        private void acknowledgeNow() {
            try {
                getSocket().setOption(jdk.net.ExtendedSocketOptions.TCP_QUICKACK, Boolean.TRUE);
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                quickAck = false;
            }
        }

        /**
         * Reads are suspended while a chunk is on its way into the channel and resumed once it was written (MINA's
         * forwarders and TcpipServerChannel do so), so end of stream is seen only after every byte went in.
         */
        private boolean inputEnded() {
            Object target = getAttribute(HalfCloseTarget.class);
            if (target instanceof HalfCloseTarget) {
                return ((HalfCloseTarget) target).inputEnded();
            }
            Object c = getAttribute(TcpipClientChannel.class);
            if (!(c instanceof TcpipClientChannel)) {
                return false;
            }
            TcpipClientChannel channel = (TcpipClientChannel) c;
            IoOutputStream toChannel = channel.getAsyncIn();
            if (toChannel == null || channel.isClosing()) {
                return false;
            }
            // TcpipClientChannel's stream sends SSH_MSG_CHANNEL_EOF once its pending data is written
            toChannel.close(false);
            return true;
        }
    }
}
