package io.pqssh.client.agent;

import io.pqssh.client.config.Validators;

/** {@code -t life} of ssh-agent and ssh-add: OpenSSH's time format ({@code 30}, {@code 90s}, {@code 1h30m}). */
public final class Lifetimes {
    public static final String INVALID = "Invalid lifetime";

    private Lifetimes() {
    }

    /** Seconds (0 means no lifetime, as in ssh-add), or -1 when invalid. */
    public static long parse(String s) {
        if (s.equalsIgnoreCase("none")) {
            return -1; // the config's "none" is not a convtime() value
        }
        long v = Validators.parseSeconds(s);
        return v > 0xffffffffL ? -1 : v;
    }
}
