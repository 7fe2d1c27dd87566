package io.pqssh.core.auth;

import java.util.Objects;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * SSH_MSG_USERAUTH_KEM_CHALLENGE (60): {@code string alg} (echoed), {@code string kem_public_key} (echoed),
 * {@code string ciphertext}. Decoding checks only the encoding; the client's semantic checks (alg, key, length)
 * live in {@link KemAuthClient}, because a mismatch there must abort without a response, not be a parse error.
 */
public record KemChallenge(String alg, byte[] publicKey, byte[] ciphertext) {
    public KemChallenge {
        Objects.requireNonNull(alg);
        publicKey = publicKey.clone();
        ciphertext = ciphertext.clone();
    }

    public void writeFields(SshWriter out) {
        out.putString(alg).putString(publicKey).putString(ciphertext);
    }

    public byte[] encodeFields() {
        SshWriter out = new SshWriter(16 + alg.length() + publicKey.length + ciphertext.length);
        writeFields(out);
        return out.toByteArray();
    }

    public byte[] encode() {
        SshWriter out = new SshWriter(16 + alg.length() + publicKey.length + ciphertext.length);
        out.putByte(KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE);
        writeFields(out);
        return out.toByteArray();
    }

    public static KemChallenge decode(byte[] payload) throws MalformedMessageException {
        SshReader in = new SshReader(payload);
        if (in.getByte() != KemAuthMethod.SSH_MSG_USERAUTH_KEM_CHALLENGE) {
            throw new MalformedMessageException("not a USERAUTH_KEM_CHALLENGE");
        }
        return decodeFields(in);
    }

    public static KemChallenge decodeFields(SshReader in) throws MalformedMessageException {
        KemChallenge c = new KemChallenge(in.getUtf8(), in.getString(), in.getString());
        in.expectEnd("KEM challenge");
        return c;
    }

    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    @Override
    public byte[] ciphertext() {
        return ciphertext.clone();
    }
}
