package io.pqssh.common.transport;

import org.apache.sshd.common.io.DefaultIoServiceFactoryFactory;
import org.apache.sshd.common.io.IoHandler;
import org.apache.sshd.common.io.IoServiceFactoryFactory;

/**
 * MINA transport with write coalescing (see {@link CoalescingIoSession}) on top of another transport, by default
 * the one MINA would pick itself ({@link DefaultIoServiceFactoryFactory}, which honours MINA's system property, so
 * a transport installed that way, such as the lab's byte counter, sits underneath and sees the combined writes).
 */
public final class CoalescingIoServiceFactoryFactory extends WrappingIoServiceFactoryFactory {
    /** System property that turns coalescing off for builders that did not choose ({@code false}). */
    public static final String PROPERTY = "pqssh.coalesceWrites";

    public CoalescingIoServiceFactoryFactory() {
        this(DefaultIoServiceFactoryFactory.getDefaultIoServiceFactoryFactoryInstance());
    }

    public CoalescingIoServiceFactoryFactory(IoServiceFactoryFactory inner) {
        super(inner);
    }

    /** The default of the builders' {@code coalesceWrites}: on unless {@value #PROPERTY} is {@code false}. */
    public static boolean enabledByDefault() {
        return !"false".equalsIgnoreCase(System.getProperty(PROPERTY, "true").trim());
    }

    /**
     * What the builders install: coalescing over {@code transport} (null: MINA's NIO2 transport with half-close of
     * forwarded connections, {@link HalfCloseTransport}, or the one MINA's system property names), or that transport
     * alone.
     */
    public static IoServiceFactoryFactory of(boolean coalesce, IoServiceFactoryFactory transport) {
        IoServiceFactoryFactory base = transport != null ? transport : HalfCloseTransport.orMinasChoice();
        return coalesce ? new CoalescingIoServiceFactoryFactory(base) : base;
    }

    @Override
    protected IoHandler wrap(IoHandler handler) {
        return new CoalescingIoHandler(handler);
    }
}
