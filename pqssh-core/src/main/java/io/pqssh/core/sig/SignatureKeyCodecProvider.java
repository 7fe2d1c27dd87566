package io.pqssh.core.sig;

import java.util.ArrayList;
import java.util.List;

import io.pqssh.core.keys.PrivateKeyCodec;
import io.pqssh.core.keys.PrivateKeyCodecProvider;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/**
 * Registers a {@link PrivateKeyCodec} per {@link SignatureKeyType} (ServiceLoader); the keys read are
 * {@link SshSigningKey}s.
 */
public final class SignatureKeyCodecProvider implements PrivateKeyCodecProvider {
    private static final List<PrivateKeyCodec> CODECS = build();

    private static List<PrivateKeyCodec> build() {
        List<PrivateKeyCodec> l = new ArrayList<>();
        for (SignatureKeyType t : SignatureKeyType.values()) {
            l.add(new Codec(t));
        }
        return List.copyOf(l);
    }

    @Override
    public List<PrivateKeyCodec> codecs() {
        return CODECS;
    }

    private record Codec(SignatureKeyType type) implements PrivateKeyCodec {
        @Override
        public List<String> keyTypes() {
            return type.names();
        }

        @Override
        public SshPrivateKey readPrivateFields(String keyType, SshReader in) throws MalformedMessageException {
            return type.scheme().readPrivateKey(keyType, in);
        }
    }
}
