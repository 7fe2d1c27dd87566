package io.pqssh.client.keys;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.Optional;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;

/** The {@code -t} names {@code pqssh keygen} accepts, their {@code -b} rules, and key generation. */
public final class KeyTypes {
    private KeyTypes() {
    }

    /** The full SSH name of a {@code -t} argument ({@code rsa}, {@code ecdsa}, {@code mldsa65}, ...). */
    public static String sshName(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        switch (t) {
            case "rsa":
            case "ssh-rsa":
                return "ssh-rsa";
            case "ecdsa":
                return "ecdsa";
            default:
                break;
        }
        if (t.startsWith("ecdsa-sha2-nistp")) {
            return t;
        }
        Optional<KemAlgorithm> kem = KemAlgorithm.fromName(t);
        if (kem.isPresent()) {
            return kem.get().sshName();
        }
        return signatureType(t).sshName();
    }

    static SignatureKeyType signatureType(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        String full = switch (t) {
            case "ed25519" -> "ssh-ed25519";
            case "mldsa44", "mldsa-44" -> "ssh-mldsa-44";
            case "mldsa65", "mldsa-65" -> "ssh-mldsa-65";
            case "mldsa87", "mldsa-87" -> "ssh-mldsa-87";
            // OpenSSH 10.6 made the IETF name the composite's; the 10.4/10.5 name stays reachable by its suffix
            case "mldsa44-ed25519" -> "ssh-mldsa44-ed25519";
            case "mldsa44-ed25519@openssh.com" -> "ssh-mldsa44-ed25519@openssh.com";
            case "slhdsa128f" -> "ssh-slhdsapuresha2128f";
            case "slhdsa192f" -> "ssh-slhdsapuresha2192f";
            case "slhdsa256f" -> "ssh-slhdsapuresha2256f";
            case "falcon512" -> "ssh-falcon512";
            case "falcon1024" -> "ssh-falcon1024";
            // the KEMUAuth artifact's AND composites (publickey-hybrid-and), Ed25519 half first as in their names
            case "ed25519-mldsa65", "ed25519-mldsa-65" -> "ssh-ed25519-mldsa-65";
            case "ed25519-slhdsa192f" -> "ssh-ed25519-slhdsapuresha2192f";
            default -> t;
        };
        return SignatureKeyType.forName(full).orElseThrow(() -> new IllegalArgumentException(
                "unknown key type '" + type + "' (see pqssh keygen --help)"));
    }

    /**
     * Generates a key. {@code bits} is null when {@code -b} was not given: RSA then gets 3072 and ECDSA 256 bits
     * (ssh-keygen's defaults, ECDSA's curve also from a full {@code ecdsa-sha2-nistpN} name). Every other type
     * has a fixed size, and a {@code -b} other than that size is refused rather than ignored.
     */
    public static SshPrivateKey generate(String type, Integer bits, SecureRandom random) {
        String name = sshName(type);
        if (name.equals("ssh-rsa")) {
            return ClassicalKeys.generateRsa(bits == null ? ClassicalKeys.RSA_DEFAULT_BITS : bits, random);
        }
        if (name.startsWith("ecdsa")) {
            int curveBits = name.startsWith("ecdsa-sha2-nistp")
                    ? Integer.parseInt(name.substring("ecdsa-sha2-nistp".length())) : 256;
            if (bits != null && name.startsWith("ecdsa-sha2-nistp") && bits != curveBits) {
                throw new IllegalArgumentException("-b " + bits + " contradicts -t " + type);
            }
            return ClassicalKeys.generateEcdsa(bits == null ? curveBits : bits, random);
        }
        Optional<KemAlgorithm> kem = KemAlgorithm.fromName(name);
        SshPrivateKey key = kem.isPresent() ? new MlKemSshKey(MlKem.generate(kem.get(), random))
                : SshSigningKey.generate(signatureType(name), random);
        if (bits != null) {
            int size;
            try {
                size = KeyDescriptions.bits(key.publicKeyBlob());
            } catch (io.pqssh.core.keys.KeyFileException e) {
                throw new IllegalStateException(e);
            }
            if (bits != size) {
                destroyQuietly(key);
                throw new IllegalArgumentException("-b " + bits + ": " + type + " keys have a fixed size ("
                        + size + " bits as -l prints it); -b applies to rsa and ecdsa only");
            }
        }
        return key;
    }

    /** The default file name suffix, as ssh-keygen's {@code id_<type>}. */
    public static String fileSuffix(String type) {
        String name = sshName(type);
        if (name.equals("ssh-rsa")) {
            return "rsa";
        }
        if (name.startsWith("ecdsa")) {
            return "ecdsa";
        }
        return type.toLowerCase(Locale.ROOT).replace("ssh-", "").replace("@openssh.com", "").replace('-', '_');
    }

    static void destroyQuietly(SshPrivateKey k) {
        try {
            k.destroy();
        } catch (javax.security.auth.DestroyFailedException ignored) {
            // best effort
        }
    }
}
