package io.pqssh.core.auth;

import java.util.Objects;
import java.util.Optional;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * SSH_MSG_USERAUTH_REQUEST (50) for {@code publickey-kem} or {@code publickey-kem-and}.
 *
 * <pre>
 * publickey-kem:     byte 50, string user, string service, string "publickey-kem", string alg, string kem_pk
 * publickey-kem-and: byte 50, string user, string service, string "publickey-kem-and", boolean TRUE,
 *                    string sig_alg, string sig_key_blob, string signature, string kem_alg, string kem_pk
 * </pre>
 */
public final class KemAuthRequest {
    private final String user;
    private final String service;
    private final KemAuthMethod method;
    private final SignaturePart signature;
    private final KemCredential credential;

    private KemAuthRequest(String user, String service, KemAuthMethod method, SignaturePart signature,
            KemCredential credential) {
        this.user = Objects.requireNonNull(user);
        this.service = Objects.requireNonNull(service);
        this.method = Objects.requireNonNull(method);
        this.signature = signature;
        this.credential = Objects.requireNonNull(credential);
        if ((method == KemAuthMethod.PUBLICKEY_KEM_AND) != (signature != null)) {
            throw new IllegalArgumentException(method.wireName() + ": signature part "
                    + (signature == null ? "missing" : "not allowed"));
        }
    }

    public static KemAuthRequest kem(String user, String service, KemCredential credential) {
        return new KemAuthRequest(user, service, KemAuthMethod.PUBLICKEY_KEM, null, credential);
    }

    public static KemAuthRequest hybrid(String user, String service, SignaturePart signature,
            KemCredential credential) {
        return new KemAuthRequest(user, service, KemAuthMethod.PUBLICKEY_KEM_AND, signature, credential);
    }

    /** Decodes a whole payload, message number included. */
    public static KemAuthRequest decode(byte[] payload) throws MalformedMessageException {
        SshReader in = new SshReader(payload);
        if (in.getByte() != KemAuthMethod.SSH_MSG_USERAUTH_REQUEST) {
            throw new MalformedMessageException("not a USERAUTH_REQUEST");
        }
        String user = in.getUtf8();
        String service = in.getUtf8();
        String name = in.getUtf8();
        KemAuthMethod method = KemAuthMethod.fromWireName(name).orElseThrow(
                () -> new MalformedMessageException("not a KEM method: " + KemCredential.printable(name)));
        return decodeMethodFields(user, service, method, in);
    }

    /**
     * Decodes what follows the method name, for callers (the MINA adapter) that have already consumed the common
     * header. Trailing bytes are an error. An unknown algorithm or a key of the wrong length in otherwise
     * well-formed fields is an {@link UnusableKemCredentialException}, which the reference server answers with
     * FAILURE rather than a disconnect.
     */
    public static KemAuthRequest decodeMethodFields(String user, String service, KemAuthMethod method, SshReader in)
            throws MalformedMessageException {
        SignaturePart sig = null;
        if (method == KemAuthMethod.PUBLICKEY_KEM_AND) {
            if (!in.getBoolean()) {
                throw new MalformedMessageException("publickey-kem-and: signature flag must be TRUE");
            }
            sig = new SignaturePart(in.getUtf8(), in.getString(), in.getString());
        }
        // encoding first (a trailing byte is an encoding error whatever the fields say), then the fields' meaning
        String alg = in.getUtf8();
        byte[] pk = in.getString();
        in.expectEnd(method.wireName() + " request");
        return new KemAuthRequest(user, service, method, sig, KemCredential.of(alg, pk));
    }

    public byte[] encode() {
        SshWriter out = new SshWriter(64 + credential.algorithm().publicKeyBytes());
        out.putByte(KemAuthMethod.SSH_MSG_USERAUTH_REQUEST).putString(user).putString(service)
                .putString(method.wireName());
        if (signature != null) {
            out.putBoolean(true).putString(signature.algorithm()).putString(signature.keyBlob())
                    .putString(signature.signature());
        }
        credential.write(out);
        return out.toByteArray();
    }

    /**
     * The bytes the hybrid method's signature covers: {@code string session_id, byte 50, string user,
     * string service, string "publickey-kem-and", byte 1, string sig_alg, string sig_key_blob, string kem_alg,
     * string kem_public_key}.
     */
    public static byte[] hybridSignedData(byte[] sessionId, String user, String service, String sigAlg,
            byte[] sigKeyBlob, KemCredential credential) {
        SshWriter out = new SshWriter(128 + sigKeyBlob.length + credential.algorithm().publicKeyBytes());
        out.putString(sessionId).putByte(KemAuthMethod.SSH_MSG_USERAUTH_REQUEST).putString(user).putString(service)
                .putString(KemAuthMethod.PUBLICKEY_KEM_AND.wireName()).putByte(1).putString(sigAlg)
                .putString(sigKeyBlob);
        credential.write(out);
        return out.toByteArray();
    }

    public byte[] hybridSignedData(byte[] sessionId) {
        if (signature == null) {
            throw new IllegalStateException("not a publickey-kem-and request");
        }
        return hybridSignedData(sessionId, user, service, signature.algorithm(), signature.keyBlob(), credential);
    }

    public String user() {
        return user;
    }

    public String service() {
        return service;
    }

    public KemAuthMethod method() {
        return method;
    }

    public Optional<SignaturePart> signature() {
        return Optional.ofNullable(signature);
    }

    public KemCredential credential() {
        return credential;
    }

    /** The signature fields of {@code publickey-kem-and}: algorithm name, public key blob, signature blob. */
    public record SignaturePart(String algorithm, byte[] keyBlob, byte[] signature) {
        public SignaturePart {
            Objects.requireNonNull(algorithm);
            keyBlob = keyBlob.clone();
            signature = signature.clone();
        }

        @Override
        public byte[] keyBlob() {
            return keyBlob.clone();
        }

        @Override
        public byte[] signature() {
            return signature.clone();
        }
    }
}
