package io.pqssh.core.sig;

import java.security.SecureRandom;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/** Entry points over all signature key types, keyed by the name inside each blob. */
public final class Signatures {
    private Signatures() {
    }

    /** Decodes a public key blob of any supported type. */
    public static SshPublicKey decodePublicKey(byte[] blob) throws MalformedMessageException {
        return SshPublicKey.decode(blob);
    }

    /**
     * Verifies signature blob {@code signatureBlob} over {@code data} with public key blob {@code publicKeyBlob}.
     * Malformed blobs, unknown names and a signature of another type are {@link MalformedMessageException}s; a
     * well-formed signature that does not verify is {@code false}.
     */
    public static boolean verify(byte[] publicKeyBlob, byte[] data, byte[] signatureBlob)
            throws MalformedMessageException {
        return decodePublicKey(publicKeyBlob).verify(data, signatureBlob);
    }

    public static SshSigningKey generate(SignatureKeyType type, SecureRandom random) {
        return SshSigningKey.generate(type, random);
    }

    /** The algorithm name of a signature blob (its first string), without checking the rest. */
    public static String signatureName(byte[] signatureBlob) throws MalformedMessageException {
        return peekName(signatureBlob, "signature");
    }

    static String peekName(byte[] blob, String what) throws MalformedMessageException {
        SshReader r = new SshReader(blob);
        try {
            return r.getUtf8();
        } catch (MalformedMessageException e) {
            throw new MalformedMessageException("truncated " + what + " blob: " + e.getMessage());
        }
    }
}
