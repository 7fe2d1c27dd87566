package io.pqssh.core.agent;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import io.pqssh.core.sig.Signatures;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * The {@code session-bind@openssh.com} bindings of one agent connection (OpenSSH PROTOCOL.agent section 1): the
 * host keys and session identifiers of the SSH connections this agent connection serves, oldest first, each either
 * for authentication or for forwarding. Destination constraints are checked against them exactly as OpenSSH 9.2/10's
 * ssh-agent does (identity_permitted). One object per agent connection, used by that connection's thread only.
 */
public final class SessionBindings {
    public static final String EXTENSION = "session-bind@openssh.com";
    /** ssh-agent's AGENT_MAX_SESSION_IDS and AGENT_MAX_SID_LEN. */
    static final int MAX_BINDINGS = 16;
    static final int MAX_SESSION_ID_BYTES = 128;

    /** Checks a host key's signature over a session identifier. */
    @FunctionalInterface
    public interface HostKeyVerifier {
        boolean verify(byte[] hostKeyBlob, byte[] data, byte[] signatureBlob);
    }

    /** pqssh's own signature types (Ed25519, ML-DSA, SLH-DSA, Falcon, composites); anything else fails. */
    public static final HostKeyVerifier PQSSH_TYPES = (key, data, sig) -> {
        try {
            return Signatures.verify(key, data, sig);
        } catch (MalformedMessageException | RuntimeException e) {
            return false;
        }
    };

    private record Binding(byte[] hostKey, byte[] sessionId, boolean forwarding) {
    }

    private final List<Binding> bindings = new ArrayList<>();
    private boolean attempted;

    /**
     * ssh-agent's process_ext_session_bind: verifies the host key's signature over the session identifier and records
     * the binding. Refused: a bad signature, a session identifier over 128 bytes, any bind after one for
     * authentication, a known session identifier with another host key, a 17th binding. Binding the same pair again
     * succeeds and records nothing. Any attempt, even a refused one, marks the connection as bound.
     */
    public boolean bind(byte[] hostKey, byte[] sessionId, byte[] signature, boolean forwarding,
            HostKeyVerifier verifier) {
        attempted = true;
        if (sessionId.length > MAX_SESSION_ID_BYTES || !verifier.verify(hostKey, sessionId, signature)) {
            return false;
        }
        for (Binding b : bindings) {
            if (!b.forwarding()) {
                return false; // bound for authentication: nothing may follow
            }
            boolean sameSid = MessageDigest.isEqual(b.sessionId(), sessionId);
            if (sameSid) {
                return MessageDigest.isEqual(b.hostKey(), hostKey);
            }
        }
        if (bindings.size() >= MAX_BINDINGS) {
            return false;
        }
        bindings.add(new Binding(hostKey.clone(), sessionId.clone(), forwarding));
        return true;
    }

    void markAttempted() {
        attempted = true;
    }

    public int size() {
        return bindings.size();
    }

    /** The session identifier most recently bound; the connection must be bound. */
    byte[] lastSessionId() {
        return bindings.get(bindings.size() - 1).sessionId();
    }

    byte[] lastHostKey() {
        return bindings.get(bindings.size() - 1).hostKey();
    }

    /**
     * ssh-agent's identity_permitted: whether a key with these constraints may be seen or used on this connection.
     * {@code user} is the target user of a signature (or decapsulation) request, null for listing, removing and
     * replacing the key. Unconstrained keys are always permitted; constrained keys on a connection never bound are
     * local use and permitted, on a connection whose binding failed never. Otherwise every hop recorded must be
     * allowed by some constraint, the last hop must be for authentication when {@code user} is given and every
     * earlier one for forwarding; a key listed through a forwarding hop must also be usable beyond it.
     */
    public boolean permits(List<DestinationConstraint> constraints, String user) {
        if (constraints.isEmpty()) {
            return true;
        }
        if (bindings.isEmpty()) {
            return !attempted;
        }
        byte[] from = null;
        int last = bindings.size() - 1;
        for (int i = 0; i <= last; i++) {
            Binding b = bindings.get(i);
            String testUser = null;
            if (i == last) {
                testUser = user;
                if (b.forwarding() && user != null) {
                    return false; // a signature on a forwarding hop
                }
            } else if (!b.forwarding()) {
                return false; // forwarding through an authentication binding
            }
            if (!anyPermits(constraints, from, b.hostKey(), testUser)) {
                return false;
            }
            from = b.hostKey();
        }
        Binding end = bindings.get(last);
        return !(end.forwarding() && user == null && !anyPermits(constraints, end.hostKey(), null, null));
    }

    private static boolean anyPermits(List<DestinationConstraint> constraints, byte[] from, byte[] to, String user) {
        for (DestinationConstraint c : constraints) {
            if (c.permits(from, to, user)) {
                return true;
            }
        }
        return false;
    }
}
