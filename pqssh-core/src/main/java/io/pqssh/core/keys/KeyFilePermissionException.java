package io.pqssh.core.keys;

import java.nio.file.Path;

/** A private key file is accessible by group or others; like OpenSSH we refuse to use it. */
public final class KeyFilePermissionException extends KeyFileException {
    private static final long serialVersionUID = 1L;
    private final transient Path file;
    private final int mode;

    public KeyFilePermissionException(Path file, int mode, String message) {
        super(message);
        this.file = file;
        this.mode = mode;
    }

    public Path file() {
        return file;
    }

    /** The permission bits found (e.g. {@code 0644}). */
    public int mode() {
        return mode;
    }
}
