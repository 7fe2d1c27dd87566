package io.pqssh.core.keys;

/** The private key is encrypted and no (or an empty) passphrase was given: ask the user and try again. */
public final class PassphraseRequiredException extends KeyFileException {
    private static final long serialVersionUID = 1L;

    public PassphraseRequiredException(String message) {
        super(message);
    }
}
