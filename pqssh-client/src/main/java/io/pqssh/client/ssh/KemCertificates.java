package io.pqssh.client.ssh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemPrivateKey;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * The certificate offered with the client's ML-KEM identity through {@code publickey-kem}
 * ({@code mlkemN-cert-v01@pqssh.io}, docs/publickey-kem.md 9.5), found as ssh finds a signature key's: the
 * {@code CertificateFile} entries when any is configured, else {@code FILE-cert.pub} beside each identity file.
 * The first user certificate of the key is used; others are skipped with ssh's debug wording.
 */
public final class KemCertificates {
    private KemCertificates() {
    }

    /** Whether {@code type} names an ML-KEM certificate (which MINA's {@code publickey} cannot send). */
    public static boolean isKemCertificateType(String type) {
        return CertificateKeyTypes.plainName(type).flatMap(KemAlgorithm::fromName).isPresent();
    }

    /** The certificate of {@code key} among the candidates, if any. */
    public static Optional<SshCertificate> find(KemPrivateKey key, List<Path> certificateFiles,
            List<Path> identityFiles, ClientLog log) {
        List<Path> candidates = new ArrayList<>(certificateFiles);
        if (certificateFiles.isEmpty()) {
            identityFiles.forEach(f -> candidates.add(UserCertificates.besides(f)));
        }
        byte[] certified = KemPublicKey.blob(key.algorithm(), key.publicKey());
        for (Path f : candidates) {
            Optional<SshCertificate> c = read(f, log);
            if (c.isEmpty()) {
                continue;
            }
            if (!java.util.Arrays.equals(c.get().certifiedKey(), certified)) {
                log.debug1("Not using certificate " + f + ": it certifies another ML-KEM key");
                continue;
            }
            log.debug1("KEM certificate " + f + " type " + io.pqssh.client.keys.KeyDescriptions.label(
                    c.get().keyType()) + "-CERT " + io.pqssh.core.keys.KeyFingerprints.sha256(certified));
            return c;
        }
        return Optional.empty();
    }

    private static Optional<SshCertificate> read(Path f, ClientLog log) {
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        String line;
        try {
            line = Files.readAllLines(f).stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .findFirst().orElse("");
        } catch (IOException e) {
            log.debug1("no certificate read from " + f + ": " + e.getMessage());
            return Optional.empty();
        }
        if (!isKemCertificateType(line.split("[ \\t]+", 2)[0])) {
            return Optional.empty(); // a signature key's certificate: UserCertificates' business
        }
        try {
            SshCertificate cert = SshCertificate.parseLine(line);
            if (cert.type() != CertificateType.USER) {
                log.debug1("ignoring certificate " + f + ": not a user certificate");
                return Optional.empty();
            }
            return Optional.of(cert);
        } catch (MalformedMessageException e) {
            log.debug1("key " + f + " is not a certificate: " + e.getMessage());
            return Optional.empty();
        }
    }
}
