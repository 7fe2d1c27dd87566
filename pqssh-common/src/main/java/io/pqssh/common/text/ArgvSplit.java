package io.pqssh.common.text;

import java.util.ArrayList;
import java.util.List;

/**
 * OpenSSH's {@code argv_split} (misc.c), which both ssh_config arguments and sshd's
 * {@code Authorized*Command} lines go through: blanks (space, tab) separate arguments; {@code "} and {@code '} group;
 * a backslash escapes {@code '}, {@code "} and backslash anywhere, quoted or not, and a space outside quotes; any
 * other backslash stays as it is. Measured against OpenSSH 9.2's ssh -G: {@code User 'a\'b c'} is {@code a'b c},
 * {@code User 'a\zb'} is {@code a\zb}.
 */
public final class ArgvSplit {
    private ArgvSplit() {
    }

    /**
     * The arguments of {@code s}; with {@code stopAtComment}, a {@code #} where an argument would start ends the
     * line (ssh_config). An unterminated quote is an {@link IllegalArgumentException}.
     */
    public static List<String> split(String s, boolean stopAtComment) {
        List<String> out = new ArrayList<>();
        int n = s.length();
        int i = 0;
        while (true) {
            while (i < n && blank(s.charAt(i))) {
                i++;
            }
            if (i >= n || stopAtComment && s.charAt(i) == '#') {
                return out;
            }
            StringBuilder arg = new StringBuilder();
            char quote = 0;
            for (; i < n; i++) {
                char c = s.charAt(i);
                if (c == '\\' && i + 1 < n && escapable(s.charAt(i + 1), quote)) {
                    arg.append(s.charAt(++i));
                } else if (quote == 0 && blank(c)) {
                    break;
                } else if (quote == 0 && (c == '"' || c == '\'')) {
                    quote = c;
                } else if (quote != 0 && c == quote) {
                    quote = 0;
                } else {
                    arg.append(c);
                }
            }
            if (quote != 0) {
                throw new IllegalArgumentException("unterminated quote");
            }
            out.add(arg.toString());
        }
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t';
    }

    private static boolean escapable(char next, char quote) {
        return next == '\'' || next == '"' || next == '\\' || quote == 0 && next == ' ';
    }
}
