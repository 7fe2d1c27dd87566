package io.pqssh.client.config;

/** A bad option, file or value in the client configuration; {@code pqssh ssh} exits 255 on it, as ssh does. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
