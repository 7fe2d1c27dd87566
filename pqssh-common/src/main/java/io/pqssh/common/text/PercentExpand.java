package io.pqssh.common.text;

import java.util.Map;

/**
 * OpenSSH's {@code percent_expand} (misc.c): {@code %%} is one {@code %}, {@code %X} the value of token X; an
 * unknown token or a {@code %} at the end is an error, never copied through.
 */
public final class PercentExpand {
    private PercentExpand() {
    }

    /** {@code s} with {@code tokens} expanded; {@link IllegalArgumentException} "unknown key %X" otherwise. */
    public static String expand(String s, Map<Character, String> tokens) {
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
            if (k == '%') {
                b.append('%');
            } else if (tokens.containsKey(k)) {
                b.append(tokens.get(k));
            } else {
                throw new IllegalArgumentException("unknown key %" + k);
            }
        }
        return b.toString();
    }
}
