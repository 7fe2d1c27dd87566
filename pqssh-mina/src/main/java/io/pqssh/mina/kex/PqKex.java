package io.pqssh.mina.kex;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.kex.DHFactory;
import org.apache.sshd.common.kex.KeyExchangeFactory;

import io.pqssh.mina.internal.kex.KexInitDefaults;

/**
 * Key exchange selection with OpenSSH 10's preference order (MINA's default puts sntrup761 first). The post-quantum
 * methods depend on Bouncy Castle at run time; MINA drops them silently when it is missing or too old, so
 * {@link #checkPostQuantumSupport()} turns that into a loud start-up failure.
 */
public final class PqKex {
    /** The server's default: OpenSSH 10 order, then the classical fallback (client: KexInitDefaults.CLIENT_KEX). */
    public static final List<String> DEFAULT_ORDER = List.of(
            "mlkem768x25519-sha256",
            "sntrup761x25519-sha512",
            "sntrup761x25519-sha512@openssh.com",
            "mlkem1024nistp384-sha384",
            "mlkem768nistp256-sha256",
            "curve25519-sha256");

    /** Names whose shared secret is protected against a quantum adversary (all hybrids with a PQ KEM). */
    private static final Set<String> POST_QUANTUM = Set.of(
            "mlkem768x25519-sha256",
            "mlkem768nistp256-sha256",
            "mlkem1024nistp384-sha384",
            "sntrup761x25519-sha512",
            "sntrup761x25519-sha512@openssh.com",
            "mlkem512-sha256",
            "mlkem768-sha256",
            "mlkem1024-sha384");

    private PqKex() {
    }

    public static boolean isPostQuantum(String kexName) {
        return kexName != null && POST_QUANTUM.contains(kexName.toLowerCase(Locale.ROOT));
    }

    /** Fails unless MINA can run mlkem768x25519-sha256 and sntrup761x25519-sha512 here. */
    public static void checkPostQuantumSupport() {
        for (BuiltinDHFactories f : List.of(BuiltinDHFactories.mlkem768x25519, BuiltinDHFactories.sntrup761x25519)) {
            if (!f.isSupported()) {
                throw new IllegalStateException("post-quantum key exchange " + f.getName()
                        + " is not available: MINA SSHD needs Bouncy Castle >= 1.79 (bcprov-jdk18on) on the class path;"
                        + " pqssh refuses to start without it");
            }
        }
    }

    /**
     * Resolves names to MINA key exchange factories, keeping the given order. Unknown names fail; supported-but-
     * unavailable ones fail too, since silently dropping a configured KEX is the bug we guard against.
     */
    public static List<KeyExchangeFactory> factories(List<String> names,
            Function<DHFactory, KeyExchangeFactory> dh2kex) {
        List<KeyExchangeFactory> out = new ArrayList<>();
        for (String name : names) {
            DHFactory f = BuiltinDHFactories.resolveFactory(name);
            if (f == null) {
                throw new IllegalArgumentException("unknown key exchange algorithm '" + name + "' (known: "
                        + String.join(", ", knownNames()) + ")");
            }
            if (!f.isSupported()) {
                throw new IllegalStateException("key exchange " + name + " is not supported by this runtime");
            }
            out.add(dh2kex.apply(f));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("KexAlgorithms is empty");
        }
        return out;
    }

    /** Parses an OpenSSH-style list: {@code a,b}, {@code +a} (append), {@code -a} (remove), {@code ^a} (prepend). */
    public static List<String> parseList(String spec) {
        return parseList(spec, DEFAULT_ORDER);
    }

    /** As {@link #parseList(String)}, with {@code defaults} as the list that {@code +}, {@code -} and {@code ^} edit. */
    public static List<String> parseList(String spec, List<String> defaults) {
        if (spec == null || spec.isBlank()) {
            return defaults;
        }
        String s = spec.trim();
        List<String> base = new ArrayList<>(defaults);
        char op = s.charAt(0);
        List<String> items = new ArrayList<>();
        for (String p : (op == '+' || op == '-' || op == '^' ? s.substring(1) : s).split(",")) {
            if (!p.isBlank()) {
                items.add(p.trim());
            }
        }
        switch (op) {
            case '+' -> {
                items.stream().filter(i -> !base.contains(i)).forEach(base::add);
                return base;
            }
            case '-' -> {
                base.removeAll(items);
                return base;
            }
            case '^' -> {
                base.removeAll(items);
                base.addAll(0, items);
                return base;
            }
            default -> {
                return items;
            }
        }
    }

    public static List<String> knownNames() {
        List<String> n = new ArrayList<>();
        for (BuiltinDHFactories f : BuiltinDHFactories.VALUES) {
            n.add(f.getName());
        }
        return n;
    }
}
