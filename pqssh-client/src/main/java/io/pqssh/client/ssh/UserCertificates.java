package io.pqssh.client.ssh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * The client's user certificates, as ssh loads them: {@code CertificateFile} entries, or (when none is configured) the
 * {@code FILE-cert.pub} beside each identity file. A certificate is offered with the private key of the identity
 * whose public key it certifies; host certificates, certificates of keys no identity holds, and certificates whose
 * certified key type MINA cannot sign with are skipped with ssh's debug wording.
 */
public final class UserCertificates {
    private UserCertificates() {
    }

    /** A certificate read from a file, with its pqssh decoding (for messages) and MINA's (for the wire). */
    public record Certificate(Path file, SshCertificate cert, OpenSshCertificate mina) {
    }

    /** The certificate in {@code file}; empty when the file holds no usable user certificate (the reason is logged). */
    public static Optional<Certificate> read(Path file, ClientLog log) {
        String line;
        try {
            line = Files.readAllLines(file).stream().map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst().orElse("");
        } catch (IOException e) {
            log.debug1("no certificate read from " + file + ": " + e.getMessage());
            return Optional.empty();
        }
        if (KemCertificates.isKemCertificateType(line.split("[ \\t]+", 2)[0])) {
            log.debug1("certificate " + file + " is offered through publickey-kem, not publickey");
            return Optional.empty();
        }
        SshCertificate cert;
        try {
            cert = SshCertificate.parseLine(line);
        } catch (MalformedMessageException e) {
            log.debug1("key " + file + " is not a certificate: " + e.getMessage());
            return Optional.empty();
        }
        if (cert.type() != CertificateType.USER) {
            log.debug1("ignoring certificate " + file + ": not a user certificate");
            return Optional.empty();
        }
        PublicKey decoded;
        try {
            io.pqssh.mina.keys.MinaPqKeys.ensureInstalled(); // MINA decodes post-quantum certificates through it
            decoded = new ByteArrayBuffer(cert.blob()).getRawPublicKey();
        } catch (RuntimeException | org.apache.sshd.common.SshException e) {
            decoded = null;
        }
        if (!(decoded instanceof OpenSshCertificate mina)) {
            // MINA (with pqssh's post-quantum types) decodes what it can sign with: not DSA or security keys
            log.error("Warning: certificate " + file + " (" + cert.certType()
                    + ") not used: pqssh cannot sign with " + cert.keyType() + " keys");
            return Optional.empty();
        }
        return Optional.of(new Certificate(file, cert, mina));
    }

    /** The certificate's key pair: {@code cert} with the private key of the identity it certifies, if one is held. */
    public static Optional<KeyPair> pair(Certificate cert, List<KeyPair> identities) {
        for (KeyPair kp : identities) {
            if (!(kp.getPublic() instanceof OpenSshCertificate) && kp.getPrivate() != null
                    && KeyUtils.compareKeys(kp.getPublic(), cert.mina().getCertPubKey())) {
                return Optional.of(new KeyPair(cert.mina(), kp.getPrivate()));
            }
        }
        return Optional.empty();
    }

    /**
     * The keys in ssh's order (sshconnect2.c {@code pubkey_prepare}): {@code CertificateFile} certificates first;
     * then the identity files' keys, each explicitly configured file's key followed by its {@code -cert.pub}; of the
     * default files (none configured) the certificates go before the plain keys, as OpenSSH 10 orders them.
     * {@code perFile} holds, per identity file, its keys and its certificate (null when none).
     */
    public static List<KeyPair> order(List<KeyPair> certificateFiles, List<FileKeys> perFile, boolean explicit) {
        List<KeyPair> out = new ArrayList<>(certificateFiles);
        List<KeyPair> plain = new ArrayList<>();
        for (FileKeys f : perFile) {
            if (explicit) {
                out.addAll(f.keys());
                if (f.certificate() != null) {
                    out.add(f.certificate());
                }
            } else {
                plain.addAll(f.keys());
                if (f.certificate() != null) {
                    out.add(f.certificate());
                }
            }
        }
        out.addAll(plain);
        return out;
    }

    /** One identity file's signature keys and the certificate found beside it. */
    public record FileKeys(Path file, List<KeyPair> keys, KeyPair certificate) {
    }

    /** {@code FILE-cert.pub}, the certificate ssh looks for beside an identity file. */
    public static Path besides(Path identityFile) {
        return identityFile.resolveSibling(identityFile.getFileName() + "-cert.pub");
    }

    /** ssh -v's key description, e.g. {@code ED25519-CERT SHA256:...}. */
    public static String describe(Certificate c) {
        return io.pqssh.client.keys.KeyDescriptions.label(c.cert().keyType()) + "-CERT "
                + io.pqssh.core.keys.KeyFingerprints.sha256(c.cert().certifiedKey());
    }
}
