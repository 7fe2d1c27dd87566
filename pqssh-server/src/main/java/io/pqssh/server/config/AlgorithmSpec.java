package io.pqssh.server.config;

import java.util.ArrayList;
import java.util.List;

import io.pqssh.server.login.AccessLists;

/**
 * sshd's algorithm-list syntax ({@code kex_assemble_names}): {@code a,b} (exactly these), {@code +a,b} (appended to
 * the default list), {@code -pat,...} (removed from it; wildcards), {@code ^a,b} (put first). Each name of the result
 * is then expanded against every algorithm pqssh implements, so key-type lists may carry wildcards everywhere; a
 * name that matches nothing is refused as sshd refuses it ({@code Bad SSH2 cipher spec 'x'.}), except in a {@code -}
 * list, which sshd does not check either.
 */
public final class AlgorithmSpec {
    private AlgorithmSpec() {
    }

    /**
     * The effective list for {@code spec}. {@code wildcards}: whether a name outside a {@code -} list may be a pattern
     * (sshd allows it for key types only). {@code badSpec} is sshd's message with {@code %s} for the value;
     * {@code openSshOnly} names what OpenSSH knows and pqssh does not, for a clearer refusal.
     */
    public static List<String> resolve(String spec, List<String> defaults, List<String> all, boolean wildcards,
            String badSpec, List<String> openSshOnly) {
        String s = spec.strip();
        char op = s.isEmpty() ? 0 : s.charAt(0);
        String body = op == '+' || op == '-' || op == '^' ? s.substring(1) : s;
        List<String> items = new ArrayList<>();
        for (String p : body.split(",", -1)) {
            if (p.isEmpty()) {
                throw new IllegalArgumentException(String.format(badSpec, spec));
            }
            items.add(p);
        }
        if (op != '-') {
            for (String item : items) {
                boolean known = wildcards ? all.stream().anyMatch(a -> AccessLists.wildcard(a, item, false))
                        : all.contains(item);
                if (!known) {
                    String msg = String.format(badSpec, spec);
                    if (openSshOnly.contains(item)) {
                        msg += " (" + item + " is OpenSSH's but not implemented by pqssh server)";
                    }
                    throw new IllegalArgumentException(msg);
                }
            }
        }
        List<String> assembled = new ArrayList<>();
        switch (op) {
            case '+' -> {
                assembled.addAll(defaults);
                assembled.addAll(items);
            }
            case '-' -> {
                for (String d : defaults) {
                    if (items.stream().noneMatch(p -> AccessLists.wildcard(d, p, false))) {
                        assembled.add(d);
                    }
                }
            }
            case '^' -> {
                assembled.addAll(items);
                assembled.addAll(defaults);
            }
            default -> assembled.addAll(items);
        }
        List<String> out = new ArrayList<>();
        for (String name : assembled) {
            for (String a : all) {
                if (AccessLists.wildcard(a, name, false) && !out.contains(a)) {
                    out.add(a);
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("'" + spec + "' leaves no algorithm");
        }
        return List.copyOf(out);
    }
}
