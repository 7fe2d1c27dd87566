package io.pqssh.server.login;

import java.util.List;
import java.util.Optional;

import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.keys.authorized.AuthorizedKeyOptions;

/**
 * What the {@code authorized_keys} options of the keys accepted on one connection allow its sessions: the
 * accessor for the session layer and for forwarding ({@code KeyRestrictions.of(session).portForwardingAllowed()}).
 * Every key the server accepted for the connection (publickey, publickey-kem, publickey-kem-and,
 * publickey-hybrid-and, each factor of an {@code AuthenticationMethods} chain) adds its restrictions: a flag is
 * allowed only if every accepted key allows it, as sshd merges the options of several authentications; the first
 * {@code command=} and the first non-empty {@code permitopen}/{@code permitlisten} lists stand. Immutable; a
 * connection without key options (password, or keys without options) allows everything.
 */
public final class KeyRestrictions {
    public static final KeyRestrictions NONE = new KeyRestrictions(true, true, true, true, true, null, List.of(),
            List.of(), List.of());
    private static final AttributeKey<KeyRestrictions> KEY = new AttributeKey<>();

    private final boolean pty;
    private final boolean portForwarding;
    private final boolean agentForwarding;
    private final boolean x11Forwarding;
    private final boolean userRc;
    private final String forcedCommand;
    private final List<String> permitOpen;
    private final List<String> permitListen;
    private final List<String> environment;

    private KeyRestrictions(boolean pty, boolean portForwarding, boolean agentForwarding, boolean x11Forwarding,
            boolean userRc, String forcedCommand, List<String> permitOpen, List<String> permitListen,
            List<String> environment) {
        this.pty = pty;
        this.portForwarding = portForwarding;
        this.agentForwarding = agentForwarding;
        this.x11Forwarding = x11Forwarding;
        this.userRc = userRc;
        this.forcedCommand = forcedCommand;
        this.permitOpen = List.copyOf(permitOpen);
        this.permitListen = List.copyOf(permitListen);
        this.environment = List.copyOf(environment);
    }

    public static KeyRestrictions from(AuthorizedKeyOptions o) {
        return new KeyRestrictions(o.ptyAllowed(), o.portForwardingAllowed(), o.agentForwardingAllowed(),
                o.x11ForwardingAllowed(), o.userRcAllowed(), o.command().orElse(null), o.permitOpen(),
                o.permitListen(), o.environment());
    }

    /** The restrictions in force on this connection ({@link #NONE} when no key with options was accepted). */
    public static KeyRestrictions of(ServerSession session) {
        KeyRestrictions r = session.getAttribute(KEY);
        return r == null ? NONE : r;
    }

    /** Adds an accepted key's options to the connection's restrictions. */
    public static void record(ServerSession session, AuthorizedKeyOptions options) {
        KeyRestrictions add = from(options);
        synchronized (session) {
            KeyRestrictions now = session.getAttribute(KEY);
            session.setAttribute(KEY, now == null ? add : now.and(add));
        }
    }

    /** Both sets of restrictions at once. */
    public KeyRestrictions and(KeyRestrictions o) {
        return new KeyRestrictions(pty && o.pty, portForwarding && o.portForwarding,
                agentForwarding && o.agentForwarding, x11Forwarding && o.x11Forwarding, userRc && o.userRc,
                forcedCommand != null ? forcedCommand : o.forcedCommand,
                !permitOpen.isEmpty() ? permitOpen : o.permitOpen,
                !permitListen.isEmpty() ? permitListen : o.permitListen,
                !environment.isEmpty() ? environment : o.environment);
    }

    /** {@code no-pty}/{@code restrict} absent (or {@code pty} after {@code restrict}). */
    public boolean ptyAllowed() {
        return pty;
    }

    public boolean portForwardingAllowed() {
        return portForwarding;
    }

    public boolean agentForwardingAllowed() {
        return agentForwarding;
    }

    public boolean x11ForwardingAllowed() {
        return x11Forwarding;
    }

    public boolean userRcAllowed() {
        return userRc;
    }

    /** The {@code command=} every exec, shell and subsystem request runs instead of its own. */
    public Optional<String> forcedCommand() {
        return Optional.ofNullable(forcedCommand);
    }

    /** {@code permitopen="host:port"} entries (empty: no such option, any destination as far as keys go). */
    public List<String> permitOpen() {
        return permitOpen;
    }

    /** {@code permitlisten="[host:]port"} entries (empty: no such option). */
    public List<String> permitListen() {
        return permitListen;
    }

    /** {@code environment="NAME=value"} entries (applied only with PermitUserEnvironment, as sshd: UserEnvironment). */
    public List<String> environment() {
        return environment;
    }

    /** Allows everything {@link #NONE} allows. */
    public boolean equalsNone() {
        return pty && portForwarding && agentForwarding && x11Forwarding && userRc && forcedCommand == null
                && permitOpen.isEmpty() && permitListen.isEmpty();
    }

    @Override
    public String toString() {
        return "KeyRestrictions[pty=" + pty + ", port-forwarding=" + portForwarding + ", agent-forwarding="
                + agentForwarding + ", x11-forwarding=" + x11Forwarding + ", command="
                + (forcedCommand == null ? "-" : "set") + "]";
    }
}
