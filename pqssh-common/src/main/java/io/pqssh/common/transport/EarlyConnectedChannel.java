package io.pqssh.common.transport;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.CompletionHandler;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * An {@link EarlyConnection}'s socket as MINA's connector sees it: connecting to the early target returns the
 * connection already under way; everything else is the socket's own.
 */
final class EarlyConnectedChannel extends AsynchronousSocketChannel {
    private final AsynchronousSocketChannel socket;
    private final SocketAddress target;
    private final Future<Void> connected;

    EarlyConnectedChannel(AsynchronousSocketChannel socket, SocketAddress target, Future<Void> connected) {
        super(socket.provider());
        this.socket = socket;
        this.target = target;
        this.connected = connected;
    }

    @Override
    public Future<Void> connect(SocketAddress remote) {
        if (!target.equals(remote)) {
            throw new IllegalArgumentException("this socket connects to " + target + ", not " + remote);
        }
        return connected;
    }

    @Override
    public <A> void connect(SocketAddress remote, A attachment, CompletionHandler<Void, ? super A> handler) {
        Future<Void> f = connect(remote);
        Thread waiter = new Thread(() -> {
            try {
                f.get();
                handler.completed(null, attachment);
            } catch (ExecutionException e) {
                handler.failed(e.getCause(), attachment);
            } catch (InterruptedException | RuntimeException e) {
                handler.failed(e, attachment);
            }
        }, "pqssh-early-connect");
        waiter.setDaemon(true);
        waiter.start();
    }

    @Override
    public AsynchronousSocketChannel bind(SocketAddress local) throws IOException {
        socket.bind(local);
        return this;
    }

    @Override
    public <T> AsynchronousSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        // a refused early connection is already closed when MINA sets its options; its connect future reports it
        if (socket.isOpen()) {
            socket.setOption(name, value);
        }
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return socket.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return socket.supportedOptions();
    }

    @Override
    public AsynchronousSocketChannel shutdownInput() throws IOException {
        socket.shutdownInput();
        return this;
    }

    @Override
    public AsynchronousSocketChannel shutdownOutput() throws IOException {
        socket.shutdownOutput();
        return this;
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        return socket.getRemoteAddress();
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        return socket.getLocalAddress();
    }

    @Override
    public <A> void read(ByteBuffer dst, long timeout, TimeUnit unit, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        socket.read(dst, timeout, unit, attachment, handler);
    }

    @Override
    public Future<Integer> read(ByteBuffer dst) {
        return socket.read(dst);
    }

    @Override
    public <A> void read(ByteBuffer[] dsts, int offset, int length, long timeout, TimeUnit unit, A attachment,
            CompletionHandler<Long, ? super A> handler) {
        socket.read(dsts, offset, length, timeout, unit, attachment, handler);
    }

    @Override
    public <A> void write(ByteBuffer src, long timeout, TimeUnit unit, A attachment,
            CompletionHandler<Integer, ? super A> handler) {
        socket.write(src, timeout, unit, attachment, handler);
    }

    @Override
    public Future<Integer> write(ByteBuffer src) {
        return socket.write(src);
    }

    @Override
    public <A> void write(ByteBuffer[] srcs, int offset, int length, long timeout, TimeUnit unit, A attachment,
            CompletionHandler<Long, ? super A> handler) {
        socket.write(srcs, offset, length, timeout, unit, attachment, handler);
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    @Override
    public String toString() {
        return socket.toString();
    }
}
