package io.pqssh.core.keys;

/** The file holds a key type for which no {@link PrivateKeyCodec} (or public key parser) is registered. */
public final class UnsupportedKeyTypeException extends KeyFileException {
    private static final long serialVersionUID = 1L;
    private final String keyType;

    public UnsupportedKeyTypeException(String keyType, String message) {
        super(message);
        this.keyType = keyType;
    }

    /** The key type name found in the file. */
    public String keyType() {
        return keyType;
    }
}
