package io.pqssh.core.agent;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import io.pqssh.core.keys.authorized.OpenSshPatterns;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * One rule of OpenSSH's {@code restrict-destination-v00@openssh.com} key constraint ({@code ssh-add -h}, OpenSSH
 * PROTOCOL.agent section 2): the key may be used on a connection from host {@code from} (the agent's own host when
 * {@code from} names none) to host {@code to}, as user {@code to.user} if given. Hosts are identified by their host
 * keys only; the names are for people. Parsed and checked as OpenSSH 9.2/10's ssh-agent does.
 */
public record DestinationConstraint(Hop from, Hop to) {
    public static final String EXTENSION = "restrict-destination-v00@openssh.com";
    /** ssh-agent's AGENT_MAX_DEST_CONSTRAINTS. */
    static final int MAX_CONSTRAINTS = 1024;

    /** A host key of a hop; a CA key ({@code @cert-authority} in known_hosts) matches host certificates it signed. */
    public record HostKey(byte[] blob, boolean ca) {
        public HostKey {
            blob = blob.clone();
        }

        @Override
        public byte[] blob() {
            return blob.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof HostKey k && k.ca == ca && java.util.Arrays.equals(k.blob, blob);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(blob) * 31 + (ca ? 1 : 0);
        }
    }

    /**
     * @param user a user name pattern, or null for any user (always null in {@code from})
     * @param hostname the host's name as the user gave it, or null for the agent's own host (only in {@code from})
     */
    public record Hop(String user, String hostname, List<HostKey> keys) {
        public static final Hop ORIGIN = new Hop(null, null, List.of());

        public Hop {
            keys = List.copyOf(keys);
        }

        /**
         * Whether a bound host key is one of this hop's keys. A CA entry would match a certificate it signed, but
         * pqssh decodes no host certificates, so a CA entry matches nothing (ssh-agent's match_key_hop for plain
         * keys).
         */
        boolean hasKey(byte[] hostKeyBlob) {
            for (HostKey k : keys) {
                if (!k.ca() && MessageDigest.isEqual(k.blob, hostKeyBlob)) {
                    return true;
                }
            }
            return false;
        }

        static Hop read(byte[] encoded) throws MalformedMessageException {
            SshReader r = new SshReader(encoded);
            String user = emptyToNull(r.getUtf8());
            String host = emptyToNull(r.getUtf8());
            if (r.getString().length != 0) {
                throw new MalformedMessageException("unsupported hop extensions");
            }
            List<HostKey> keys = new ArrayList<>();
            while (r.remaining() > 0) {
                byte[] blob = r.getString();
                keys.add(new HostKey(blob, r.getByte() != 0));
            }
            return new Hop(user, host, keys);
        }

        byte[] encode() {
            SshWriter w = new SshWriter().putString(user == null ? "" : user)
                    .putString(hostname == null ? "" : hostname).putString(new byte[0]);
            for (HostKey k : keys) {
                w.putString(k.blob).putByte(k.ca() ? 1 : 0);
            }
            return w.toByteArray();
        }

        @Override
        public String toString() {
            return (user == null ? "" : user + "@") + (hostname == null ? "(ORIGIN)" : hostname) + " ("
                    + keys.size() + " keys)";
        }

        private static String emptyToNull(String s) {
            return s.isEmpty() ? null : s;
        }
    }

    /** ssh-agent's consistency rules: {@code from} is the origin or a named host with keys, never a user. */
    public DestinationConstraint {
        if ((from.hostname() == null) != from.keys().isEmpty() || from.user() != null) {
            throw new IllegalArgumentException("inconsistent \"from\" specification");
        }
        if (to.hostname() == null || to.keys().isEmpty()) {
            throw new IllegalArgumentException("incomplete \"to\" specification");
        }
    }

    /**
     * Whether this rule allows the hop from {@code fromKey} (null: the agent's host) to {@code toKey} (null: any
     * host) as {@code user} (null: any user); ssh-agent's permitted_by_dest_constraints for one constraint.
     */
    boolean permits(byte[] fromKey, byte[] toKey, String user) {
        if (fromKey == null ? from.hostname() != null || !from.keys().isEmpty() : !from.hasKey(fromKey)) {
            return false;
        }
        if (toKey != null && !to.hasKey(toKey)) {
            return false;
        }
        return to.user() == null || user == null || OpenSshPatterns.matchPattern(user, to.user());
    }

    /** Reads the extension's {@code string constraints} (after its name); none at all is allowed, as ssh-agent. */
    static List<DestinationConstraint> readAll(SshReader r) throws MalformedMessageException {
        SshReader all = new SshReader(r.getString());
        List<DestinationConstraint> out = new ArrayList<>();
        while (all.remaining() > 0) {
            if (out.size() >= MAX_CONSTRAINTS) {
                throw new MalformedMessageException("too many " + EXTENSION + " constraints");
            }
            SshReader one = new SshReader(all.getString());
            Hop from = Hop.read(one.getString());
            Hop to = Hop.read(one.getString());
            if (one.getString().length != 0) {
                throw new MalformedMessageException("unsupported constraint extensions");
            }
            try {
                out.add(new DestinationConstraint(from, to));
            } catch (IllegalArgumentException e) {
                throw new MalformedMessageException(e.getMessage());
            }
        }
        return out;
    }

    /** Appends {@code byte 255, string EXTENSION, string constraints} as ssh-add does. */
    static void writeAll(SshWriter w, List<DestinationConstraint> constraints) {
        SshWriter all = new SshWriter();
        for (DestinationConstraint c : constraints) {
            all.putString(new SshWriter().putString(c.from.encode()).putString(c.to.encode())
                    .putString(new byte[0]).toByteArray());
        }
        w.putByte(AgentProtocol.SSH_AGENT_CONSTRAIN_EXTENSION).putString(EXTENSION.getBytes(StandardCharsets.US_ASCII))
                .putString(all.toByteArray());
    }

    @Override
    public String toString() {
        return from + " > " + to;
    }
}
