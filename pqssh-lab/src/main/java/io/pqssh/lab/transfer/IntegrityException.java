package io.pqssh.lab.transfer;

import java.io.IOException;

/** Source and destination of a transfer differ: the run is invalid, not merely slow. */
public final class IntegrityException extends IOException {
    private static final long serialVersionUID = 1L;

    public IntegrityException(String message) {
        super(message);
    }
}
