package io.pqssh.core.auth;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

import io.pqssh.core.cert.CertificateKeyTypes;
import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The KEM part of a request: {@code string alg, string kem_public_key}. {@code alg} is the exact wire string
 * (it enters the transcript unnormalized); {@link #algorithm()} is its normalized parameter set.
 *
 * <p>With a certificate type as {@code alg} ({@code mlkem768-cert-v01@pqssh.io}, docs/publickey-kem.md 9.5) the
 * key field is the certificate blob: {@link #publicKey()} is that blob (what is echoed and bound into CTX),
 * {@link #encapsulationKey()} the certified FIPS 203 key the server encapsulates to. Only the structure is checked
 * here; whether the certificate is trusted is the server's authorizer's decision.
 */
public final class KemCredential {
    private final String alg;
    private final KemAlgorithm algorithm;
    private final byte[] publicKey;
    private final byte[] encapsulationKey;
    private final SshCertificate certificate;

    /** @throws IllegalArgumentException for an unknown algorithm, a wrong key length or a malformed certificate */
    public KemCredential(String alg, byte[] publicKey) {
        this(checked(alg, publicKey));
    }

    private KemCredential(KemCredential c) {
        this.alg = c.alg;
        this.algorithm = c.algorithm;
        this.publicKey = c.publicKey;
        this.encapsulationKey = c.encapsulationKey;
        this.certificate = c.certificate;
    }

    private KemCredential(String alg, KemAlgorithm algorithm, byte[] publicKey, byte[] encapsulationKey,
            SshCertificate certificate) {
        this.alg = alg;
        this.algorithm = algorithm;
        this.publicKey = publicKey.clone();
        this.encapsulationKey = encapsulationKey.clone();
        this.certificate = certificate;
    }

    private static KemCredential checked(String alg, byte[] publicKey) {
        try {
            return of(Objects.requireNonNull(alg, "alg"), publicKey);
        } catch (UnusableKemCredentialException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Reads the two fields; an unknown name or a wrong key length is an {@link UnusableKemCredentialException},
     * an encoding error a plain {@link MalformedMessageException}.
     */
    public static KemCredential read(SshReader in) throws MalformedMessageException {
        String alg = in.getUtf8();
        byte[] pk = in.getString();
        return of(alg, pk);
    }

    /**
     * Checks well-formed fields: the name must normalize to a parameter set and the key have its length, or the
     * name be a KEM certificate type (exact spelling) and the key a certificate of that type whose certified key
     * has the parameter set's length.
     */
    public static KemCredential of(String alg, byte[] pk) throws UnusableKemCredentialException {
        if (CertificateKeyTypes.isCertificate(alg)) {
            return certificate(alg, pk);
        }
        KemAlgorithm a = KemAlgorithm.fromName(alg).orElseThrow(
                () -> new UnusableKemCredentialException("unknown KEM algorithm '" + printable(alg) + "'"));
        if (pk.length != a.publicKeyBytes()) {
            throw new UnusableKemCredentialException(a.sshName() + " public key must be " + a.publicKeyBytes()
                    + " bytes, got " + pk.length);
        }
        return new KemCredential(alg, a, pk, pk, null);
    }

    /** A certificate credential for a key already checked by the caller's certificate (the client's own). */
    public static KemCredential ofCertificate(SshCertificate cert) throws UnusableKemCredentialException {
        return certificate(cert.certType(), cert.blob());
    }

    private static KemCredential certificate(String alg, byte[] blob) throws UnusableKemCredentialException {
        KemAlgorithm a = CertificateKeyTypes.plainName(alg).flatMap(KemAlgorithm::fromName).orElseThrow(
                () -> new UnusableKemCredentialException("not a KEM certificate type '" + printable(alg) + "'"));
        SshCertificate cert;
        KemPublicKey ek;
        try {
            cert = SshCertificate.parse(blob);
            ek = KemPublicKey.fromBlob(cert.certifiedKey());
        } catch (MalformedMessageException | KeyFileException e) {
            throw new UnusableKemCredentialException(alg + ": malformed certificate: " + e.getMessage());
        }
        if (!cert.certType().equals(alg) || ek.algorithm() != a) {
            throw new UnusableKemCredentialException(alg + ": the key field holds a " + cert.certType()
                    + " certificate");
        }
        return new KemCredential(alg, a, blob, ek.raw(), cert);
    }

    public void write(SshWriter out) {
        out.putString(alg).putString(publicKey);
    }

    public String alg() {
        return alg;
    }

    public KemAlgorithm algorithm() {
        return algorithm;
    }

    /** The key field as sent: the raw encapsulation key, or the certificate blob. */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /** The FIPS 203 encapsulation key to encapsulate to (the certified key of a certificate). */
    public byte[] encapsulationKey() {
        return encapsulationKey.clone();
    }

    /** The certificate, when the credential is one (its trust is not checked here). */
    public Optional<SshCertificate> certificate() {
        return Optional.ofNullable(certificate);
    }

    public boolean samePublicKey(byte[] other) {
        return Arrays.equals(publicKey, other);
    }

    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (b.length() >= 64) {
                b.append("...");
                break;
            }
            b.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KemCredential k && k.alg.equals(alg) && Arrays.equals(k.publicKey, publicKey);
    }

    @Override
    public int hashCode() {
        return alg.hashCode() * 31 + Arrays.hashCode(publicKey);
    }
}
