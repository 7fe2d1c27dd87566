package io.pqssh.core.keys;

/**
 * A key file (private key container, public key line, identity file, authorized keys file) cannot be used: it is
 * malformed, truncated, of an unsupported type or cipher, or locked with a passphrase we do not have. The message
 * says which and is safe to show to the user (it never contains secret material).
 */
public class KeyFileException extends Exception {
    private static final long serialVersionUID = 1L;

    public KeyFileException(String message) {
        super(message);
    }

    public KeyFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
