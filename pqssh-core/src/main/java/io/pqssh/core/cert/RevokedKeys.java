package io.pqssh.core.cert;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Optional;

import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * sshd's {@code RevokedKeys} file ({@code sshkey_check_revoked}): an OpenSSH KRL ({@link Krl}), or else a list of
 * public key lines, where a listed key revokes itself, every certificate of it and every certificate it signed as
 * CA. Read at each check, as sshd does, so an edited file applies at once. Any error reading or parsing the file is
 * an exception: the caller refuses the key (sshd: "Error checking authentication key ... in revoked keys file").
 */
public final class RevokedKeys {
    private RevokedKeys() {
    }

    /** Why the key with this wire blob is revoked by {@code file}, empty if it is not. */
    public static Optional<String> check(Path file, byte[] blob) throws IOException, MalformedMessageException {
        byte[] data = Files.readAllBytes(file);
        if (Krl.isKrl(data)) {
            return Krl.parse(data).revocation(blob);
        }
        byte[] plain = blob;
        byte[] ca = null;
        if (CertificateKeyTypes.isCertificate(SshCertificate.peekName(blob))) {
            SshCertificate c = SshCertificate.parse(blob);
            plain = c.certifiedKey();
            ca = c.signatureKey();
        }
        int n = 0;
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            n++;
            String s = line.strip();
            if (s.isEmpty() || s.startsWith("#")) {
                continue;
            }
            byte[] listed;
            try {
                listed = PublicKeyLine.parse(s).blob();
            } catch (KeyFileException e) {
                throw new MalformedMessageException(file + " line " + n + ": not a public key (" + e.getMessage() + ")");
            }
            if (CertificateKeyTypes.isCertificate(SshCertificate.peekName(listed))) {
                listed = SshCertificate.parse(listed).certifiedKey();
            }
            if (MessageDigest.isEqual(listed, plain)) {
                return Optional.of("key listed at line " + n);
            }
            if (ca != null && MessageDigest.isEqual(listed, ca)) {
                return Optional.of("CA key listed at line " + n);
            }
        }
        return Optional.empty();
    }
}
