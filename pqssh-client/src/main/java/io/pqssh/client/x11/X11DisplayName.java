package io.pqssh.client.x11;

import java.nio.file.Path;

import io.pqssh.common.forward.LocalTarget;

/**
 * A {@code DISPLAY} value as ssh reads it ({@code x11_connect_display}, {@code client_x11_display_valid}):
 * {@code :N[.S]}, {@code unix:N[.S]} and {@code ::N[.S]} are the local server's Unix socket
 * {@code /tmp/.X11-unix/XN}; {@code host:N[.S]} is TCP port 6000+N of host. The screen is what {@code x11-req}
 * carries.
 */
public record X11DisplayName(String value, LocalTarget target, int screen) {
    static final String SOCKET_DIR = "/tmp/.X11-unix";
    private static final int X_TCP_PORT = 6000;

    /**
     * @throws IllegalArgumentException with ssh's message, when the value is not a display name ssh accepts
     */
    public static X11DisplayName parse(String display) {
        if (!valid(display)) {
            throw new IllegalArgumentException("DISPLAY \"" + display + "\" invalid; disabling X11 forwarding");
        }
        int colon = display.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("Could not find ':' in DISPLAY: " + display);
        }
        boolean local = display.startsWith("unix:") || display.startsWith(":");
        String numberPart = local ? display.substring(display.lastIndexOf(':') + 1) : display.substring(colon + 1);
        int dot = numberPart.indexOf('.');
        int number;
        try {
            number = Integer.parseInt(dot < 0 ? numberPart : numberPart.substring(0, dot));
        } catch (NumberFormatException e) {
            number = -1;
        }
        if (number < 0 || number > 65535 - X_TCP_PORT) {
            throw new IllegalArgumentException("Could not parse display number from DISPLAY: " + display);
        }
        int screen = 0;
        if (dot >= 0) {
            try {
                screen = Integer.parseInt(numberPart.substring(dot + 1));
            } catch (NumberFormatException e) {
                screen = 0; // ssh: strtonum fails, screen 0
            }
            if (screen < 0 || screen > 400) {
                screen = 0;
            }
        }
        LocalTarget target = local ? LocalTarget.unix(Path.of(SOCKET_DIR, "X" + number))
                : LocalTarget.tcp(display.substring(0, colon), X_TCP_PORT + number);
        return new X11DisplayName(display, target, screen);
    }

    /** ssh's {@code client_x11_display_valid}: letters, digits and {@code :/.-_} only. */
    static boolean valid(String display) {
        if (display == null || display.isEmpty()) {
            return false;
        }
        for (int i = 0; i < display.length(); i++) {
            char c = display.charAt(i);
            if (!Character.isLetterOrDigit(c) && ":/.-_".indexOf(c) < 0 || c > 127) {
                return false;
            }
        }
        return true;
    }

    /**
     * The name {@code xauth list} is asked for: ssh looks a {@code localhost:N} display up as {@code unix:N}, where
     * the entry of a local (FamilyLocal) display is.
     */
    public String xauthName() {
        return value.startsWith("localhost:") ? "unix:" + value.substring("localhost:".length()) : value;
    }
}
