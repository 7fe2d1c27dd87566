package io.pqssh.core.keys;

import java.util.List;

/**
 * A family of key types (ServiceLoader service). Each family registers itself in
 * {@code META-INF/services/io.pqssh.core.keys.PrivateKeyCodecProvider}; adding a type is adding a codec.
 */
public interface PrivateKeyCodecProvider {
    List<PrivateKeyCodec> codecs();
}
