package io.pqssh.client.keys;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.PassphraseRequiredException;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.WrongPassphraseException;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/**
 * {@code pqssh keygen --convert-to}: an ML-DSA-44 + Ed25519 private key file rewritten under the composite's other
 * name (OpenSSH 10.4/10.5's {@code ssh-mldsa44-ed25519@openssh.com} to 10.6's {@code ssh-mldsa44-ed25519}, or back).
 * OpenSSH 10.6 tells users to regenerate such keys; pqssh can keep the key because both names sign the same way and
 * the private key holds both 32-byte seeds. Whatever lacks the seeds (a public key, another type, a secret pqssh
 * cannot read as seeds) is refused with one line saying the key must be regenerated.
 */
public final class CompositeKeyConversion {
    private CompositeKeyConversion() {
    }

    /** The target of a {@code --convert-to} argument; only the two composite names are accepted. */
    public static SignatureKeyType target(String type) {
        SignatureKeyType t;
        try {
            t = KeyTypes.signatureType(type);
        } catch (IllegalArgumentException e) {
            t = null;
        }
        if (t == null || !t.mlDsa44Ed25519Composite()) {
            throw new IllegalArgumentException("--convert-to takes mldsa44-ed25519 (OpenSSH 10.6's name) or"
                    + " mldsa44-ed25519@openssh.com (10.4/10.5's), not '" + type + "'");
        }
        return t;
    }

    /**
     * Reads {@code from} (an openssh-key-v1 composite key; {@code oldPassphrase} when encrypted) and writes it under
     * {@code target}'s name to {@code to} and {@code to.pub}, same comment, encrypted with {@code newPassphrase}
     * (null: none). {@code to} must not exist.
     */
    public static void convert(Path from, Path to, SignatureKeyType target, char[] oldPassphrase,
            char[] newPassphrase) throws IOException, KeyFileException {
        if (Files.exists(to)) {
            throw new IllegalArgumentException(to + " already exists; pqssh keygen does not overwrite keys");
        }
        String text = Files.readString(from);
        String regenerate = "; it must be regenerated: pqssh keygen -t " + shortName(target);
        if (KeyFiles.kind(text) != KeyFiles.Kind.OPENSSH_PRIVATE) {
            throw new IllegalArgumentException(from + " holds no OpenSSH private key, so not the seeds a "
                    + target.sshName() + " key is made of" + regenerate);
        }
        String type = PublicKeyLine.blobKeyType(OpenSshKeyV1.publicKeyBlob(text));
        if (type.equals(target.sshName())) {
            throw new IllegalArgumentException(from + " is already a " + type + " key");
        }
        if (SignatureKeyType.forName(type).filter(SignatureKeyType::mlDsa44Ed25519Composite).isEmpty()) {
            throw new IllegalArgumentException(from + " is a " + type + " key, not an ML-DSA-44+Ed25519 composite"
                    + regenerate);
        }
        KeyFilePermissions.checkPrivateKeyFile(from);
        OpenSshPrivateKey k;
        try {
            k = KeyFiles.readPrivate(text, oldPassphrase);
        } catch (WrongPassphraseException | PassphraseRequiredException e) {
            throw e;
        } catch (KeyFileException e) {
            throw new IllegalArgumentException(from + ": its ML-DSA-44+Ed25519 seeds cannot be read ("
                    + e.getMessage() + ")" + regenerate, e);
        }
        SshSigningKey converted = null;
        try {
            converted = ((SshSigningKey) k.key()).withCompositeName(target);
            KeyFiles.writeNew(to, converted, k.comment(), newPassphrase);
        } finally {
            KeyTypes.destroyQuietly(k.key());
            if (converted != null) {
                converted.destroy();
            }
        }
    }

    private static String shortName(SignatureKeyType t) {
        return t == SignatureKeyType.MLDSA44_ED25519_IETF ? "mldsa44-ed25519" : "mldsa44-ed25519@openssh.com";
    }
}
