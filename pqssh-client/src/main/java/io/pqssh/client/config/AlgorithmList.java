package io.pqssh.client.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * ssh's algorithm list syntax against a default list: {@code a,b} (exactly these), {@code +a,b} (append),
 * {@code -pat,...} (remove, wildcards allowed), {@code ^a,b} (put first). Names must be ones pqssh supports; an
 * unknown one is an error naming the keyword, as ssh's "Bad SSH2 KexAlgorithms spec".
 */
public final class AlgorithmList {
    private AlgorithmList() {
    }

    public static List<String> apply(String keyword, String spec, List<String> defaults, Collection<String> supported)
            throws ConfigException {
        String s = spec.strip();
        if (s.isEmpty()) {
            throw new ConfigException("Bad SSH2 " + keyword + " spec '" + spec + "'");
        }
        char op = s.charAt(0);
        String body = op == '+' || op == '-' || op == '^' ? s.substring(1) : s;
        List<String> items = new ArrayList<>();
        for (String p : body.split(",")) {
            if (p.isEmpty()) {
                throw new ConfigException("Bad SSH2 " + keyword + " spec '" + spec + "'");
            }
            items.add(p);
        }
        List<String> out = new ArrayList<>(defaults);
        switch (op) {
            case '-' -> out.removeIf(a -> items.stream().anyMatch(p -> Patterns.glob(a, p)));
            case '+' -> {
                for (String i : known(keyword, spec, items, supported)) {
                    if (!out.contains(i)) {
                        out.add(i);
                    }
                }
            }
            case '^' -> {
                List<String> k = known(keyword, spec, items, supported);
                out.removeAll(k);
                out.addAll(0, k);
            }
            default -> {
                out.clear();
                for (String i : known(keyword, spec, items, supported)) {
                    if (!out.contains(i)) {
                        out.add(i);
                    }
                }
            }
        }
        if (out.isEmpty()) {
            throw new ConfigException(keyword + " '" + spec + "' leaves no algorithm");
        }
        return out;
    }

    private static List<String> known(String keyword, String spec, List<String> items, Collection<String> supported)
            throws ConfigException {
        for (String i : items) {
            if (!supported.contains(i)) {
                throw new ConfigException("Bad SSH2 " + keyword + " spec '" + spec + "': unsupported algorithm '"
                        + i + "' (pqssh ssh -Q lists the supported ones)");
            }
        }
        return items;
    }
}
