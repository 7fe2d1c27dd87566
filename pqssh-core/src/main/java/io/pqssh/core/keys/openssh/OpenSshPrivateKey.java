package io.pqssh.core.keys.openssh;

import javax.security.auth.Destroyable;

import io.pqssh.core.keys.SshPrivateKey;

/** A private key read from an {@code openssh-key-v1} file, with its comment. {@link #destroy()} wipes the key. */
public record OpenSshPrivateKey(SshPrivateKey key, String comment) implements Destroyable {
    @Override
    public void destroy() throws javax.security.auth.DestroyFailedException {
        key.destroy();
    }

    @Override
    public boolean isDestroyed() {
        return key.isDestroyed();
    }
}
