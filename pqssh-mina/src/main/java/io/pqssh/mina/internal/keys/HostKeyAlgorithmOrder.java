package io.pqssh.mina.internal.keys;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.sshd.client.config.hosts.KnownHostEntry;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.signature.Signature;

import io.pqssh.mina.keys.PqSignatureFactories;

/**
 * The client's host key algorithm order for one destination, like OpenSSH's {@code order_hostkeyalgs}: the
 * algorithms of keys {@code known_hosts} already holds for the host come first (post-quantum ones before classical
 * ones), then the rest in the default order. Without this, a server with both an Ed25519 and an ML-DSA host key
 * would be asked for Ed25519 and the known ML-DSA key would be reported as a changed host key.
 */
public final class HostKeyAlgorithmOrder {
    private static final AttributeRepository.AttributeKey<List<NamedFactory<Signature>>> ORDER =
            new AttributeRepository.AttributeKey<>();

    /**
     * Applies an order passed in the connection context ({@link #connectionContext}) to the new client session before
     * it sends its KEXINIT (MINA signals "session created" before starting the session).
     */
    public static final SessionListener APPLY_FROM_CONNECTION_CONTEXT = new SessionListener() {
        @Override
        public void sessionCreated(Session session) {
            if (session instanceof ClientSession cs && cs.getConnectionContext() != null) {
                List<NamedFactory<Signature>> order = cs.getConnectionContext().getAttribute(ORDER);
                if (order != null) {
                    cs.setSignatureFactories(order);
                }
            }
        }
    };

    private HostKeyAlgorithmOrder() {
    }

    /** A connection context for {@code SshClient.connect(user, host, port, context)} carrying this order. */
    public static AttributeRepository connectionContext(List<NamedFactory<Signature>> order) {
        return AttributeRepository.ofKeyValuePair(ORDER, List.copyOf(order));
    }

    /** Key types of the plain (not revoked, not CA) {@code known_hosts} entries matching host and port. */
    public static Set<String> knownKeyTypes(Path knownHosts, String host, int port) throws IOException {
        Set<String> types = new LinkedHashSet<>();
        if (knownHosts == null || !Files.isRegularFile(knownHosts)) {
            return types;
        }
        Collection<KnownHostEntry> entries = KnownHostEntry.readKnownHostEntries(knownHosts);
        for (KnownHostEntry e : entries) {
            if (e.getMarker() != null || e.getKeyEntry() == null) {
                continue;
            }
            try {
                if (e.isHostMatch(host, port)) {
                    types.add(e.getKeyEntry().getKeyType());
                }
            } catch (RuntimeException ignored) {
                // an unparsable host pattern matches nothing (MINA's verifier does the same)
            }
        }
        return types;
    }

    /** {@code base} reordered so the algorithms for {@code knownTypes} come first, PQ before classical. */
    public static List<NamedFactory<Signature>> order(List<? extends NamedFactory<Signature>> base,
            Set<String> knownTypes) {
        List<NamedFactory<Signature>> pq = new ArrayList<>();
        List<NamedFactory<Signature>> classical = new ArrayList<>();
        List<NamedFactory<Signature>> rest = new ArrayList<>();
        for (NamedFactory<Signature> f : base) {
            if (!isKnown(f.getName(), knownTypes)) {
                rest.add(f);
            } else if (PqSignatureFactories.isPq(f.getName())) {
                pq.add(f);
            } else {
                classical.add(f);
            }
        }
        List<NamedFactory<Signature>> out = new ArrayList<>(pq);
        out.addAll(classical);
        out.addAll(rest);
        return List.copyOf(out);
    }

    /** {@code true} when a key of {@code knownTypes} can sign with {@code algorithm} (rsa-sha2-512 for ssh-rsa). */
    public static boolean isKnown(String algorithm, Set<String> knownTypes) {
        return knownTypes.contains(algorithm) || knownTypes.contains(KeyUtils.getCanonicalKeyType(algorithm))
                || KeyUtils.getAllEquivalentKeyTypes(algorithm).stream().anyMatch(knownTypes::contains);
    }

    public static List<NamedFactory<Signature>> forHost(List<? extends NamedFactory<Signature>> base,
            Path knownHosts, String host, int port) throws IOException {
        return order(base, knownKeyTypes(knownHosts, host, port));
    }
}
