package io.pqssh.core.auth;

import java.util.Arrays;
import java.util.Objects;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/**
 * The KEM part of a request: {@code string alg, string kem_public_key}. {@code alg} is the exact wire string
 * (it enters the transcript unnormalized); {@link #algorithm()} is its normalized parameter set.
 */
public final class KemCredential {
    private final String alg;
    private final KemAlgorithm algorithm;
    private final byte[] publicKey;

    public KemCredential(String alg, byte[] publicKey) {
        this.alg = Objects.requireNonNull(alg, "alg");
        this.algorithm = KemAlgorithm.require(alg);
        if (publicKey.length != algorithm.publicKeyBytes()) {
            throw new IllegalArgumentException(alg + " public key must be " + algorithm.publicKeyBytes()
                    + " bytes, got " + publicKey.length);
        }
        this.publicKey = publicKey.clone();
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

    /** Checks well-formed fields: the name must normalize to a parameter set and the key have its length. */
    public static KemCredential of(String alg, byte[] pk) throws UnusableKemCredentialException {
        KemAlgorithm a = KemAlgorithm.fromName(alg).orElseThrow(
                () -> new UnusableKemCredentialException("unknown KEM algorithm '" + printable(alg) + "'"));
        if (pk.length != a.publicKeyBytes()) {
            throw new UnusableKemCredentialException(a.sshName() + " public key must be " + a.publicKeyBytes()
                    + " bytes, got " + pk.length);
        }
        return new KemCredential(alg, pk);
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

    public byte[] publicKey() {
        return publicKey.clone();
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
