package io.pqssh.client.config;

import java.util.List;
import java.util.Locale;

import io.pqssh.client.config.Keyword.Validator;
import io.pqssh.core.kem.KemAlgorithm;

/** Argument checks for {@link Keywords}; messages follow ssh's wording where it has one. */
public final class Validators {
    private Validators() {
    }

    static Validator any() {
        return (k, a) -> {
        };
    }

    static Validator atLeast(int n) {
        return (k, a) -> {
            if (a.size() < n) {
                throw new ConfigException("missing argument.");
            }
        };
    }

    static Validator exactly(int n) {
        return (k, a) -> {
            atLeast(n).check(k, a);
            if (a.size() > n) {
                throw new ConfigException("garbage at end of line (\"" + a.get(n) + "\").");
            }
        };
    }

    static Validator flag() {
        return choice("yes", "no", "true", "false");
    }

    static Validator choice(String... values) {
        return (k, a) -> {
            exactly(1).check(k, a);
            for (String v : values) {
                if (v.equalsIgnoreCase(a.get(0))) {
                    return;
                }
            }
            throw new ConfigException("unsupported " + k + " value \"" + a.get(0) + "\" (expected "
                    + String.join(", ", values) + ")");
        };
    }

    static Validator integer(long min, long max) {
        return (k, a) -> {
            exactly(1).check(k, a);
            long v;
            try {
                v = Long.parseLong(a.get(0));
            } catch (NumberFormatException e) {
                throw new ConfigException("invalid " + k + " \"" + a.get(0) + "\": not a number");
            }
            if (v < min || v > max) {
                throw new ConfigException("invalid " + k + " \"" + a.get(0) + "\": expected " + min + ".." + max);
            }
        };
    }

    static Validator time() {
        return (k, a) -> {
            exactly(1).check(k, a);
            if (parseSeconds(a.get(0)) < 0) {
                throw new ConfigException("invalid time value \"" + a.get(0) + "\".");
            }
        };
    }

    /** OpenSSH's time format: {@code 30}, {@code 30s}, {@code 5m}, {@code 1h30m}; -1 when invalid. */
    /** ControlPersist: yes, no (true, false), or a time ({@code 0} is no, as ssh). */
    static Validator persist() {
        Validator t = time();
        return (k, args) -> {
            exactly(1).check(k, args);
            String v = args.get(0).toLowerCase(java.util.Locale.ROOT);
            if (!List.of("yes", "no", "true", "false").contains(v)) {
                t.check(k, args);
            }
        };
    }

    public static long parseSeconds(String s) {
        if (s.equalsIgnoreCase("none")) {
            return 0;
        }
        long total = 0;
        long cur = -1;
        for (char c : s.toLowerCase(Locale.ROOT).toCharArray()) {
            if (c >= '0' && c <= '9') {
                cur = (cur < 0 ? 0 : cur) * 10 + (c - '0');
                if (cur > Integer.MAX_VALUE) {
                    return -1;
                }
                continue;
            }
            if (cur < 0) {
                return -1;
            }
            long mult = switch (c) {
                case 's' -> 1;
                case 'm' -> 60;
                case 'h' -> 3600;
                case 'd' -> 86400;
                case 'w' -> 604800;
                default -> -1;
            };
            if (mult < 0) {
                return -1;
            }
            total += cur * mult;
            cur = -1;
        }
        if (cur >= 0) {
            total += cur;
        }
        return s.isEmpty() ? -1 : total;
    }

    /** RekeyLimit: {@code default} or a size ({@code 1G}, {@code 500M}, {@code 64K}; at least 16), then a time. */
    static Validator rekeyLimit() {
        return (k, a) -> {
            atLeast(1).check(k, a);
            if (a.size() > 2) {
                throw new ConfigException("garbage at end of line (\"" + a.get(2) + "\").");
            }
            if (!a.get(0).equalsIgnoreCase("default")) {
                long bytes = parseSize(a.get(0));
                if (bytes < 0) {
                    throw new ConfigException("Bad number '" + a.get(0) + "'");
                }
                if (bytes != 0 && bytes < 16) {
                    throw new ConfigException("RekeyLimit too small");
                }
            }
            if (a.size() == 2 && !a.get(1).equalsIgnoreCase("default") && parseSeconds(a.get(1)) < 0) {
                throw new ConfigException("invalid time value \"" + a.get(1) + "\".");
            }
        };
    }

    /** A byte count with an optional K, M or G suffix (powers of 1024, as OpenSSH's scan_scaled); -1 when invalid. */
    public static long parseSize(String s) {
        if (!s.matches("[0-9]{1,12}[KkMmGg]?")) {
            return -1;
        }
        char last = s.charAt(s.length() - 1);
        int shift = switch (Character.toUpperCase(last)) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> 0;
        };
        return Long.parseLong(shift == 0 ? s : s.substring(0, s.length() - 1)) << shift;
    }

    static Validator escapeChar() {
        return (k, a) -> {
            exactly(1).check(k, a);
            String v = a.get(0);
            if (!(v.equalsIgnoreCase("none") || v.length() == 1 || (v.length() == 2 && v.charAt(0) == '^'))) {
                throw new ConfigException("Bad escape character \"" + v + "\".");
            }
        };
    }

    /** An octal file mode mask (StreamLocalBindMask), 0 to 0777. */
    static Validator octalMask() {
        return (k, a) -> {
            exactly(1).check(k, a);
            if (!a.get(0).matches("[0-7]{1,4}") || Integer.parseInt(a.get(0), 8) > 0777) {
                throw new ConfigException("bad octal mask '" + a.get(0) + "'");
            }
        };
    }

    static Validator forward(ForwardSpec.Kind kind) {
        return (k, a) -> ForwardSpec.parse(kind, a);
    }

    static Validator kemAlgorithms() {
        return (k, a) -> {
            exactly(1).check(k, a);
            for (String n : a.get(0).split(",")) {
                if (KemAlgorithm.fromName(n).isEmpty()) {
                    throw new ConfigException("unknown KEM algorithm \"" + n + "\" (accepted: mlkem512, mlkem768,"
                            + " mlkem1024, ML-KEM-512/768/1024, kyber512/768/1024)");
                }
            }
        };
    }
}
