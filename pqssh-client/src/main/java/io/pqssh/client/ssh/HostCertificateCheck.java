package io.pqssh.client.ssh;

import java.security.PublicKey;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.OpenSshCertificate;

import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.cert.CertificateType;
import io.pqssh.core.cert.CertificateVerifier;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.authorized.OpenSshPatterns;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.mina.internal.kex.InitialKexSignature;

/**
 * The host certificate a server sent, and OpenSSH 10's checks of it ({@code sshkey_cert_check_host}), with ssh's
 * reasons: the CA's signature, host type, validity window, a principal list that names the host (patterns allowed),
 * no critical options. The certificate is taken from the key exchange reply as sent, since MINA hands the verifier
 * only the plain key when its own (different) checks fail; the caller decides the CA's trust from known_hosts.
 */
final class HostCertificateCheck {
    private HostCertificateCheck() {
    }

    /**
     * The certificate behind the host key {@code presented} (the certificate itself or, when MINA dropped it, its
     * plain key): the exchange's K_S when that is a certificate of this very key.
     */
    static Optional<SshCertificate> of(ClientSession session, PublicKey presented, byte[] plainBlob) {
        Optional<byte[]> ks = InitialKexSignature.firstHostKey(session);
        if (ks.isEmpty()) {
            return Optional.empty();
        }
        try {
            if (!CertificateKeyTypes.isCertificate(new SshReader(ks.get()).getUtf8())) {
                return Optional.empty();
            }
            SshCertificate cert = SshCertificate.parse(ks.get());
            boolean same = presented instanceof OpenSshCertificate ? Arrays.equals(HostKeyCheck.blob(presented),
                    ks.get()) : Arrays.equals(cert.certifiedKey(), plainBlob);
            return same ? Optional.of(cert) : Optional.empty();
        } catch (MalformedMessageException e) {
            return Optional.empty(); // MINA accepted a blob pqssh cannot parse: checked as the plain key
        }
    }

    /** Empty when the certificate is good for {@code host} now; else ssh's reason ({@code caAlgorithms} null: any). */
    static Optional<String> problem(SshCertificate cert, String host, Instant now, java.util.List<String> caAlgorithms) {
        try {
            if (!CertificateVerifier.signatureValid(cert)) {
                return Optional.of("Certificate signature is invalid");
            }
        } catch (MalformedMessageException e) {
            return Optional.of("Certificate signature is malformed: " + e.getMessage());
        }
        if (cert.type() != CertificateType.HOST) {
            return Optional.of("Certificate invalid: not a host certificate");
        }
        long t = now.getEpochSecond();
        if (Long.compareUnsigned(t, cert.validAfter()) < 0) {
            return Optional.of("Certificate invalid: not yet valid");
        }
        if (Long.compareUnsigned(t, cert.validBefore()) >= 0) {
            return Optional.of("Certificate invalid: expired");
        }
        // OpenSSH 10 refuses host certificates without principals (9.x took them as valid for every host)
        if (cert.principals().isEmpty()) {
            return Optional.of("Certificate lacks principal list");
        }
        String name = host.toLowerCase(Locale.ROOT);
        boolean listed = cert.principals().stream()
                .anyMatch(p -> OpenSshPatterns.matchPattern(name, p.toLowerCase(Locale.ROOT)));
        if (!listed) {
            return Optional.of("Certificate invalid: name is not a listed principal");
        }
        if (!cert.criticalOptions().isEmpty()) {
            return Optional.of("Certificate contains unsupported critical options");
        }
        if (caAlgorithms != null && !caAlgorithms.contains(cert.signatureAlgorithm())) {
            return Optional.of("Certificate signed with disallowed algorithm");
        }
        return Optional.empty();
    }

    /** ssh -v's {@code Server host certificate: TYPE SHA256:..., serial N ID "id" CA TYPE SHA256:... valid ...}. */
    static String describe(SshCertificate cert) {
        String ca;
        try {
            ca = new SshReader(cert.signatureKey()).getUtf8();
        } catch (MalformedMessageException e) {
            ca = "?";
        }
        return cert.certType() + " " + KeyFingerprints.sha256(cert.certifiedKey()) + ", serial "
                + Long.toUnsignedString(cert.serial()) + " ID \"" + cert.keyId() + "\" CA " + ca + " "
                + KeyFingerprints.sha256(cert.signatureKey()) + (cert.validBefore() == SshCertificate.FOREVER
                        && cert.validAfter() == 0 ? " valid forever" : " valid from " + Instant.ofEpochSecond(
                                cert.validAfter()) + " to " + (cert.validBefore() == SshCertificate.FOREVER ? "forever"
                                        : Instant.ofEpochSecond(cert.validBefore()).toString()));
    }
}
