package io.pqssh.core.agent;

import java.util.ArrayList;
import java.util.List;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The constraints a client may put on a key it adds to an agent: a lifetime in seconds, confirmation of each use and
 * destination constraints ({@code ssh-add -h}). {@link #read} takes the bytes after an ADD_IDENTITY's comment as
 * ssh-agent (OpenSSH 9.2/10) does: any number of {@code byte type} records, each constraint at most once; an unknown
 * type or any other constraint extension (e.g. {@code sk-provider@openssh.com}) is refused, never ignored.
 *
 * @param lifetimeSeconds seconds the key lives after it is added, or {@link #NO_LIFETIME}
 * @param confirm whether each use must be confirmed
 * @param destinations {@code restrict-destination-v00@openssh.com} rules; empty: usable anywhere
 */
public record KeyConstraints(long lifetimeSeconds, boolean confirm, List<DestinationConstraint> destinations) {
    public static final long NO_LIFETIME = -1;
    public static final KeyConstraints NONE = new KeyConstraints(NO_LIFETIME, false);

    public KeyConstraints {
        if (lifetimeSeconds < NO_LIFETIME || lifetimeSeconds > 0xffffffffL) {
            throw new IllegalArgumentException("lifetime must be 0.." + 0xffffffffL + " seconds");
        }
        destinations = List.copyOf(destinations);
    }

    public KeyConstraints(long lifetimeSeconds, boolean confirm) {
        this(lifetimeSeconds, confirm, List.of());
    }

    public boolean hasLifetime() {
        return lifetimeSeconds != NO_LIFETIME;
    }

    public boolean isNone() {
        return !hasLifetime() && !confirm && destinations.isEmpty();
    }

    /** Reads constraints until the end of {@code r}. */
    public static KeyConstraints read(SshReader r) throws MalformedMessageException, UnsupportedConstraintException {
        long lifetime = NO_LIFETIME;
        boolean confirm = false;
        List<DestinationConstraint> destinations = null;
        while (r.remaining() > 0) {
            int type = r.getByte();
            switch (type) {
                case AgentProtocol.SSH_AGENT_CONSTRAIN_LIFETIME:
                    if (lifetime != NO_LIFETIME) {
                        throw new MalformedMessageException("lifetime constraint given twice");
                    }
                    lifetime = r.getUint32();
                    break;
                case AgentProtocol.SSH_AGENT_CONSTRAIN_CONFIRM:
                    if (confirm) {
                        throw new MalformedMessageException("confirm constraint given twice");
                    }
                    confirm = true;
                    break;
                case AgentProtocol.SSH_AGENT_CONSTRAIN_EXTENSION: {
                    String name = r.getUtf8();
                    if (!name.equals(DestinationConstraint.EXTENSION)) {
                        throw new UnsupportedConstraintException("constraint extension \"" + name + "\"");
                    }
                    if (destinations != null) {
                        throw new MalformedMessageException(name + " given twice");
                    }
                    destinations = new ArrayList<>(DestinationConstraint.readAll(r));
                    break;
                }
                default:
                    throw new UnsupportedConstraintException("constraint type " + type);
            }
        }
        return new KeyConstraints(lifetime, confirm, destinations == null ? List.of() : destinations);
    }

    /** Appends the constraints (nothing for {@link #NONE}). */
    public SshWriter write(SshWriter w) {
        if (hasLifetime()) {
            w.putByte(AgentProtocol.SSH_AGENT_CONSTRAIN_LIFETIME).putUint32(lifetimeSeconds);
        }
        if (confirm) {
            w.putByte(AgentProtocol.SSH_AGENT_CONSTRAIN_CONFIRM);
        }
        if (!destinations.isEmpty()) {
            DestinationConstraint.writeAll(w, destinations);
        }
        return w;
    }

    /** A constraint this agent does not implement: the key is not added. */
    public static final class UnsupportedConstraintException extends Exception {
        private static final long serialVersionUID = 1L;

        public UnsupportedConstraintException(String message) {
            super(message);
        }
    }
}
