package io.pqssh.server.x11;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import org.apache.sshd.common.AttributeRepository.AttributeKey;

/**
 * sshd's X11 keywords as one immutable value: {@code X11Forwarding} (default no), {@code X11DisplayOffset} (first
 * display number tried, default 10), {@code X11UseLocalhost} (listen on loopback only and name the display
 * {@code localhost:N}, default yes) and {@code XAuthLocation} (default {@code /usr/bin/xauth}; null: none).
 */
public record X11Settings(boolean forwarding, int displayOffset, boolean useLocalhost, Path xauthLocation) {
    /** sshd's defaults: no X11 forwarding. */
    public static final X11Settings DEFAULT = new X11Settings(false, 10, true, Path.of("/usr/bin/xauth"));
    /** The server's settings ({@code SshServer} attribute); absent: no X11 forwarding. */
    public static final AttributeKey<X11Settings> KEY = new AttributeKey<>();
    /** sshd's MAX_DISPLAYS: display numbers tried are offset up to 999. */
    static final int MAX_DISPLAYS = 1000;

    public X11Settings {
        if (displayOffset < 0 || displayOffset >= MAX_DISPLAYS) {
            throw new IllegalArgumentException("X11DisplayOffset must be 0.." + (MAX_DISPLAYS - 1) + ", got "
                    + displayOffset);
        }
    }

    public X11Settings forwarding(boolean yes) {
        return new X11Settings(yes, displayOffset, useLocalhost, xauthLocation);
    }

    public X11Settings displayOffset(String value) {
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a display number, got '" + value + "'");
        }
        return new X11Settings(forwarding, n, useLocalhost, xauthLocation);
    }

    public X11Settings useLocalhost(boolean yes) {
        return new X11Settings(forwarding, displayOffset, yes, xauthLocation);
    }

    /** {@code XAuthLocation path|none}. */
    public X11Settings xauthLocation(String value) {
        Objects.requireNonNull(value);
        return new X11Settings(forwarding, displayOffset, useLocalhost,
                value.equalsIgnoreCase("none") ? null : Path.of(value));
    }

    /** The lines {@code sshd -T} prints for these keywords. */
    public List<String> sshdTLines() {
        return List.of("x11displayoffset " + displayOffset, "x11forwarding " + (forwarding ? "yes" : "no"),
                "x11uselocalhost " + (useLocalhost ? "yes" : "no"),
                "xauthlocation " + (xauthLocation == null ? "none" : xauthLocation));
    }
}
