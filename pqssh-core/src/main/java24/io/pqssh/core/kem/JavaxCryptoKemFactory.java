package io.pqssh.core.kem;

import java.util.Optional;

import io.pqssh.core.provider.JdkProviders;

/**
 * The {@link JdkKemFactory} of JDK 24 and later: the JDK's {@code javax.crypto.KEM "ML-KEM"} from a provider that
 * is not Bouncy Castle. Lives only in the multi-release jar's {@code META-INF/versions/24} and is found with
 * {@link java.util.ServiceLoader}, so Java 17 never loads it.
 */
public final class JavaxCryptoKemFactory implements JdkKemFactory {
    /** Called by {@link java.util.ServiceLoader}. */
    public JavaxCryptoKemFactory() {
    }

    @Override
    public Optional<KemEncapsulator> create() {
        return JdkProviders.create("KEM", "ML-KEM", "ML-KEM", JavaxCryptoKemEncapsulator::new);
    }
}
