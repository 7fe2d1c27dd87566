package io.pqssh.core.keys;

import java.util.List;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/** Reads one key type's private fields from an {@code openssh-key-v1} private section. */
public interface PrivateKeyCodec {
    /** Key type names this codec reads (canonical name first, then aliases). */
    List<String> keyTypes();

    /**
     * Reads the fields following {@code string keyType} (the comment is not included) and returns the key.
     * Wrong lengths or inconsistent public/private halves are {@link MalformedMessageException}s.
     */
    SshPrivateKey readPrivateFields(String keyType, SshReader in) throws MalformedMessageException;
}
