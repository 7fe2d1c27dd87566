package io.pqssh.core.kem;

import java.util.Optional;

/**
 * Service-provider interface between the Java 17 code and the JDK's own ML-KEM ({@code javax.crypto.KEM}, JDK 24
 * and later): the implementation is compiled for Java 24 into the multi-release jar's {@code META-INF/versions/24}
 * and found with {@link java.util.ServiceLoader}. Not for applications: use {@link KemProviders}.
 */
public interface JdkKemFactory {
    /** The JDK's (non-Bouncy-Castle) ML-KEM encapsulation, or empty when this JDK has none. */
    Optional<KemEncapsulator> create();
}
