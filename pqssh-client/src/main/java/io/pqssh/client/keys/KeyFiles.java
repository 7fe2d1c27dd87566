package io.pqssh.client.keys;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Locale;

import io.pqssh.core.kem.KemDecapsulationKey;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.PrivateKeyCodecs;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.UnsupportedKeyTypeException;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.keys.kem.ResearchIdentityFile;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.keys.openssh.PrivateSection;
import io.pqssh.core.wire.SshReader;

/**
 * The key files {@code pqssh keygen} reads: openssh-key-v1 private keys of every type pqssh knows plus RSA and
 * ECDSA (kept opaque), public key lines, and the KEMUAuth research implementation's text identity files.
 */
public final class KeyFiles {
    private KeyFiles() {
    }

    /** What a file holds, as far as it can be told without a passphrase. */
    public enum Kind { OPENSSH_PRIVATE, RESEARCH_IDENTITY, PUBLIC_LINE }

    public static Kind kind(String text) {
        String t = text.strip();
        if (t.startsWith(OpenSshKeyV1.BEGIN)) {
            return Kind.OPENSSH_PRIVATE;
        }
        if (isResearchIdentity(t)) {
            return Kind.RESEARCH_IDENTITY;
        }
        return Kind.PUBLIC_LINE;
    }

    /** The research client's identity file starts (after comments) with its {@code algorithm} line. */
    public static boolean isResearchIdentity(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst()
                .map(l -> l.toLowerCase(Locale.ROOT).startsWith("algorithm")).orElse(false);
    }

    /**
     * The public key of any readable key file, with the comment ssh-keygen would show: a private key's public
     * half from its unencrypted header (comment from the {@code .pub} next to it, as ssh-keygen -l does), a research
     * identity file's public key (no comment), or a public key line.
     */
    public static PublicKeyLine publicKey(Path file) throws IOException, KeyFileException {
        String text = Files.readString(file);
        switch (kind(text)) {
            case OPENSSH_PRIVATE: {
                byte[] blob = OpenSshKeyV1.publicKeyBlob(text.strip());
                Path pub = file.resolveSibling(file.getFileName() + ".pub");
                String comment = "";
                if (Files.isRegularFile(pub)) {
                    try {
                        PublicKeyLine p = PublicKeyLine.parse(Files.readString(pub).strip());
                        if (java.util.Arrays.equals(p.blob(), blob)) {
                            comment = p.comment();
                        }
                    } catch (KeyFileException ignored) {
                        // a broken .pub only costs the comment
                    }
                }
                return PublicKeyLine.of(blob, comment);
            }
            case RESEARCH_IDENTITY:
                return researchPublicKey(text).toPublicKeyLine("");
            default:
                String first = text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                        .findFirst().orElseThrow(() -> new KeyFileException(file + ": empty key file"));
                return PublicKeyLine.parse(first);
        }
    }

    /**
     * Every public key in a text file of public keys, as {@code ssh-keygen -l} reads it: plain key lines,
     * authorized_keys lines (leading options skipped) and known_hosts lines (the host field becomes the comment
     * unless the line has one of its own). Lines that hold no key are skipped, as are marker lines.
     */
    public static java.util.List<PublicKeyLine> publicKeyLines(String text) {
        java.util.List<PublicKeyLine> keys = new java.util.ArrayList<>();
        for (String raw : text.lines().toList()) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            PublicKeyLine k = tryParse(line);
            String comment;
            if (k != null) {
                comment = k.comment();
            } else {
                int i = 0;
                boolean quoted = false;
                while (i < line.length() && (quoted || (line.charAt(i) != ' ' && line.charAt(i) != '\t'))) {
                    if (line.charAt(i) == '\\' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                        i++;
                    } else if (line.charAt(i) == '"') {
                        quoted = !quoted;
                    }
                    i++;
                }
                if (i >= line.length()) {
                    continue;
                }
                k = tryParse(line.substring(i));
                if (k == null) {
                    continue;
                }
                comment = k.comment() == null || k.comment().isEmpty() ? line.substring(0, i) : k.comment();
            }
            keys.add(new PublicKeyLine(k.keyType(), k.blob(), comment));
        }
        return keys;
    }

    private static PublicKeyLine tryParse(String line) {
        try {
            return PublicKeyLine.parse(line);
        } catch (KeyFileException | RuntimeException e) {
            return null;
        }
    }

    /** The public key inside a research identity file; the secret key is checked and wiped. */
    public static KemPublicKey researchPublicKey(String text) throws KeyFileException {
        KemDecapsulationKey dk = ResearchIdentityFile.parse(text);
        try {
            return new KemPublicKey(dk.algorithm(), dk.publicKey());
        } finally {
            dk.destroy();
        }
    }

    /**
     * Decrypts an openssh-key-v1 file of any supported type: pqssh's own key types through their codecs, RSA and
     * ECDSA as opaque field bytes. {@code passphrase} may be null for an unencrypted file.
     */
    public static OpenSshPrivateKey readPrivate(String armored, char[] passphrase) throws KeyFileException {
        byte[] blob = OpenSshKeyV1.publicKeyBlob(armored);
        String type = PublicKeyLine.blobKeyType(blob);
        if (PrivateKeyCodecs.forType(type).isPresent() || !ClassicalKeys.isClassical(type)) {
            return OpenSshKeyV1.read(armored, passphrase);
        }
        try (PrivateSection s = OpenSshKeyV1.decrypt(armored, passphrase)) {
            if (!s.keyType().equals(type)) {
                throw new KeyFileException("private section holds a " + s.keyType() + " key, header says " + type);
            }
            SshReader r = s.fieldsReader();
            byte[] fields = ClassicalKeys.readFields(type, r);
            String comment = s.finish(r);
            try {
                return new OpenSshPrivateKey(new OpaqueSshKey(type, blob, fields), comment);
            } finally {
                java.util.Arrays.fill(fields, (byte) 0);
            }
        }
    }

    /** Whether pqssh can read the private key of this type at all (for a clear error before any prompt). */
    public static void requireReadable(String type) throws UnsupportedKeyTypeException {
        if (PrivateKeyCodecs.forType(type).isEmpty() && !ClassicalKeys.isClassical(type)) {
            throw new UnsupportedKeyTypeException(type, "unsupported key type '" + type + "'");
        }
    }

    /**
     * Writes a private key file (0600 from creation) and {@code FILE.pub} (0644). The directory must exist: like
     * ssh-keygen, pqssh does not create it.
     */
    public static void writeNew(Path file, SshPrivateKey key, String comment, char[] passphrase) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("Saving key \"" + file + "\" failed: directory " + dir
                    + " does not exist (pqssh keygen does not create it)");
        }
        OpenSshKeyV1.writeFiles(file, key, comment, passphrase, new SecureRandom());
    }

    /** Replaces a private key file's contents (same mode rules), via a temporary file and an atomic rename. */
    public static void replacePrivate(Path file, String armored) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".pqssh-tmp");
        Files.deleteIfExists(tmp);
        KeyFilePermissions.writePrivateKeyFile(tmp, armored);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
