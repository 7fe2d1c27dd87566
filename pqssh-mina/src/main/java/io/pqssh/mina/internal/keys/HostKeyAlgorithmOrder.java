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
 * ones; every certificate algorithm when a {@code @cert-authority} line names the host), then the rest in the default
 * order. Without this, a server with both an Ed25519 and an ML-DSA host key
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

    /**
     * Stands in {@link #knownKeyTypes}' result for "a {@code @cert-authority} line names the host": as OpenSSH's
     * {@code order_hostkeyalgs}, every certificate algorithm is then preferred.
     */
    public static final String CERT_AUTHORITY = "@cert-authority";

    /**
     * Key types of the plain (not revoked, not CA) {@code known_hosts} entries matching host and port, plus
     * {@link #CERT_AUTHORITY} when a {@code @cert-authority} line matches.
     */
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
        // @cert-authority lines from the text: MINA's reader drops a line whose host field it cannot parse, such as
        // the [host]:* that OpenSSH accepts
        for (String line : Files.readAllLines(knownHosts)) {
            String l = line.strip();
            if (l.startsWith("@cert-authority") && caNamesHost(l, host, port)) {
                types.add(CERT_AUTHORITY);
                break;
            }
        }
        return types;
    }

    /**
     * Whether a {@code @cert-authority} line's host field names the host as ssh matches it ({@code match_hostname}:
     * {@code [host]:port} off port 22, then the bare name as ssh retries; {@code *}/{@code ?} patterns, comma lists, a
     * matching {@code !pattern} vetoes; hashed {@code |1|} names). MINA's matcher wants {@code [host]:port} patterns
     * and so misses the usual {@code @cert-authority *.example.org} for other ports.
     */
    static boolean caNamesHost(String line, String host, int port) {
        String[] f = line.strip().split("\\s+");
        if (f.length < 3) {
            return false;
        }
        String h = host.toLowerCase(java.util.Locale.ROOT);
        if (port > 0 && port != 22 && hostFieldMatches(f[1], "[" + h + "]:" + port)) {
            return true;
        }
        return hostFieldMatches(f[1], h);
    }

    private static boolean hostFieldMatches(String field, String name) {
        if (field.startsWith("|1|")) {
            String[] p = field.substring(3).split("\\|", -1);
            if (p.length != 2) {
                return false;
            }
            try {
                javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA1");
                mac.init(new javax.crypto.spec.SecretKeySpec(java.util.Base64.getDecoder().decode(p[0]), "HmacSHA1"));
                return java.security.MessageDigest.isEqual(java.util.Base64.getDecoder().decode(p[1]),
                        mac.doFinal(name.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            } catch (java.security.GeneralSecurityException | IllegalArgumentException e) {
                return false;
            }
        }
        boolean positive = false;
        for (String pattern : field.split(",")) {
            boolean negated = pattern.startsWith("!");
            String pat = (negated ? pattern.substring(1) : pattern).toLowerCase(java.util.Locale.ROOT);
            if (!pat.isEmpty() && io.pqssh.core.keys.authorized.OpenSshPatterns.matchPattern(name, pat)) {
                if (negated) {
                    return false;
                }
                positive = true;
            }
        }
        return positive;
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
        if (KeyUtils.isCertificateAlgorithm(algorithm)) {
            if (knownTypes.contains(CERT_AUTHORITY)) {
                return true;
            }
            // a certificate of a known key: ssh asks for it too (a certificate no CA vouches for is then checked as
            // its plain key), since OpenSSH keeps its list, certificates first, when the best type's key is known
            java.util.Optional<String> plain = io.pqssh.core.cert.CertificateKeyTypes.plainName(
                    KeyUtils.getCanonicalKeyType(algorithm));
            return plain.isPresent() && isKnown(plain.get(), knownTypes);
        }
        return knownTypes.contains(algorithm) || knownTypes.contains(KeyUtils.getCanonicalKeyType(algorithm))
                || KeyUtils.getAllEquivalentKeyTypes(algorithm).stream().anyMatch(knownTypes::contains);
    }

    public static List<NamedFactory<Signature>> forHost(List<? extends NamedFactory<Signature>> base,
            Path knownHosts, String host, int port) throws IOException {
        return order(base, knownKeyTypes(knownHosts, host, port));
    }
}
