package io.pqssh.client.keys;

import java.util.Locale;
import java.util.Optional;

import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.wire.MalformedMessageException;

/**
 * What {@code ssh-keygen -l} prints before and after a fingerprint: the key size in bits ({@code sshkey_size}) and
 * the short type name ({@code sshkey_type}). OpenSSH's own types print exactly as OpenSSH 10.5 does (RSA: modulus
 * bits, ECDSA: curve bits, Ed25519 and the ML-DSA-44/Ed25519 composite: 256); pqssh's other types: see
 * docs/keygen.md. A certificate is described by the key it certifies, as OpenSSH does: that key's size and
 * fingerprint, its label with {@code -CERT} appended.
 */
public final class KeyDescriptions {
    private KeyDescriptions() {
    }

    /**
     * The short type name, e.g. {@code RSA}, {@code ECDSA}, {@code ED25519}, {@code MLDSA44-ED25519}, and for a
     * certificate type that of its key with {@code -CERT} ({@code ED25519-CERT}, {@code MLKEM768-CERT}).
     */
    public static String label(String keyType) {
        Optional<String> certified = CertificateKeyTypes.plainName(keyType);
        if (certified.isPresent()) {
            return label(certified.get()) + "-CERT";
        }
        if (keyType.equals("ssh-rsa")) {
            return "RSA";
        }
        if (keyType.equals("ssh-dss")) {
            return "DSA";
        }
        if (keyType.startsWith("ecdsa-sha2-")) {
            return "ECDSA";
        }
        // FIDO keys an OpenSSH agent may hold (pqssh neither makes nor uses them)
        if (keyType.equals("sk-ssh-ed25519@openssh.com")) {
            return "ED25519-SK";
        }
        if (keyType.equals("sk-ecdsa-sha2-nistp256@openssh.com")) {
            return "ECDSA-SK";
        }
        if (keyType.equals(SignatureKeyType.MLDSA44_ED25519.sshName())) {
            return "MLDSA44-ED25519";
        }
        return keyType.replace("ssh-", "").replace("@openssh.com", "").toUpperCase(Locale.ROOT);
    }

    /** The size in bits of the key in this public key blob. */
    public static int bits(byte[] blob) throws KeyFileException {
        Optional<SshCertificate> cert = certificate(blob);
        if (cert.isPresent()) {
            return bits(cert.get().certifiedKey());
        }
        Optional<Integer> classical = ClassicalKeys.bits(blob);
        if (classical.isPresent()) {
            return classical.get();
        }
        String type = PublicKeyLine.blobKeyType(blob);
        Optional<KemAlgorithm> kem = KemAlgorithm.fromName(type);
        if (kem.isPresent()) {
            // the parameter set, as pqssh has always printed it (ssh-keygen has no ML-KEM keys)
            return Integer.parseInt(kem.get().sshName().substring("mlkem".length()));
        }
        Optional<SignatureKeyType> sig = SignatureKeyType.forName(type);
        if (sig.isEmpty()) {
            throw new KeyFileException("unknown key type '" + type + "'");
        }
        switch (sig.get()) {
            case MLDSA_44:
            case SLHDSA_SHA2_128F:
            case FALCON_512:
                return 128;
            case MLDSA_65:
            case SLHDSA_SHA2_192F:
                return 192;
            case MLDSA_87:
            case SLHDSA_SHA2_256F:
            case FALCON_1024:
                return 256;
            default:
                return 256; // Ed25519 and composites with Ed25519: OpenSSH's keybits for both is 256
        }
    }

    /**
     * The one line {@code ssh-keygen -l} and {@code ssh-add -l} print: {@code bits fingerprint comment (TYPE)}; for a
     * certificate the fingerprint is the certified key's, as OpenSSH's (it hashes a certificate's plain key).
     */
    public static String fingerprintLine(byte[] blob, String comment, FingerprintHash hash) throws KeyFileException {
        String type = PublicKeyLine.blobKeyType(blob);
        Optional<SshCertificate> cert = certificate(blob);
        byte[] key = cert.isPresent() ? cert.get().certifiedKey() : blob;
        return bits(blob) + " " + hash.format(key) + " "
                + (comment == null || comment.isEmpty() ? "no comment" : comment) + " (" + label(type) + ")";
    }

    /** The certificate in this blob, empty for a plain key; a certificate type whose blob does not parse fails. */
    private static Optional<SshCertificate> certificate(byte[] blob) throws KeyFileException {
        String type = PublicKeyLine.blobKeyType(blob);
        if (!CertificateKeyTypes.isCertificate(type)) {
            return Optional.empty();
        }
        try {
            return Optional.of(SshCertificate.parse(blob));
        } catch (MalformedMessageException e) {
            throw new KeyFileException("malformed " + type + " certificate: " + e.getMessage());
        }
    }
}
