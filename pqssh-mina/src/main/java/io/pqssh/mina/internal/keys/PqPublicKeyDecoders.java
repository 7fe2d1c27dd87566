package io.pqssh.mina.internal.keys;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.spec.InvalidKeySpecException;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeSet;

import org.apache.sshd.common.config.keys.PublicKeyEntryDataResolver;
import org.apache.sshd.common.config.keys.PublicKeyEntryDecoder;
import org.apache.sshd.common.session.SessionContext;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.common.util.buffer.keys.BufferPublicKeyParser;

import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.mina.keys.MinaPqKeys;
import io.pqssh.mina.keys.PqPrivateKey;
import io.pqssh.mina.keys.PqPublicKey;
import io.pqssh.mina.keys.PqSignatureFactories;

/**
 * The three decoders MINA needs for PQ public keys, all strict through pqssh-core (name, exact length, no trailing
 * bytes): {@link #ENTRY} for {@code authorized_keys}/{@code known_hosts} lines ({@code KeyUtils} registry),
 * {@code dataResolver} to write such lines ({@code PublicKeyEntry} registry), {@link #WIRE} for blobs on the wire
 * ({@code Buffer.getRawPublicKey}, which has no registry: see {@link MinaPqKeys}).
 */
public final class PqPublicKeyDecoders {
    private PqPublicKeyDecoders() {
    }

    public static Optional<SignatureKeyType> pqType(String name) {
        return SignatureKeyType.forName(name == null ? "" : name).filter(PqPublicKey.TYPES::contains);
    }

    /** Decodes a whole blob whose first string must be {@code keyType}. */
    static PqPublicKey decodeBlob(String keyType, byte[] blob) throws InvalidKeySpecException {
        if (pqType(keyType).isEmpty()) {
            throw new InvalidKeySpecException("not a post-quantum key type: " + keyType);
        }
        SshPublicKey k;
        try {
            k = SshPublicKey.decode(blob);
        } catch (MalformedMessageException e) {
            throw new InvalidKeySpecException("malformed " + keyType + " public key: " + e.getMessage(), e);
        }
        if (!k.name().equals(keyType)) {
            throw new InvalidKeySpecException("public key says " + keyType + " but its blob holds " + k.name());
        }
        return PqPublicKey.of(k);
    }

    static byte[] blob(String keyType, byte[] afterName) {
        ByteArrayBuffer b = new ByteArrayBuffer(afterName.length + keyType.length() + 8, false);
        b.putString(keyType);
        b.putRawBytes(afterName);
        return b.getCompactData();
    }

    /**
     * Wire parser: reads the rest of the buffer (MINA bounds it to the key) as the key's fields; certificates of
     * post-quantum keys too ({@link PqCertificateDecoders}).
     */
    public static final BufferPublicKeyParser<PublicKey> WIRE = new BufferPublicKeyParser<>() {
        @Override
        public boolean isKeyTypeSupported(String keyType) {
            return pqType(keyType).isPresent() || PqCertificateDecoders.isPqCertificate(keyType);
        }

        @Override
        public PublicKey getRawPublicKey(String keyType, Buffer buffer) throws GeneralSecurityException {
            byte[] rest = new byte[buffer.available()];
            buffer.getRawBytes(rest);
            if (PqCertificateDecoders.isPqCertificate(keyType)) {
                return PqCertificateDecoders.decode(keyType, blob(keyType, rest));
            }
            return decodeBlob(keyType, blob(keyType, rest));
        }

        @Override
        public String toString() {
            return "pqssh post-quantum public keys and certificates";
        }
    };

    /**
     * Writes the key data of a {@code known_hosts}/{@code authorized_keys} line. MINA hands it either a whole blob
     * (entries it parsed) or, for {@link PqPublicKey} (an {@code UnsupportedSshPublicKey}), the key data after the
     * name ({@code string pk}); the latter is completed to the blob. The two cannot be confused: a whole blob starts
     * with the length of the name (under 64), the key data with the length of the key.
     */
    public static PublicKeyEntryDataResolver dataResolver(SignatureKeyType type, String name) {
        return new PublicKeyEntryDataResolver() {
            @Override
            public String encodeEntryKeyData(byte[] bytes) {
                byte[] out = bytes;
                if (isKeyDataOnly(type, bytes)) {
                    out = blob(name, bytes);
                }
                return Base64.getEncoder().encodeToString(out);
            }

            @Override
            public String toString() {
                return "pqssh " + name + " key data";
            }
        };
    }

    static boolean isKeyDataOnly(SignatureKeyType type, byte[] bytes) {
        try {
            SshReader r = new SshReader(bytes);
            byte[] pk = r.getString();
            return r.remaining() == 0 && pk.length == type.publicKeySize();
        } catch (MalformedMessageException e) {
            return false;
        }
    }

    /** {@code authorized_keys}/{@code known_hosts} decoder, registered with {@code KeyUtils}. */
    public static final PublicKeyEntryDecoder<PqPublicKey, PqPrivateKey> ENTRY = new EntryDecoder();

    private static final class EntryDecoder implements PublicKeyEntryDecoder<PqPublicKey, PqPrivateKey> {
        private final NavigableSet<String> names;

        EntryDecoder() {
            NavigableSet<String> n = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
            n.addAll(PqSignatureFactories.byName().keySet());
            names = Collections.unmodifiableNavigableSet(n);
        }

        @Override
        public NavigableSet<String> getSupportedKeyTypes() {
            return names;
        }

        @Override
        public Class<PqPublicKey> getPublicKeyType() {
            return PqPublicKey.class;
        }

        @Override
        public Class<PqPrivateKey> getPrivateKeyType() {
            return PqPrivateKey.class;
        }

        @Override
        public PublicKey resolve(SessionContext session, String keyType, byte[] keyData, Map<String, String> headers)
                throws InvalidKeySpecException {
            return decodeBlob(keyType, keyData);
        }

        @Override
        public PqPublicKey decodePublicKey(SessionContext session, String keyType, InputStream keyData,
                Map<String, String> headers) throws IOException, GeneralSecurityException {
            return decodeBlob(keyType, keyData.readAllBytes());
        }

        @Override
        public PqPublicKey decodePublicKeyByType(SessionContext session, String keyType, InputStream keyData,
                Map<String, String> headers) throws IOException, GeneralSecurityException {
            return decodeBlob(keyType, blob(keyType, keyData.readAllBytes()));
        }

        @Override
        public String encodePublicKey(OutputStream s, PqPublicKey key) throws IOException {
            s.write(key.blob());
            return key.getKeyType();
        }

        @Override
        public PqPublicKey clonePublicKey(PqPublicKey key) {
            return key;
        }

        @Override
        public PqPrivateKey clonePrivateKey(PqPrivateKey key) {
            return key;
        }

        @Override
        public KeyPairGenerator getKeyPairGenerator() throws GeneralSecurityException {
            throw new NoSuchAlgorithmException("generate PQ keys with pqssh keygen / SshSigningKey.generate");
        }

        @Override
        public KeyFactory getKeyFactoryInstance() throws GeneralSecurityException {
            throw new NoSuchAlgorithmException("PQ keys have no JCA key factory in pqssh");
        }

        @Override
        public String toString() {
            return "pqssh post-quantum public key entries";
        }
    }
}
