package io.pqssh.client.transfer;

import java.util.ArrayList;
import java.util.List;

/**
 * The names a legacy-SCP download may bring back, as OpenSSH's scp (since 8.0, CVE-2019-6111) decides them: the
 * requested remote path is brace-expanded ({@code {a,b}}), the last component of each expansion is a pattern, and a
 * name the server sends must equal one of them or match it as {@code fnmatch(pattern, name, 0)} does. The server's
 * shell expands globs, so a pattern is needed rather than the literal name; anything else the server sends is a
 * hostile or broken server writing files the user did not ask for.
 */
final class ScpRequest {
    private final List<String> patterns;

    private ScpRequest(List<String> patterns) {
        this.patterns = List.copyOf(patterns);
    }

    /** The patterns of one remote operand; an unbalanced brace or bracket is an error, as scp's "invalid brace pattern". */
    static ScpRequest of(String remotePath) {
        List<String> done = new ArrayList<>();
        List<String> active = new ArrayList<>(List.of(remotePath));
        while (!active.isEmpty()) {
            String p = active.remove(active.size() - 1);
            List<String> expanded = expandFirstBrace(p);
            if (expanded != null) {
                active.addAll(expanded);
                continue;
            }
            done.add(p.substring(p.lastIndexOf('/') + 1));
        }
        return new ScpRequest(done);
    }

    List<String> patterns() {
        return patterns;
    }

    /** True when the server may send {@code name} for this request. */
    boolean allows(String name) {
        for (String p : patterns) {
            if (p.equals(name) || fnmatch(p, 0, name, 0)) {
                return true;
            }
        }
        return false;
    }

    /** A name no sink writes whatever was asked: empty, a path, or the directory itself or its parent. */
    static boolean unsafeName(String name) {
        return name.isEmpty() || name.indexOf('/') >= 0 || name.equals(".") || name.equals("..");
    }

    /** The expansions of the first top-level {@code {...}} of {@code p}, or null when it has none. */
    private static List<String> expandFirstBrace(String p) {
        int start = -1;
        int end = -1;
        int level = 0;
        boolean inBracket = false;
        for (int i = 0; i < p.length() && end < 0; i++) {
            char c = p.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '[') {
                inBracket = true;
            } else if (c == ']') {
                inBracket = false;
            } else if (c == '{' && !inBracket) {
                if (i + 1 < p.length() && p.charAt(i + 1) == '}') {
                    i++; // "{}" stays literal, as for find(1) and csh
                } else {
                    if (start < 0) {
                        start = i;
                    }
                    level++;
                }
            } else if (c == '}' && !inBracket) {
                if (start < 0) {
                    throw invalid(p);
                }
                if (--level <= 0) {
                    end = i;
                }
            }
        }
        if (end < 0 && (start >= 0 || inBracket)) {
            throw invalid(p);
        }
        if (start < 0) {
            return null;
        }
        List<String> out = new ArrayList<>();
        String head = p.substring(0, start);
        String tail = p.substring(end + 1);
        int selStart = start + 1;
        level = 0;
        inBracket = false;
        for (int i = start + 1; i <= end; i++) {
            char c = i < end ? p.charAt(i) : ',';
            if (c == '\\' && i + 1 < end) {
                i++;
                continue;
            }
            if (c == '[') {
                inBracket = true;
            } else if (c == ']') {
                inBracket = false;
            } else if (!inBracket && c == '{') {
                level++;
            } else if (!inBracket && c == '}') {
                level--;
            } else if (c == ',' && !inBracket && level == 0) {
                out.add(head + p.substring(selStart, i) + tail);
                selStart = i + 1;
            }
        }
        if (inBracket || level > 0) {
            throw invalid(p);
        }
        return out;
    }

    private static IllegalArgumentException invalid(String p) {
        return new IllegalArgumentException("invalid brace pattern \"" + p + "\"");
    }

    /** POSIX fnmatch without flags: {@code *} and {@code ?} match any character, '/' and a leading '.' too. */
    static boolean fnmatch(String p, int pi, String s, int si) {
        while (pi < p.length()) {
            char c = p.charAt(pi);
            if (c == '*') {
                while (pi < p.length() && p.charAt(pi) == '*') {
                    pi++;
                }
                if (pi == p.length()) {
                    return true;
                }
                for (int k = si; k <= s.length(); k++) {
                    if (fnmatch(p, pi, s, k)) {
                        return true;
                    }
                }
                return false;
            }
            if (si >= s.length()) {
                return false;
            }
            char sc = s.charAt(si);
            if (c == '?') {
                pi++;
            } else if (c == '[') {
                int close = bracketEnd(p, pi);
                if (close < 0) {
                    if (sc != '[') { // no closing bracket: '[' is an ordinary character
                        return false;
                    }
                    pi++;
                } else {
                    if (!inBracket(p, pi + 1, close, sc)) {
                        return false;
                    }
                    pi = close + 1;
                }
            } else {
                if (c == '\\' && pi + 1 < p.length()) {
                    c = p.charAt(++pi);
                }
                if (c != sc) {
                    return false;
                }
                pi++;
            }
            si++;
        }
        return si == s.length();
    }

    /** The index of the ']' closing the bracket expression opened at {@code open}, or -1. */
    private static int bracketEnd(String p, int open) {
        int i = open + 1;
        if (i < p.length() && (p.charAt(i) == '!' || p.charAt(i) == '^')) {
            i++;
        }
        if (i < p.length() && p.charAt(i) == ']') {
            i++; // a leading ']' is a member
        }
        while (i < p.length()) {
            char c = p.charAt(i);
            if (c == '\\' && i + 1 < p.length()) {
                i += 2;
                continue;
            }
            if (c == '[' && i + 1 < p.length() && p.charAt(i + 1) == ':') {
                int endClass = p.indexOf(":]", i + 2);
                if (endClass > 0) {
                    i = endClass + 2;
                    continue;
                }
            }
            if (c == ']') {
                return i;
            }
            i++;
        }
        return -1;
    }

    private static boolean inBracket(String p, int from, int close, char sc) {
        boolean negate = p.charAt(from) == '!' || p.charAt(from) == '^';
        int i = negate ? from + 1 : from;
        boolean hit = false;
        boolean first = true;
        while (i < close) {
            char lo = p.charAt(i);
            if (lo == '[' && i + 1 < close && p.charAt(i + 1) == ':') {
                int endClass = p.indexOf(":]", i + 2);
                hit |= inClass(p.substring(i + 2, endClass), sc);
                i = endClass + 2;
                first = false;
                continue;
            }
            if (lo == '\\' && i + 1 < close) {
                lo = p.charAt(++i);
            } else if (lo == ']' && !first) {
                break;
            }
            first = false;
            i++;
            char hi = lo;
            if (i + 1 < close && p.charAt(i) == '-') {
                hi = p.charAt(i + 1);
                if (hi == '\\' && i + 2 < close) {
                    hi = p.charAt(i + 2);
                    i++;
                }
                i += 2;
            }
            hit |= lo <= sc && sc <= hi;
        }
        return hit != negate;
    }

    private static boolean inClass(String name, char c) {
        return switch (name) {
            case "alpha" -> Character.isLetter(c);
            case "digit" -> c >= '0' && c <= '9';
            case "alnum" -> Character.isLetterOrDigit(c);
            case "upper" -> Character.isUpperCase(c);
            case "lower" -> Character.isLowerCase(c);
            case "space" -> Character.isWhitespace(c);
            case "blank" -> c == ' ' || c == '\t';
            case "punct" -> c > 32 && c < 127 && !Character.isLetterOrDigit(c);
            case "xdigit" -> Character.digit(c, 16) >= 0 && c < 128;
            case "print" -> c >= 32 && c != 127;
            case "graph" -> c > 32 && c != 127;
            case "cntrl" -> c < 32 || c == 127;
            default -> false;
        };
    }
}
