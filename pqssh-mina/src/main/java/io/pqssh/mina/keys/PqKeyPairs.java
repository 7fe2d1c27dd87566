package io.pqssh.mina.keys;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.util.security.SecurityUtils;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.mina.internal.keys.PqPublicKeyDecoders;

/**
 * MINA {@link KeyPair}s from pqssh signature keys and key files. PQ types become {@link PqPublicKey} +
 * {@link PqPrivateKey}; Ed25519 and every other classical type are loaded by MINA itself (so its own Ed25519, RSA
 * and ECDSA signatures keep working and ssh-keygen's files load as before). {@link #generate} and
 * {@link #generateKem} make every kind of key an embedding application needs in memory, in one place.
 */
public final class PqKeyPairs {
    // one per class: SecureRandom is thread-safe, and seeding one per call would cost a blocking read on some systems
    private static final SecureRandom RANDOM = new SecureRandom();

    private PqKeyPairs() {
    }

    /**
     * A fresh signature key pair of {@code type} for MINA: a host key (through {@link PqKeyPairProvider#of}) or a
     * {@code publickey} user key ({@code ClientSession.addPublicKeyIdentity}); PQ, composite and Ed25519 types alike.
     */
    public static KeyPair generate(SignatureKeyType type) {
        SshSigningKey key = SshSigningKey.generate(Objects.requireNonNull(type, "type"), RANDOM);
        return keyPair(key);
    }

    /**
     * A fresh ML-KEM key pair: the client's {@code publickey-kem} identity ({@code KemClientIdentity.of(pair)}) and
     * the public key ({@link KemKeyPair#publicKey()}) that the server's {@code KemKeyAuthorizer} accepts.
     */
    public static KemKeyPair generateKem(KemAlgorithm algorithm) {
        return MlKem.generate(Objects.requireNonNull(algorithm, "algorithm"), RANDOM);
    }

    /** A key pair for MINA. Ed25519 goes through MINA's openssh-key-v1 reader to give MINA's own key classes. */
    public static KeyPair keyPair(SshSigningKey key) {
        if (key.type() == SignatureKeyType.ED25519) {
            String armored = OpenSshKeyV1.write(key, "", null, new SecureRandom());
            try {
                List<KeyPair> kps = minaKeyPairs("ed25519 key", armored.getBytes(StandardCharsets.US_ASCII), null);
                if (kps.size() != 1) {
                    throw new IllegalStateException("MINA read " + kps.size() + " keys from one Ed25519 key");
                }
                return kps.get(0);
            } catch (IOException | GeneralSecurityException e) {
                throw new IllegalStateException("MINA cannot read an Ed25519 key pqssh wrote: " + e.getMessage(), e);
            }
        }
        return new KeyPair(PqPublicKey.of(key.publicKey()), new PqPrivateKey(key));
    }

    /** Whether an openssh-key-v1 file holds a PQ signature key (decided from the unencrypted public key). */
    public static boolean isPqSignatureKeyFile(String text) throws KeyFileException {
        if (!text.strip().startsWith(OpenSshKeyV1.BEGIN)) {
            return false;
        }
        String type = PublicKeyLine.blobKeyType(OpenSshKeyV1.publicKeyBlob(text));
        return PqPublicKeyDecoders.pqType(type).isPresent();
    }

    /**
     * Loads the key pair(s) of a private key file of any type: PQ signature keys through pqssh (openssh-key-v1,
     * encrypted or not), everything else through MINA. The file must not be accessible to group or others.
     *
     * @param passphrase for encrypted files, or {@code null}; not modified
     * @throws KeyFileException malformed file, wrong or missing passphrase, PQ key that is not a signature key
     */
    public static List<KeyPair> load(Path file, char[] passphrase)
            throws IOException, GeneralSecurityException, KeyFileException {
        KeyFilePermissions.checkPrivateKeyFile(file);
        byte[] raw = Files.readAllBytes(file);
        try {
            String text = new String(raw, StandardCharsets.UTF_8);
            if (isPqSignatureKeyFile(text)) {
                OpenSshPrivateKey k = OpenSshKeyV1.read(text, passphrase);
                if (!(k.key() instanceof SshSigningKey sk)) {
                    throw new KeyFileException(file + ": not a signature key");
                }
                return List.of(keyPair(sk));
            }
            List<KeyPair> kps = minaKeyPairs(file.toString(), raw, passphrase);
            if (kps.isEmpty()) {
                throw new KeyFileException(file + ": no usable key found");
            }
            return kps;
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    private static List<KeyPair> minaKeyPairs(String name, byte[] data, char[] passphrase)
            throws IOException, GeneralSecurityException {
        FilePasswordProvider pw = passphrase == null ? FilePasswordProvider.EMPTY
                : FilePasswordProvider.of(new String(passphrase));
        List<KeyPair> out = new ArrayList<>();
        try (InputStream in = new ByteArrayInputStream(data)) {
            Iterable<KeyPair> ids = SecurityUtils.loadKeyPairIdentities(null, NamedResource.ofName(name), in, pw);
            if (ids != null) {
                ids.forEach(out::add);
            }
        }
        return out;
    }
}
