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
        /** Accepted and ignored, because OpenSSH ignores it too (deprecated, or compiled out as GSSAPI is). */
        IGNORED,
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

    public String lowerName() {
        return name.toLowerCase(java.util.Locale.ROOT);
    }
}
