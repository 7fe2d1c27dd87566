package io.pqssh.common.text;

import java.util.Map;
import java.util.function.Function;

/**
 * OpenSSH's {@code percent_expand} (misc.c): {@code %%} is one {@code %}, {@code %X} the value of token X; an
 * unknown token or a {@code %} at the end is an error, never copied through.
 */
public final class PercentExpand {
    private PercentExpand() {
    }

    /** {@code s} with {@code tokens} expanded; {@link IllegalArgumentException} "unknown key %X" otherwise. */
    public static String expand(String s, Map<Character, String> tokens) {
        return expand(s, tokens::get);
    }

    /**
     * {@code s} with each {@code %X} replaced by {@code tokens.apply(X)}; a {@code null} answer means X is no token
     * here ("unknown key %X"). Values are looked up only when used, so costly ones (a host name, a hash) can be lazy.
     */
    public static String expand(String s, Function<Character, String> tokens) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '%') {
                b.append(c);
                continue;
            }
            if (++i >= s.length()) {
                throw new IllegalArgumentException("unknown key %");
            }
            char k = s.charAt(i);
            String v = k == '%' ? "%" : tokens.apply(k);
            if (v == null) {
                throw new IllegalArgumentException("unknown key %" + k);
            }
            b.append(v);
        }
        return b.toString();
    }
}
