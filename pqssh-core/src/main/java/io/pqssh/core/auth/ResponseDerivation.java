package io.pqssh.core.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;

/** {@code response = HMAC-SHA-256(key = ss, msg = "ssh-publickey-kem-client-auth" || SID || CTX)}. */
public final class ResponseDerivation {
    /** 29 ASCII bytes, raw: no length prefix, no NUL. */
    public static final byte[] LABEL = "ssh-publickey-kem-client-auth".getBytes(StandardCharsets.US_ASCII);

    private ResponseDerivation() {
    }

    public static byte[] derive(byte[] sharedSecret, byte[] sessionId, byte[] ctx) {
        if (sharedSecret.length != 32) {
            throw new IllegalArgumentException("ML-KEM shared secret must be 32 bytes");
        }
        // BC's HMac instead of javax.crypto.Mac so that the key copy it keeps can be wiped by reset-free disposal
        HMac mac = new HMac(new SHA256Digest());
        KeyParameter key = new KeyParameter(sharedSecret);
        try {
            mac.init(key);
            mac.update(LABEL, 0, LABEL.length);
            mac.update(sessionId, 0, sessionId.length);
            mac.update(ctx, 0, ctx.length);
            byte[] out = new byte[mac.getMacSize()];
            mac.doFinal(out, 0);
            return out;
        } finally {
            Arrays.fill(key.getKey(), (byte) 0);
            mac.init(new KeyParameter(new byte[32])); // overwrite the inner/outer pads derived from ss
        }
    }
}
