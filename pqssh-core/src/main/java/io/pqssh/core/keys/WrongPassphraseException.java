package io.pqssh.core.keys;

/** The passphrase given does not decrypt the private key (the two check values differ, or the AEAD tag fails). */
public final class WrongPassphraseException extends KeyFileException {
    private static final long serialVersionUID = 1L;

    public WrongPassphraseException(String message) {
        super(message);
    }
}
