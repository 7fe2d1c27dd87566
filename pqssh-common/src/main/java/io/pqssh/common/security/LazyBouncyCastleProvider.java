package io.pqssh.common.security;

import java.security.Provider;
import java.security.Security;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Bouncy Castle's JCA provider, named {@code BC}, built only when something asks it for a service outside the few a
 * login uses. MINA SSHD registers Bouncy Castle as its default JCA provider (it needs it for Ed25519), and
 * constructing {@code BouncyCastleProvider} registers some thousand algorithm names: ~50-70 ms of a just-started
 * client's critical path (docs/startup.md). This provider answers the MD5, SHA-1 and SHA-2 digests (MINA checks each at start-up), ECDSA, ECDH, RSA, X448 and finite-field DH (MINA probes each at start-up), X25519 and Ed25519 with Bouncy
 * Castle's own implementation classes (the same classes the full provider would instantiate, checked by
 * {@code LazyBouncyCastleProviderTest}), and hands every other request to the full provider, made on first need.
 *
 * <p>{@link #install()} puts it into {@link Security} under the name {@code BC} unless a {@code BC} provider is there
 * already; MINA's Bouncy Castle registrar then uses it, since it takes an installed {@code BC} provider as is.
 */
public final class LazyBouncyCastleProvider extends Provider {
    private static final long serialVersionUID = 1L;
    private static final String EDEC = "org.bouncycastle.jcajce.provider.asymmetric.edec.";
    private static final String DIGEST = "org.bouncycastle.jcajce.provider.digest.";
    private static final String EC = "org.bouncycastle.jcajce.provider.asymmetric.ec.";
    private static final String RSA = "org.bouncycastle.jcajce.provider.asymmetric.rsa.";

    /** type, algorithm, Bouncy Castle class (as BouncyCastleProvider 1.87 maps them). */
    static final List<String[]> EAGER = List.of(
            new String[] {"MessageDigest", "MD5", DIGEST + "MD5$Digest"},
            new String[] {"MessageDigest", "SHA-1", DIGEST + "SHA1$Digest"},
            new String[] {"MessageDigest", "SHA-224", DIGEST + "SHA224$Digest"},
            new String[] {"MessageDigest", "SHA-256", DIGEST + "SHA256$Digest"},
            new String[] {"MessageDigest", "SHA-384", DIGEST + "SHA384$Digest"},
            new String[] {"MessageDigest", "SHA-512", DIGEST + "SHA512$Digest"},
            new String[] {"AlgorithmParameters", "EC", EC + "AlgorithmParametersSpi"},
            new String[] {"KeyPairGenerator", "EC", EC + "KeyPairGeneratorSpi$EC"},
            new String[] {"KeyFactory", "EC", EC + "KeyFactorySpi$EC"},
            new String[] {"KeyAgreement", "ECDH", EC + "KeyAgreementSpi$DH"},
            new String[] {"Signature", "SHA256withECDSA", EC + "SignatureSpi$ecDSA256"},
            new String[] {"Signature", "SHA384withECDSA", EC + "SignatureSpi$ecDSA384"},
            new String[] {"Signature", "SHA512withECDSA", EC + "SignatureSpi$ecDSA512"},
            new String[] {"KeyFactory", "RSA", RSA + "KeyFactorySpi"},
            new String[] {"KeyPairGenerator", "RSA", RSA + "KeyPairGeneratorSpi"},
            new String[] {"Signature", "SHA256withRSA", RSA + "DigestSignatureSpi$SHA256"},
            new String[] {"Signature", "SHA512withRSA", RSA + "DigestSignatureSpi$SHA512"},
            new String[] {"KeyPairGenerator", "X25519", EDEC + "KeyPairGeneratorSpi$X25519"},
            new String[] {"KeyAgreement", "X25519", EDEC + "KeyAgreementSpi$X25519"},
            new String[] {"KeyFactory", "X25519", EDEC + "KeyFactorySpi$X25519"},
            new String[] {"KeyPairGenerator", "X448", EDEC + "KeyPairGeneratorSpi$X448"},
            new String[] {"KeyAgreement", "X448", EDEC + "KeyAgreementSpi$X448"},
            new String[] {"KeyFactory", "X448", EDEC + "KeyFactorySpi$X448"},
            new String[] {"KeyPairGenerator", "DH", "org.bouncycastle.jcajce.provider.asymmetric.dh.KeyPairGeneratorSpi"},
            new String[] {"KeyAgreement", "DH", "org.bouncycastle.jcajce.provider.asymmetric.dh.KeyAgreementSpi"},
            new String[] {"KeyFactory", "DH", "org.bouncycastle.jcajce.provider.asymmetric.dh.KeyFactorySpi"},
            new String[] {"KeyFactory", "Ed25519", EDEC + "KeyFactorySpi$Ed25519"},
            new String[] {"KeyFactory", "EdDSA", EDEC + "KeyFactorySpi$EdDSA"},
            new String[] {"KeyPairGenerator", "Ed25519", EDEC + "KeyPairGeneratorSpi$Ed25519"},
            new String[] {"KeyPairGenerator", "EdDSA", EDEC + "KeyPairGeneratorSpi$EdDSA"},
            new String[] {"Signature", "Ed25519", EDEC + "SignatureSpi$Ed25519"},
            new String[] {"Signature", "EdDSA", EDEC + "SignatureSpi$EdDSA"});

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LazyBouncyCastleProvider.class);

    private transient volatile Provider full;

    public LazyBouncyCastleProvider() {
        // the version is the full provider's (asked of it, see below); the JCA needs a value here
        super("BC", "0", "Bouncy Castle (built on first use beyond SHA-2, X25519 and Ed25519)");
        for (String[] e : EAGER) {
            putService(new Service(this, e[0], e[1], e[2], null, Map.of()));
        }
    }

    /**
     * Installs a lazy {@code BC} provider unless one named {@code BC} is installed (or the system property
     * {@code pqssh.lazyBouncyCastle} is {@code false}); whether this call installed it. Call before MINA's
     * {@code SecurityUtils} registers its providers.
     */
    public static synchronized boolean install() {
        if (Security.getProvider("BC") != null || "false".equals(System.getProperty("pqssh.lazyBouncyCastle"))) {
            return false;
        }
        return Security.addProvider(new LazyBouncyCastleProvider()) != -1;
    }

    @Override
    public Service getService(String type, String algorithm) {
        Service s = super.getService(type, algorithm);
        if (s != null) {
            return s;
        }
        if (full == null) {
            LOG.debug("building Bouncy Castle's full provider for {} {}", type, algorithm);
        }
        return full().getService(type, algorithm);
    }

    @Override
    public Set<Service> getServices() {
        Set<Service> all = new LinkedHashSet<>(super.getServices());
        all.addAll(full().getServices());
        return all;
    }

    @Override
    public String getVersionStr() {
        return full().getVersionStr();
    }

    @Override
    @Deprecated
    public double getVersion() {
        return full().getVersion();
    }

    @Override
    public String getInfo() {
        return full().getInfo();
    }

    /** Whether the full provider has been built (for tests and measurements). */
    public boolean isFullProviderBuilt() {
        return full != null;
    }

    private Provider full() {
        Provider p = full;
        if (p == null) {
            synchronized (this) {
                p = full;
                if (p == null) {
                    p = new org.bouncycastle.jce.provider.BouncyCastleProvider();
                    full = p;
                }
            }
        }
        return p;
    }
}
