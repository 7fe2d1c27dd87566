package io.pqssh.inventory.scan;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.inventory.audit.KeyInfo;

/**
 * What a host certificate a server sent says (PROTOCOL.certkeys): the certified key, the CA that signed it, key id,
 * serial, principals and validity. Nothing is checked: a scanner reports what the fleet's clients would be shown.
 *
 * @param certType     the certificate's key type name ({@code ssh-ed25519-cert-v01@openssh.com})
 * @param type         {@code host} or {@code user} (a server that sends a user certificate is misconfigured)
 * @param keyType      the certified key's type ({@code ssh-ed25519})
 * @param caKeyType    the CA key's type
 * @param caFamily     the CA key's family ({@link KeyInfo.Family} name)
 * @param caPostQuantum whether the CA key resists a quantum adversary
 * @param caFingerprint the CA key's {@code SHA256:} fingerprint
 * @param validAfter   ISO-8601, null for "always" (0)
 * @param validBefore  ISO-8601, null for "forever" (2^64-1)
 * @param classicalCa  a post-quantum key vouched for by a quantum-vulnerable CA (the audit's {@code classical-ca})
 */
public record HostCertificate(String certType, String type, String keyType, String keyFamily, String caKeyType,
        String caFamily, boolean caPostQuantum, String caFingerprint, String keyId, long serial,
        List<String> principals, String validAfter, String validBefore, boolean classicalCa) {

    public HostCertificate {
        principals = List.copyOf(principals);
    }

    /** The certificate in a host key blob; empty when the blob is a plain key or no certificate pqssh can parse. */
    public static Optional<HostCertificate> of(byte[] blob) {
        try {
            if (!KeyInfo.isCertificate(new io.pqssh.core.wire.SshReader(blob).getUtf8())) {
                return Optional.empty();
            }
            SshCertificate c = SshCertificate.parse(blob);
            KeyInfo key = KeyInfo.of(c.certifiedKey());
            KeyInfo ca = KeyInfo.of(c.signatureKey());
            return Optional.of(new HostCertificate(c.certType(), c.type().label(), c.keyType(), key.family().name(),
                    ca.type(), ca.family().name(), ca.postQuantum(), ca.fingerprint(), c.keyId(), c.serial(),
                    c.principals(), time(c.validAfter(), 0), time(c.validBefore(), SshCertificate.FOREVER),
                    key.postQuantum() && !ca.postQuantum()));
        } catch (MalformedMessageException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The serial as OpenSSH prints it (unsigned). */
    public String serialText() {
        return Long.toUnsignedString(serial);
    }

    /** One line for tables and CSV cells: {@code ED25519 cert by ECDSA CA SHA256:... id "x" serial 3}. */
    public String summary() {
        return keyFamily + " " + type + " certificate, CA " + caFamily + " " + caFingerprint + ", id \"" + keyId
                + "\" serial " + serialText() + ", principals " + (principals.isEmpty() ? "(none)"
                        : String.join(",", principals)) + ", valid " + (validAfter == null ? "always" : validAfter)
                + " to " + (validBefore == null ? "forever" : validBefore);
    }

    private static String time(long seconds, long unbounded) {
        if (seconds == unbounded) {
            return null;
        }
        // beyond Instant's range an unsigned uint64 is as good as forever
        return seconds < 0 || seconds > Instant.MAX.getEpochSecond() ? null : Instant.ofEpochSecond(seconds).toString();
    }
}
