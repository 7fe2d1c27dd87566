package io.pqssh.client.config;

import java.util.Locale;

/** ssh's host and user patterns: {@code *} and {@code ?} wildcards, {@code !} negation, comma lists. */
public final class Patterns {
    private Patterns() {
    }

    /** Glob match, case-insensitive as ssh matches host names. */
    public static boolean glob(String text, String pattern) {
        return glob(text.toLowerCase(Locale.ROOT), 0, pattern.toLowerCase(Locale.ROOT), 0);
    }

    private static boolean glob(String s, int si, String p, int pi) {
        while (pi < p.length()) {
            char c = p.charAt(pi);
            if (c == '*') {
                for (int k = si; k <= s.length(); k++) {
                    if (glob(s, k, p, pi + 1)) {
                        return true;
                    }
                }
                return false;
            }
            if (si >= s.length() || (c != '?' && c != s.charAt(si))) {
                return false;
            }
            si++;
            pi++;
        }
        return si == s.length();
    }

    /**
     * ssh's {@code match_pattern_list}: true when some positive pattern of the comma list matches and no negated
     * one does.
     */
    public static boolean matchList(String text, String commaList) {
        boolean matched = false;
        for (String p : commaList.split(",")) {
            if (p.isEmpty()) {
                continue;
            }
            if (p.startsWith("!")) {
                if (glob(text, p.substring(1))) {
                    return false;
                }
            } else if (glob(text, p)) {
                matched = true;
            }
        }
        return matched;
    }
}
