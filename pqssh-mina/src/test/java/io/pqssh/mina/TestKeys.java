package io.pqssh.mina;

import java.security.GeneralSecurityException;
import java.security.KeyPair;

import org.apache.sshd.common.config.keys.KeyUtils;

/** Fresh classical key pairs for tests (MINA's generator). */
public final class TestKeys {
    private TestKeys() {
    }

    public static KeyPair ed25519() {
        return generate("ssh-ed25519", 256);
    }

    public static KeyPair generate(String type, int bits) {
        try {
            return KeyUtils.generateKeyPair(type, bits);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
