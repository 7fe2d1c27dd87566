package io.pqssh.common.transport;

import java.util.Objects;
import java.util.function.Function;

import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoSession;
import org.apache.sshd.common.util.Readable;

/**
 * An {@link IoHandler} that hands the handler above it a wrapper of each transport session instead of the session
 * itself. The wrapper is made once per connection and kept as an attribute of the transport session, because MINA's
 * SSH layer finds its own session through the {@link IoSession} it was first given and must see the same one in
 * every later callback. Subclasses that bracket callbacks override them and call {@link #wrapped}.
 */
public class SessionWrappingIoHandler<S extends IoSession> implements IoHandler {
    // one key per handler, so two wrappers of the same kind stacked on one connection keep apart
    private final Object key = new Object();
    private final IoHandler handler;
    private final Function<IoSession, S> wrap;

    /**
     * {@code wrap} makes the wrapper of a transport session; it is called once per connection (twice only if two
     * threads raced to the first callback, and then one result is dropped).
     */
    public SessionWrappingIoHandler(IoHandler handler, Function<IoSession, S> wrap) {
        this.handler = Objects.requireNonNull(handler);
        this.wrap = Objects.requireNonNull(wrap);
    }

    /** The handler above, which is given the wrappers. */
    protected final IoHandler handler() {
        return handler;
    }

    /** This connection's wrapper, made on first use. */
    @SuppressWarnings("unchecked")
    protected final S wrapped(IoSession transport) {
        Object w = transport.getAttribute(key);
        if (w == null) {
            S fresh = wrap.apply(transport);
            Object prev = transport.setAttributeIfAbsent(key, fresh);
            w = prev != null ? prev : fresh;
        }
        return (S) w;
    }

    @Override
    public void sessionCreated(IoSession session) throws Exception {
        handler.sessionCreated(wrapped(session));
    }

    @Override
    public void sessionClosed(IoSession session) throws Exception {
        handler.sessionClosed(wrapped(session));
    }

    @Override
    public void exceptionCaught(IoSession session, Throwable cause) throws Exception {
        handler.exceptionCaught(wrapped(session), cause);
    }

    @Override
    public void messageReceived(IoSession session, Readable message) throws Exception {
        handler.messageReceived(wrapped(session), message);
    }
}
