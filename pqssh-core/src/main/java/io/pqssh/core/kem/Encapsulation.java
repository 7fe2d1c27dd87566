package io.pqssh.core.kem;

import java.util.Arrays;

import javax.security.auth.Destroyable;

/** The result of ML-KEM.Encaps: the ciphertext to send and the shared secret to keep (wipe after use). */
public final class Encapsulation implements Destroyable {
    private final byte[] ciphertext;
    private final byte[] sharedSecret;
    private volatile boolean destroyed;

    Encapsulation(byte[] ciphertext, byte[] sharedSecret) {
        this.ciphertext = ciphertext;
        this.sharedSecret = sharedSecret;
    }

    public byte[] ciphertext() {
        return ciphertext.clone();
    }

    /** The live secret array (not a copy) so that {@link #destroy()} really wipes what was used. */
    public byte[] sharedSecret() {
        if (destroyed) {
            throw new IllegalStateException("shared secret has been wiped");
        }
        return sharedSecret;
    }

    @Override
    public void destroy() {
        Arrays.fill(sharedSecret, (byte) 0);
        destroyed = true;
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }
}
