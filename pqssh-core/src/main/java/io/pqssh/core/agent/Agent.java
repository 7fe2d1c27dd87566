package io.pqssh.core.agent;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.pqssh.core.auth.ChallengeRejectedException;
import io.pqssh.core.auth.KemAuthClient;
import io.pqssh.core.auth.KemCredential;
import io.pqssh.core.keys.PrivateKeyCodec;
import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.openssh.BcryptPbkdf;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The keys of {@code pqssh agent} and its answers to agent requests: the base protocol for signature keys (every
 * pqssh signature type, Ed25519 included), the KEM extensions of docs/agent-protocol.md for ML-KEM credentials, key
 * constraints (lifetime, confirm, destination) with {@code session-bind@openssh.com}, and lock/unlock, as ssh-agent
 * (OpenSSH 9.2/10) does them. Requests are answered per agent connection ({@link #connection()}), since session
 * bindings belong to one connection. Not supported, and answered with SSH_AGENT_FAILURE: RSA/ECDSA keys, other
 * constraint extensions, smartcards. Keys are destroyed when removed or expired.
 */
public final class Agent {
    /** Asks whether a confirm-constrained key may be used once; false refuses the request. */
    public interface UseConfirmation {
        boolean allow(Entry key);

        /**
         * As {@link #allow(Entry)}, for a destination-constrained key's use by {@code user}: ssh-agent adds the line
         * {@code public key authentication request for user "USER" to listed host} to its question.
         */
        default boolean allow(Entry key, String user) {
            return allow(key);
        }
    }

    /** What an agent without any way to ask does: refuse every use of a confirm-constrained key. */
    public static final UseConfirmation REFUSE = key -> false;

    /** ssh-agent's lock: bcrypt_pbkdf with one round into 32 bytes, compared in constant time. */
    private static final int LOCK_HASH_BYTES = 32;
    private static final int LOCK_SALT_BYTES = 16;
    /** ssh-agent's delay after a wrong unlock passphrase: 0.1 s per failure so far, at most 10 s. */
    private static final long UNLOCK_DELAY_STEP_MILLIS = 100;
    private static final int UNLOCK_MAX_FAILURES = 100;

    /**
     * One held key.
     *
     * @param lifetimeSeconds seconds it lives after {@code addedAtNanos}, or {@link KeyConstraints#NO_LIFETIME}
     */
    public record Entry(byte[] blob, String comment, SshPrivateKey key, boolean confirm, long lifetimeSeconds,
            long addedAtNanos, List<DestinationConstraint> destinations) {
        public boolean isKem() {
            return key instanceof MlKemSshKey;
        }

        /** Listed as a certificate of its key (added with {@code string CERT_TYPE, string certificate}). */
        public boolean isCertificate() {
            try {
                return io.pqssh.core.cert.CertificateKeyTypes.isCertificate(new SshReader(blob).getUtf8());
            } catch (MalformedMessageException e) {
                return false;
            }
        }

        boolean expiredAt(long nowNanos) {
            return lifetimeSeconds != KeyConstraints.NO_LIFETIME
                    && nowNanos - addedAtNanos >= TimeUnit.SECONDS.toNanos(lifetimeSeconds);
        }

        long nanosLeft(long nowNanos) {
            return TimeUnit.SECONDS.toNanos(lifetimeSeconds) - (nowNanos - addedAtNanos);
        }
    }

    private final List<Entry> keys = new ArrayList<>();
    private final long defaultLifetimeSeconds;
    private final UseConfirmation confirmation;
    private final LongSupplier nanoClock;
    private final SessionBindings.HostKeyVerifier hostKeyVerifier;
    private final SecureRandom random = new SecureRandom();
    private byte[] lockHash;
    private byte[] lockSalt;
    private int unlockFailures;

    /** No default lifetime; confirm-constrained keys are refused (no way to ask). */
    public Agent() {
        this(KeyConstraints.NO_LIFETIME, REFUSE, System::nanoTime);
    }

    /**
     * @param defaultLifetimeSeconds lifetime of keys added without one ({@code ssh-agent -t}), or
     *        {@link KeyConstraints#NO_LIFETIME}
     * @param confirmation asked before each use of a confirm-constrained key
     * @param nanoClock a monotonic clock ({@link System#nanoTime} outside tests)
     */
    public Agent(long defaultLifetimeSeconds, UseConfirmation confirmation, LongSupplier nanoClock) {
        this(defaultLifetimeSeconds, confirmation, nanoClock, SessionBindings.PQSSH_TYPES);
    }

    /** @param hostKeyVerifier checks the host key signature of each {@code session-bind@openssh.com} */
    public Agent(long defaultLifetimeSeconds, UseConfirmation confirmation, LongSupplier nanoClock,
            SessionBindings.HostKeyVerifier hostKeyVerifier) {
        if (defaultLifetimeSeconds < KeyConstraints.NO_LIFETIME) {
            throw new IllegalArgumentException("default lifetime must be >= 0 seconds");
        }
        this.defaultLifetimeSeconds = defaultLifetimeSeconds;
        this.confirmation = confirmation;
        this.nanoClock = nanoClock;
        this.hostKeyVerifier = hostKeyVerifier;
    }

    public void add(SshPrivateKey key, String comment) {
        add(key, comment, KeyConstraints.NONE);
    }

    /** Adds (or replaces, with the new constraints) a key; the agent's default lifetime applies if none is given. */
    public synchronized void add(SshPrivateKey key, String comment, KeyConstraints constraints) {
        add(key.publicKeyBlob(), key, comment, constraints);
    }

    /**
     * Adds (or replaces) a key listed and used under {@code blob}: its own public key, or a certificate of it
     * (listed as the certificate; a signature request naming the certificate signs with the key, as ssh-agent).
     */
    private synchronized void add(byte[] blob, SshPrivateKey key, String comment, KeyConstraints constraints) {
        remove(blob);
        long lifetime = constraints.hasLifetime() ? constraints.lifetimeSeconds() : defaultLifetimeSeconds;
        keys.add(new Entry(blob, comment, key, constraints.confirm(), lifetime, nanoClock.getAsLong(),
                constraints.destinations()));
        notifyAll(); // the reaper may have a new earliest expiry
    }

    public synchronized boolean remove(byte[] blob) {
        for (int i = 0; i < keys.size(); i++) {
            if (MessageDigest.isEqual(keys.get(i).blob(), blob)) {
                destroy(keys.remove(i));
                return true;
            }
        }
        return false;
    }

    public synchronized void removeAll() {
        keys.forEach(Agent::destroy);
        keys.clear();
    }

    /** The keys held now (expired ones already removed), locked or not. */
    public synchronized List<Entry> entries() {
        reap();
        return List.copyOf(keys);
    }

    public synchronized boolean isLocked() {
        return lockHash != null;
    }

    /** Removes and destroys keys whose lifetime is over; returns how many. */
    public synchronized int reap() {
        long now = nanoClock.getAsLong();
        int n = 0;
        for (int i = keys.size() - 1; i >= 0; i--) {
            if (keys.get(i).expiredAt(now)) {
                destroy(keys.remove(i));
                n++;
            }
        }
        return n;
    }

    /**
     * Removes keys as their lifetimes end, so they vanish even when nobody asks the agent anything (ssh-agent's
     * reaper). Runs until interrupted; meant for a daemon thread.
     */
    public void reapUntilInterrupted() {
        synchronized (this) {
            try {
                while (true) {
                    reap();
                    long now = nanoClock.getAsLong();
                    long next = Long.MAX_VALUE;
                    for (Entry e : keys) {
                        if (e.lifetimeSeconds() != KeyConstraints.NO_LIFETIME) {
                            next = Math.min(next, e.nanosLeft(now));
                        }
                    }
                    if (next == Long.MAX_VALUE) {
                        wait();
                    } else {
                        TimeUnit.NANOSECONDS.timedWait(this, Math.max(next, TimeUnit.MILLISECONDS.toNanos(1)));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized Optional<Entry> find(byte[] blob) {
        reap();
        return keys.stream().filter(e -> MessageDigest.isEqual(e.blob(), blob)).findFirst();
    }

    private static void destroy(Entry e) {
        destroy(e.key());
    }

    private static void destroy(SshPrivateKey key) {
        try {
            key.destroy();
        } catch (javax.security.auth.DestroyFailedException ex) {
            // nothing more to wipe
        }
    }

    /**
     * Answers one request message (without its length) as on a fresh agent connection that nothing was bound to;
     * malformed requests get SSH_AGENT_FAILURE. A socket server uses one {@link #connection()} per connection.
     */
    public byte[] handle(byte[] request) {
        return connection().handle(request);
    }

    /** A new agent connection: its own {@code session-bind@openssh.com} bindings. */
    public Connection connection() {
        return new Connection();
    }

    /** One client connection to the agent; used by one thread at a time. */
    public final class Connection {
        private final SessionBindings bindings = new SessionBindings();

        private Connection() {
        }

        /** Answers one request message (without its length); malformed requests get SSH_AGENT_FAILURE. */
        public byte[] handle(byte[] request) {
            return Agent.this.handle(request, bindings);
        }
    }

    private byte[] handle(byte[] request, SessionBindings bindings) {
        try {
            SshReader r = new SshReader(request);
            int type = r.getByte();
            if (type == AgentProtocol.SSH_AGENTC_UNLOCK) {
                return unlock(r);
            }
            if (isLocked()) {
                // as ssh-agent: a locked agent has no keys to show and does nothing else
                return type == AgentProtocol.SSH_AGENTC_REQUEST_IDENTITIES
                        ? new SshWriter().putByte(AgentProtocol.SSH_AGENT_IDENTITIES_ANSWER).putUint32(0).toByteArray()
                        : status(false);
            }
            switch (type) {
                case AgentProtocol.SSH_AGENTC_REQUEST_IDENTITIES:
                    r.expectEnd("REQUEST_IDENTITIES");
                    return identities(false, AgentProtocol.SSH_AGENT_IDENTITIES_ANSWER, bindings);
                case AgentProtocol.SSH_AGENTC_SIGN_REQUEST:
                    return sign(r, bindings);
                case AgentProtocol.SSH_AGENTC_ADD_IDENTITY:
                case AgentProtocol.SSH_AGENTC_ADD_ID_CONSTRAINED:
                    return addIdentity(r, bindings);
                case AgentProtocol.SSH_AGENTC_REMOVE_IDENTITY: {
                    byte[] blob = r.getString();
                    r.expectEnd("REMOVE_IDENTITY");
                    // ssh-agent: a key this connection may not see cannot be removed through it
                    Optional<Entry> e = find(blob);
                    return status(e.isPresent() && bindings.permits(e.get().destinations(), null) && remove(blob));
                }
                case AgentProtocol.SSH_AGENTC_REMOVE_ALL_IDENTITIES:
                    r.expectEnd("REMOVE_ALL_IDENTITIES");
                    removeAll();
                    return status(true);
                case AgentProtocol.SSH_AGENTC_LOCK:
                    return lock(r);
                case AgentProtocol.SSH_AGENTC_EXTENSION:
                    return extension(r, bindings);
                default:
                    return status(false);
            }
        } catch (MalformedMessageException | RuntimeException e) {
            return status(false);
        }
    }

    private byte[] identities(boolean kem, int replyType, SessionBindings bindings) {
        List<Entry> list = entries().stream()
                .filter(e -> e.isKem() == kem && bindings.permits(e.destinations(), null)).toList();
        SshWriter w = new SshWriter().putByte(replyType).putUint32(list.size());
        for (Entry e : list) {
            w.putString(e.blob()).putString(e.comment());
        }
        return w.toByteArray();
    }

    /** Outside the agent's monitor: a confirmation may wait minutes for a person. */
    private boolean confirmed(Entry e, String user) {
        if (!e.confirm()) {
            return true;
        }
        return e.destinations().isEmpty() ? confirmation.allow(e) : confirmation.allow(e, user);
    }

    private byte[] sign(SshReader r, SessionBindings bindings) throws MalformedMessageException {
        byte[] blob = r.getString();
        byte[] data = r.getString();
        r.getUint32(); // flags: only RSA's SHA-2 choices, and pqssh holds no RSA keys
        r.expectEnd("SIGN_REQUEST");
        Optional<Entry> e = find(blob);
        if (e.isEmpty() || !(e.get().key() instanceof SshSigningKey) || !signatureAllowed(e.get(), data, bindings)
                || !confirmed(e.get(), SignedUserauthRequest.parse(data, blob).map(SignedUserauthRequest::user)
                        .orElse(""))) {
            return status(false);
        }
        byte[] sig = ((SshSigningKey) e.get().key()).sign(data);
        return new SshWriter(sig.length + 8).putByte(AgentProtocol.SSH_AGENT_SIGN_RESPONSE).putString(sig)
                .toByteArray();
    }

    /**
     * ssh-agent's checks before a destination-constrained key signs: the connection is bound, the data is a
     * {@code publickey} request permitted for its user along the bound hops, for the session bound last, and names
     * the host key bound last (required once the request came through a forwarded hop).
     */
    private static boolean signatureAllowed(Entry e, byte[] data, SessionBindings bindings) {
        if (e.destinations().isEmpty()) {
            return true;
        }
        if (bindings.size() == 0) {
            return false;
        }
        Optional<SignedUserauthRequest> q = SignedUserauthRequest.parse(data, e.blob());
        if (q.isEmpty() || !bindings.permits(e.destinations(), q.get().user())
                || !MessageDigest.isEqual(q.get().sessionId(), bindings.lastSessionId())) {
            return false;
        }
        byte[] hostKey = q.get().hostKey();
        if (hostKey == null) {
            return bindings.size() == 1;
        }
        return MessageDigest.isEqual(hostKey, bindings.lastHostKey());
    }

    /**
     * The same rule for a KEM decapsulation: the response is keyed on the session identifier, which the bound host
     * key signed, so the bound session's identifier stands for the host key (docs/agent-protocol.md section 8).
     */
    private static boolean decapsulationAllowed(Entry e, KemAuthExtension.ResponseRequest q,
            SessionBindings bindings) {
        if (e.destinations().isEmpty()) {
            return true;
        }
        return bindings.size() > 0 && q.service().equals("ssh-connection")
                && bindings.permits(e.destinations(), q.user())
                && MessageDigest.isEqual(q.sessionId(), bindings.lastSessionId());
    }

    private byte[] addIdentity(SshReader r, SessionBindings bindings) throws MalformedMessageException {
        String type = r.getUtf8();
        // a certificate (ssh-add adds FILE-cert.pub beside FILE): string certificate, then the plain key's private
        // fields, which for Ed25519 and pqssh's types are the same as without the certificate (PROTOCOL.agent)
        byte[] cert = null;
        if (io.pqssh.core.cert.CertificateKeyTypes.isCertificate(type)) {
            cert = r.getString();
            type = io.pqssh.core.cert.CertificateKeyTypes.plainName(type).orElse("");
        }
        Optional<PrivateKeyCodec> codec = PrivateKeyCodecs.forType(type);
        if (codec.isEmpty()) {
            return status(false);
        }
        SshPrivateKey key = codec.get().readPrivateFields(type, r);
        byte[] blob = key.publicKeyBlob();
        if (cert != null) {
            io.pqssh.core.cert.SshCertificate c;
            try {
                c = io.pqssh.core.cert.SshCertificate.parse(cert);
            } catch (MalformedMessageException e) {
                destroy(key);
                return status(false);
            }
            if (!MessageDigest.isEqual(c.certifiedKey(), blob)) {
                destroy(key); // ssh-agent: the certificate must be of this very key
                return status(false);
            }
            blob = cert;
        }
        KeyConstraints constraints;
        String comment;
        try {
            comment = r.getUtf8();
            // ssh-agent reads constraints after the comment of both ADD_IDENTITY and ADD_ID_CONSTRAINED
            constraints = KeyConstraints.read(r);
        } catch (MalformedMessageException | KeyConstraints.UnsupportedConstraintException e) {
            destroy(key); // refused, not added without the constraint the client asked for
            return status(false);
        }
        Optional<Entry> held = find(blob);
        if (held.isPresent() && !bindings.permits(held.get().destinations(), null)) {
            destroy(key); // ssh-agent: a key this connection may not see is not replaced through it
            return status(false);
        }
        add(blob, key, comment, constraints);
        return status(true);
    }

    private byte[] lock(SshReader r) throws MalformedMessageException {
        byte[] pass = r.getString();
        try {
            r.expectEnd("LOCK");
            if (pass.length == 0) {
                return status(false); // ssh-agent: empty passphrases are not supported
            }
            byte[] salt = new byte[LOCK_SALT_BYTES];
            random.nextBytes(salt);
            byte[] hash = BcryptPbkdf.derive(pass, salt, 1, LOCK_HASH_BYTES);
            synchronized (this) {
                if (lockHash != null) {
                    Arrays.fill(hash, (byte) 0);
                    return status(false);
                }
                lockHash = hash;
                lockSalt = salt;
                unlockFailures = 0;
            }
            return status(true);
        } finally {
            Arrays.fill(pass, (byte) 0);
        }
    }

    private byte[] unlock(SshReader r) throws MalformedMessageException {
        byte[] pass = r.getString();
        byte[] hash = null;
        long delayMillis;
        try {
            r.expectEnd("UNLOCK");
            byte[] salt;
            synchronized (this) {
                if (lockHash == null || pass.length == 0) {
                    return status(false);
                }
                salt = lockSalt;
            }
            hash = BcryptPbkdf.derive(pass, salt, 1, LOCK_HASH_BYTES);
            synchronized (this) {
                if (lockHash != null && lockSalt == salt && MessageDigest.isEqual(hash, lockHash)) {
                    Arrays.fill(lockHash, (byte) 0);
                    lockHash = null;
                    lockSalt = null;
                    unlockFailures = 0;
                    return status(true);
                }
                unlockFailures = Math.min(unlockFailures + 1, UNLOCK_MAX_FAILURES);
                delayMillis = UNLOCK_DELAY_STEP_MILLIS * unlockFailures;
            }
        } finally {
            Arrays.fill(pass, (byte) 0);
            if (hash != null) {
                Arrays.fill(hash, (byte) 0);
            }
        }
        try {
            Thread.sleep(delayMillis); // slows guessing, as ssh-agent does
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return status(false);
    }

    private byte[] extension(SshReader r, SessionBindings bindings) throws MalformedMessageException {
        String name = r.getUtf8();
        switch (name) {
            case KemAuthExtension.QUERY:
                r.expectEnd("query");
                return new SshWriter().putByte(AgentProtocol.SSH_AGENT_SUCCESS).putString(KemAuthExtension.QUERY)
                        .putString(SessionBindings.EXTENSION).putString(KemAuthExtension.IDENTITIES)
                        .putString(KemAuthExtension.RESPONSE).toByteArray();
            case SessionBindings.EXTENSION: {
                bindings.markAttempted(); // as ssh-agent, even a malformed bind counts
                byte[] hostKey = r.getString();
                byte[] sid = r.getString();
                byte[] sig = r.getString();
                boolean forwarding = r.getByte() != 0;
                r.expectEnd(name);
                return status(bindings.bind(hostKey, sid, sig, forwarding, hostKeyVerifier));
            }
            case KemAuthExtension.IDENTITIES:
                r.expectEnd(name);
                return identities(true, AgentProtocol.SSH_AGENT_SUCCESS, bindings);
            case KemAuthExtension.RESPONSE:
                return kemResponse(r, bindings);
            default:
                return status(false);
        }
    }

    private byte[] kemResponse(SshReader r, SessionBindings bindings) {
        KemAuthExtension.ResponseRequest q;
        try {
            q = KemAuthExtension.ResponseRequest.read(r);
        } catch (MalformedMessageException | RuntimeException e) {
            return extensionFailure();
        }
        Optional<Entry> e = find(q.keyBlob());
        if (e.isEmpty() || !e.get().isKem() || !decapsulationAllowed(e.get(), q, bindings)
                || !confirmed(e.get(), q.user())) {
            return extensionFailure();
        }
        MlKemSshKey key = (MlKemSshKey) e.get().key();
        byte[] response;
        try {
            // held as a certificate (docs/agent-protocol.md 3): the request's key field is the certificate blob
            byte[] keyField = e.get().isCertificate() ? e.get().blob() : key.kemPrivateKey().publicKey();
            KemCredential sent = new KemCredential(q.alg(), keyField);
            response = KemAuthClient.respond(q.sessionId(), q.user(), q.service(), q.method(), sent, q.challenge(),
                    key.kemPrivateKey());
        } catch (ChallengeRejectedException | IllegalArgumentException ex) {
            return extensionFailure();
        }
        byte[] out = new SshWriter(40).putByte(AgentProtocol.SSH_AGENT_SUCCESS).putString(response).toByteArray();
        Arrays.fill(response, (byte) 0);
        return out;
    }

    private static byte[] extensionFailure() {
        return new byte[] {AgentProtocol.SSH_AGENT_EXTENSION_FAILURE};
    }

    private static byte[] status(boolean ok) {
        return new byte[] {(byte) (ok ? AgentProtocol.SSH_AGENT_SUCCESS : AgentProtocol.SSH_AGENT_FAILURE)};
    }
}
