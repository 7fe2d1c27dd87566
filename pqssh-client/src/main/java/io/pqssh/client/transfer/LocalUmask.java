package io.pqssh.client.transfer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's file mode creation mask, which Java does not expose: Linux's {@code /proc/self/status}. */
public final class LocalUmask {
    private static final int DEFAULT = 022;

    private LocalUmask() {
    }

    /** The umask, or 022 where {@code /proc/self/status} has no {@code Umask:} line. */
    public static int current() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Umask:")) {
                    return Integer.parseInt(line.substring(6).strip(), 8);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return DEFAULT;
        }
        return DEFAULT;
    }
}
