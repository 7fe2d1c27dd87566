package io.pqssh.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.keyprovider.HostKeyCertificateProvider;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * sshd's {@code HostCertificate}: each file holds a host certificate that is offered (as its
 * {@code ssh-ed25519-cert-v01@openssh.com} etc. algorithm) alongside the plain host key it certifies. As in sshd, a
 * file that cannot be used is logged and skipped, and the server starts with its plain host keys: sshd's
 * {@code Could not load host certificate}, {@code Certificate file is not a certificate}, {@code No matching private
 * key for certificate}; pqssh adds {@code not a host certificate} (sshd would offer a user certificate, which every
 * client refuses) and refuses certificates of key types it cannot sign with (DSA, security keys). Certificates of
 * post-quantum keys ({@code ssh-mldsa-65-cert-v01@openssh.com}, the composite's two names, ...) are offered as
 * classical ones are ({@link io.pqssh.mina.keys.PqCertificate}).
 */
public final class HostCertificates {
    private HostCertificates() {
    }

    /** The usable certificates of {@code files} for {@code hostKeys}; problems go to {@code errors}, one line each. */
    public static List<OpenSshCertificate> load(List<Path> files, Iterable<KeyPair> hostKeys, Consumer<String> errors) {
        List<OpenSshCertificate> out = new ArrayList<>();
        for (Path f : files) {
            SshCertificate cert;
            try {
                String line = Files.readAllLines(f).stream().map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst().orElse("");
                cert = SshCertificate.parseLine(line);
            } catch (IOException e) {
                errors.accept("Could not load host certificate \"" + f + "\": " + e.getMessage());
                continue;
            } catch (MalformedMessageException e) {
                errors.accept("Certificate file is not a certificate: " + f + " (" + e.getMessage() + ")");
                continue;
            }
            if (cert.type() != CertificateType.HOST) {
                errors.accept("Certificate file is not a host certificate: " + f);
                continue;
            }
            PublicKey decoded;
            try {
                io.pqssh.mina.keys.MinaPqKeys.ensureInstalled(); // MINA decodes post-quantum certificates through it
                decoded = new ByteArrayBuffer(cert.blob()).getRawPublicKey();
            } catch (RuntimeException | org.apache.sshd.common.SshException e) {
                decoded = null;
            }
            if (!(decoded instanceof OpenSshCertificate mina)) {
                errors.accept("Host certificate " + f + " (" + cert.certType() + ") not offered: pqssh server"
                        + " cannot sign with " + cert.keyType() + " keys");
                continue;
            }
            boolean matched = false;
            for (KeyPair kp : hostKeys) {
                if (KeyUtils.compareKeys(kp.getPublic(), mina.getCertPubKey())) {
                    matched = true;
                    break;
                }
            }
            if (!matched) {
                errors.accept("No matching private key for certificate: " + f);
                continue;
            }
            out.add(mina);
        }
        return List.copyOf(out);
    }

    /** MINA's provider for the loaded certificates. */
    public static HostKeyCertificateProvider provider(List<OpenSshCertificate> certificates) {
        List<OpenSshCertificate> copy = List.copyOf(certificates);
        return session -> copy;
    }
}
