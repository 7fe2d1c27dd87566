package io.pqssh.client.config;

import java.util.List;

/**
 * One ssh_config keyword: its spelling, what pqssh does with it, whether repeated values accumulate, and how its
 * arguments are checked at parse time (so a bad value names its file and line).
 */
public record Keyword(String name, Status status, boolean accumulates, Validator validator, String behavesAs,
        String note) {
    /** What pqssh does with a keyword. */
    public enum Status {
        /** Implemented. */
        SUPPORTED,
        /**
         * Accepted and ignored with a {@code debug1} line: OpenSSH ignores it too (deprecated, or compiled out as
         * GSSAPI is), or it only tunes something pqssh does not do, so ignoring it cannot weaken security.
         */
        IGNORED,
        /**
         * Not implemented, and ignoring it cannot weaken security (it asks for something extra, such as X11
         * forwarding or connection sharing): accepted; when the resolved value is not one of {@link #behavesAs()}
         * (values separated by {@code |}), one warning line says what pqssh does instead.
         */
        WARNED,
        /**
         * Known to OpenSSH, not implemented by pqssh: an error, except for {@link #behavesAs()}, the one value
         * (case-insensitive) that describes what pqssh does anyway (e.g. {@code ForwardX11 no}).
         */
        UNSUPPORTED
    }

    /** Checks a keyword's arguments (already split and unquoted). */
    @FunctionalInterface
    public interface Validator {
        void check(String keyword, List<String> args) throws ConfigException;
    }

    /** True when {@code value} (case-insensitive) is one of {@link #behavesAs()}. */
    public boolean behavesAs(String value) {
        if (behavesAs == null) {
            return false;
        }
        for (String v : behavesAs.split("\\|")) {
            if (v.equalsIgnoreCase(value)) {
                return true;
            }
        }
        return false;
    }

    public String lowerName() {
        return name.toLowerCase(java.util.Locale.ROOT);
    }
}
