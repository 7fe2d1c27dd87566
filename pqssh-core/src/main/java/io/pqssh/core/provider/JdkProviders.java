package io.pqssh.core.provider;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Security;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Optional;

/**
 * Finding the JDK's own (non-Bouncy-Castle) implementation of a post-quantum algorithm, and turning the raw public
 * key from the SSH wire into a JDK {@link PublicKey}: for ML-KEM and ML-DSA the X.509 SubjectPublicKeyInfo is a fixed
 * DER header per parameter set (AlgorithmIdentifier without parameters) followed by the raw key.
 */
public final class JdkProviders {
    private JdkProviders() {
    }

    /** Builds the JDK implementation from the provider of the operation and that of the key factory. */
    @FunctionalInterface
    public interface Factory<T> {
        T create(Provider operationProvider, Provider keyFactoryProvider) throws GeneralSecurityException;
    }

    /**
     * The JDK's implementation, or empty when this JDK has no non-BC provider of {@code service}/{@code algorithm}
     * and of {@code KeyFactory}/{@code keyAlgorithm}, or {@code factory} fails on them.
     */
    public static <T> Optional<T> create(String service, String algorithm, String keyAlgorithm, Factory<T> factory) {
        Optional<Provider> op = nonBc(service, algorithm);
        Optional<Provider> kf = nonBc("KeyFactory", keyAlgorithm);
        if (op.isEmpty() || kf.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(factory.create(op.get(), kf.get()));
        } catch (GeneralSecurityException e) {
            return Optional.empty();
        }
    }

    /** The first installed provider of {@code service}/{@code algorithm} that is not Bouncy Castle. */
    public static Optional<Provider> nonBc(String service, String algorithm) {
        for (Provider p : Security.getProviders()) {
            if (!p.getName().startsWith("BC") && p.getService(service, algorithm) != null) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** {@code spkiHeader} followed by {@code rawKey}: the DER SubjectPublicKeyInfo of the raw key. */
    public static byte[] subjectPublicKeyInfo(byte[] spkiHeader, byte[] rawKey) {
        byte[] spki = Arrays.copyOf(spkiHeader, spkiHeader.length + rawKey.length);
        System.arraycopy(rawKey, 0, spki, spkiHeader.length, rawKey.length);
        return spki;
    }

    /**
     * Decodes raw public keys with one {@link KeyFactory} per thread (KeyFactory objects are not thread-safe and
     * getting one per login would cost a provider lookup each time).
     */
    public static final class RawKeyDecoder {
        private final ThreadLocal<KeyFactory> keyFactory;

        /** Fails now, not on the first login, when {@code provider} has no KeyFactory for {@code keyAlgorithm}. */
        public RawKeyDecoder(String keyAlgorithm, Provider provider) throws GeneralSecurityException {
            KeyFactory.getInstance(keyAlgorithm, provider);
            this.keyFactory = ThreadLocal.withInitial(() -> {
                try {
                    return KeyFactory.getInstance(keyAlgorithm, provider);
                } catch (GeneralSecurityException e) {
                    throw new IllegalStateException("JDK " + keyAlgorithm + " KeyFactory vanished", e);
                }
            });
        }

        /** The JDK key for {@code rawKey}, whose SubjectPublicKeyInfo starts with {@code spkiHeader}. */
        public PublicKey decode(byte[] spkiHeader, byte[] rawKey) throws GeneralSecurityException {
            return keyFactory.get().generatePublic(new X509EncodedKeySpec(subjectPublicKeyInfo(spkiHeader, rawKey)));
        }
    }
}
