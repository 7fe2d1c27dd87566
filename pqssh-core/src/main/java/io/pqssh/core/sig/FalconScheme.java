package io.pqssh.core.sig;

import java.security.SecureRandom;
import java.util.Arrays;

import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.pqc.crypto.falcon.FalconKeyGenerationParameters;
import org.bouncycastle.pqc.crypto.falcon.FalconKeyPairGenerator;
import org.bouncycastle.pqc.crypto.falcon.FalconParameters;
import org.bouncycastle.pqc.crypto.falcon.FalconPrivateKeyParameters;
import org.bouncycastle.pqc.crypto.falcon.FalconPublicKeyParameters;
import org.bouncycastle.pqc.crypto.falcon.FalconSigner;

import io.pqssh.core.wire.MalformedMessageException;

/**
 * Falcon-512/1024 (round 3, encodings as liboqs): pk = byte (0x00 + logn) || h; signature = byte (0x30 + logn) ||
 * nonce(40) || compressed s, variable length up to 752 / 1462 (see the type table); secret = byte (0x50 + logn) || f || g || F.
 * Private fields: {@code string pk, string secret}. The public key cannot be re-derived cheaply here, so reading a
 * private key checks it with a sign/verify round trip instead.
 */
final class FalconScheme extends SignatureScheme {
    private static final int NONCE = 40;

    private final FalconParameters params;
    private final int logn;
    private final int fgBytes;
    private final int bigFBytes;

    FalconScheme(SignatureKeyType type) {
        super(type);
        // compared by name: the enum is still initialising when schemes are built
        if (type.name().equals("FALCON_512")) {
            params = FalconParameters.falcon_512;
            logn = 9;
            fgBytes = 384;
            bigFBytes = 512;
        } else if (type.name().equals("FALCON_1024")) {
            params = FalconParameters.falcon_1024;
            logn = 10;
            fgBytes = 640;
            bigFBytes = 1024;
        } else {
            throw new IllegalArgumentException(type.name());
        }
    }

    private int secretBytes() {
        return 1 + 2 * fgBytes + bigFBytes;
    }

    @Override
    protected KeyMaterial generate(SecureRandom random) {
        FalconKeyPairGenerator g = new FalconKeyPairGenerator();
        g.init(new FalconKeyGenerationParameters(random, params));
        AsymmetricCipherKeyPair kp = g.generateKeyPair();
        FalconPrivateKeyParameters sk = (FalconPrivateKeyParameters) kp.getPrivate();
        byte[] h = ((FalconPublicKeyParameters) kp.getPublic()).getH();
        byte[] pk = new byte[1 + h.length];
        pk[0] = (byte) logn;
        System.arraycopy(h, 0, pk, 1, h.length);
        byte[] f = sk.getSpolyf();
        byte[] gg = sk.getG();
        byte[] bigF = sk.getSpolyF();
        byte[] secret = new byte[secretBytes()];
        secret[0] = (byte) (0x50 + logn);
        System.arraycopy(f, 0, secret, 1, fgBytes);
        System.arraycopy(gg, 0, secret, 1 + fgBytes, fgBytes);
        System.arraycopy(bigF, 0, secret, 1 + 2 * fgBytes, bigFBytes);
        Arrays.fill(f, (byte) 0);
        Arrays.fill(gg, (byte) 0);
        Arrays.fill(bigF, (byte) 0);
        return new KeyMaterial(pk, secret);
    }

    @Override
    protected byte[] derivePublicKey(byte[] secret) {
        checkSecret(secret);
        return null;
    }

    private void checkSecret(byte[] secret) {
        if (secret.length != secretBytes() || (secret[0] & 0xFF) != 0x50 + logn) {
            throw new IllegalArgumentException(type().sshName() + " secret must be " + secretBytes()
                    + " bytes starting with 0x" + Integer.toHexString(0x50 + logn));
        }
    }

    @Override
    protected void checkPublicKey(byte[] raw) throws MalformedMessageException {
        super.checkPublicKey(raw);
        if ((raw[0] & 0xFF) != logn) {
            throw new MalformedMessageException(type().sshName() + " public key header must be 0x0"
                    + Integer.toHexString(logn) + ", got 0x" + Integer.toHexString(raw[0] & 0xFF));
        }
    }

    @Override
    protected void checkSignature(byte[] raw) throws MalformedMessageException {
        super.checkSignature(raw);
        if (raw.length < 2 + NONCE) {
            throw new MalformedMessageException(type().sshName() + " signature too short: " + raw.length
                    + " bytes");
        }
        if ((raw[0] & 0xFF) != 0x30 + logn) {
            throw new MalformedMessageException(type().sshName() + " signature header must be 0x"
                    + Integer.toHexString(0x30 + logn) + ", got 0x" + Integer.toHexString(raw[0] & 0xFF));
        }
    }

    @Override
    protected byte[] signRaw(byte[] secret, byte[] publicKey, byte[] data, SecureRandom random) {
        checkSecret(secret);
        byte[] f = Arrays.copyOfRange(secret, 1, 1 + fgBytes);
        byte[] g = Arrays.copyOfRange(secret, 1 + fgBytes, 1 + 2 * fgBytes);
        byte[] bigF = Arrays.copyOfRange(secret, 1 + 2 * fgBytes, secret.length);
        try {
            FalconPrivateKeyParameters sk = new FalconPrivateKeyParameters(params, f, g, bigF,
                    Arrays.copyOfRange(publicKey, 1, publicKey.length));
            FalconSigner s = new FalconSigner();
            s.init(true, new ParametersWithRandom(sk, random));
            return s.generateSignature(data);
        } finally {
            Arrays.fill(f, (byte) 0);
            Arrays.fill(g, (byte) 0);
            Arrays.fill(bigF, (byte) 0);
        }
    }

    @Override
    protected boolean verifyRaw(byte[] publicKey, byte[] data, byte[] signature) {
        FalconSigner s = new FalconSigner();
        s.init(false, new FalconPublicKeyParameters(params, Arrays.copyOfRange(publicKey, 1, publicKey.length)));
        return s.verifySignature(data, signature);
    }

    @Override
    protected String secretFieldProblem(byte[] secret) {
        try {
            checkSecret(secret);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
