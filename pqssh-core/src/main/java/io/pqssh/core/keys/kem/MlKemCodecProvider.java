package io.pqssh.core.keys.kem;

import java.util.Arrays;
import java.util.List;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.PrivateKeyCodec;
import io.pqssh.core.keys.PrivateKeyCodecProvider;

/** Registers the {@code mlkem512}, {@code mlkem768} and {@code mlkem1024} private key codecs (ServiceLoader). */
public final class MlKemCodecProvider implements PrivateKeyCodecProvider {
    private static final List<PrivateKeyCodec> CODECS = Arrays.stream(KemAlgorithm.values())
            .<PrivateKeyCodec>map(MlKemPrivateKeyCodec::new).toList();

    @Override
    public List<PrivateKeyCodec> codecs() {
        return CODECS;
    }
}
