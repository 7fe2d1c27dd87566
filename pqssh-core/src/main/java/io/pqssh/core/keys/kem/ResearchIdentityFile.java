package io.pqssh.core.keys.kem;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;

import org.bouncycastle.crypto.digests.SHA3Digest;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemDecapsulationKey;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissions;

/**
 * The client identity file of the KEMUAuth research implementation (default {@code ~/.ssh/id_mlkem768}, mode
 * 0600): text lines {@code algorithm <alg>}, {@code public <base64 raw pk>}, {@code secret <base64 expanded dk>},
 * {@code #} comments, key and value separated by spaces, tabs or {@code =}. It holds the FIPS 203 expanded
 * decapsulation key, not the seed, so importing gives a {@link KemDecapsulationKey}.
 */
public final class ResearchIdentityFile {
    private ResearchIdentityFile() {
    }

    /**
     * Parses the file. {@code algorithm} and {@code secret} are required; {@code public}, when present, must equal
     * the encapsulation key embedded in the secret. The secret's embedded H(ek) is checked (FIPS 203 §7.3).
     * Unknown keys are an error (so a typo cannot silently drop a line).
     */
    public static KemDecapsulationKey parse(String text) throws KeyFileException {
        String alg = null;
        byte[] pub = null;
        byte[] secret = null;
        try {
            String[] lines = text.split("\r?\n", -1);
            for (int n = 0; n < lines.length; n++) {
                String line = lines[n].strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int i = 0;
                while (i < line.length() && !isSeparator(line.charAt(i))) {
                    i++;
                }
                String key = line.substring(0, i).toLowerCase(Locale.ROOT);
                while (i < line.length() && isSeparator(line.charAt(i))) {
                    i++;
                }
                String value = line.substring(i).strip();
                String where = "identity file line " + (n + 1);
                if (value.isEmpty()) {
                    throw new KeyFileException(where + ": '" + key + "' has no value");
                }
                switch (key) {
                    case "algorithm" -> {
                        if (alg != null) {
                            throw new KeyFileException(where + ": duplicate 'algorithm'");
                        }
                        alg = value;
                    }
                    case "public" -> {
                        if (pub != null) {
                            throw new KeyFileException(where + ": duplicate 'public'");
                        }
                        pub = base64(value, where + " (public)");
                    }
                    case "secret" -> {
                        if (secret != null) {
                            throw new KeyFileException(where + ": duplicate 'secret'");
                        }
                        secret = base64(value, where + " (secret)");
                    }
                    default -> throw new KeyFileException(where + ": unknown key '" + key
                            + "' (expected algorithm, public, secret)");
                }
            }
            if (alg == null) {
                throw new KeyFileException("identity file has no 'algorithm' line");
            }
            if (secret == null) {
                throw new KeyFileException("identity file has no 'secret' line");
            }
            String algName = alg;
            KemAlgorithm a = KemAlgorithm.fromName(alg).orElseThrow(() -> new KeyFileException(
                    "identity file: unknown algorithm '" + algName + "'"));
            if (secret.length != a.expandedSecretKeyBytes()) {
                throw new KeyFileException("identity file: " + a.sshName() + " secret must be "
                        + a.expandedSecretKeyBytes() + " bytes, got " + secret.length);
            }
            int ekOff = a.publicKeyBytes() - 32;
            byte[] ek = Arrays.copyOfRange(secret, ekOff, ekOff + a.publicKeyBytes());
            byte[] h = Arrays.copyOfRange(secret, ekOff + a.publicKeyBytes(), ekOff + a.publicKeyBytes() + 32);
            if (!MessageDigest.isEqual(sha3_256(ek), h)) {
                throw new KeyFileException("identity file: secret key is corrupted (embedded H(ek) mismatch)");
            }
            if (pub != null) {
                if (pub.length != a.publicKeyBytes()) {
                    throw new KeyFileException("identity file: " + a.sshName() + " public key must be "
                            + a.publicKeyBytes() + " bytes, got " + pub.length);
                }
                if (!MessageDigest.isEqual(pub, ek)) {
                    throw new KeyFileException("identity file: public key does not match the secret key");
                }
            }
            return MlKem.fromExpanded(a, secret);
        } finally {
            if (secret != null) {
                Arrays.fill(secret, (byte) 0);
            }
        }
    }

    /** Reads the file, refusing it first if group or others may access it. */
    public static KemDecapsulationKey read(Path file) throws IOException, KeyFileException {
        KeyFilePermissions.checkPrivateKeyFile(file);
        byte[] raw = Files.readAllBytes(file);
        try {
            return parse(new String(raw, StandardCharsets.UTF_8));
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /** The file text for a key pair (writes the expanded key, which the research format holds). */
    public static String format(KemKeyPair keyPair) {
        return format(keyPair, keyPair.algorithm().sshName());
    }

    /** As {@link #format(KemKeyPair)} with the algorithm spelled as given (e.g. {@code ML-KEM-768}). */
    public static String format(KemKeyPair keyPair, String algorithmSpelling) {
        byte[] dk = keyPair.expandedSecretKey();
        try {
            return format(keyPair.algorithm(), algorithmSpelling, keyPair.publicKey(), dk);
        } finally {
            Arrays.fill(dk, (byte) 0);
        }
    }

    public static String format(KemDecapsulationKey key) {
        byte[] dk = key.expanded();
        try {
            return format(key.algorithm(), key.algorithm().sshName(), key.publicKey(), dk);
        } finally {
            Arrays.fill(dk, (byte) 0);
        }
    }

    private static String format(KemAlgorithm alg, String spelling, byte[] pk, byte[] dk) {
        if (KemAlgorithm.fromName(spelling).orElse(null) != alg) {
            throw new IllegalArgumentException("'" + spelling + "' does not name " + alg.sshName());
        }
        Base64.Encoder b64 = Base64.getEncoder();
        return "# KEM identity (" + alg.fipsName() + "), written by pqssh\n"
                + "algorithm " + spelling + "\n"
                + "public " + b64.encodeToString(pk) + "\n"
                + "secret " + b64.encodeToString(dk) + "\n";
    }

    /** Writes the file with mode 0600 from creation. */
    public static void write(Path file, KemKeyPair keyPair) throws IOException {
        KeyFilePermissions.writePrivateKeyFile(file, format(keyPair));
    }

    private static boolean isSeparator(char c) {
        return c == ' ' || c == '\t' || c == '=';
    }

    private static byte[] base64(String v, String where) throws KeyFileException {
        try {
            return Base64.getDecoder().decode(v);
        } catch (IllegalArgumentException e) {
            throw new KeyFileException(where + ": invalid base64: " + e.getMessage());
        }
    }

    private static byte[] sha3_256(byte[] in) {
        SHA3Digest d = new SHA3Digest(256);
        d.update(in, 0, in.length);
        byte[] out = new byte[32];
        d.doFinal(out, 0);
        return out;
    }
}
