package io.pqssh.mina.internal.kex;

import java.util.ArrayList;
import java.util.List;

/**
 * The client's default key exchange names, as plain strings: a class with no MINA types, so that reading the list
 * does not initialise MINA's algorithm registries (and, through them, the JCA providers) on a client's start-up path.
 */
public final class ClientKexNames {
    /**
     * OpenSSH 10.5's client KexAlgorithms ({@code KEX_CLIENT_KEX} in myproposal.h: its server list plus the
     * finite-field Diffie-Hellman groups, for old servers), in OpenSSH's order, without pqssh's additions.
     */
    public static final List<String> OPENSSH = List.of(
            "mlkem768x25519-sha256",
            "sntrup761x25519-sha512",
            "sntrup761x25519-sha512@openssh.com",
            "curve25519-sha256",
            "curve25519-sha256@libssh.org",
            "ecdh-sha2-nistp256",
            "ecdh-sha2-nistp384",
            "ecdh-sha2-nistp521",
            "diffie-hellman-group-exchange-sha256",
            "diffie-hellman-group16-sha512",
            "diffie-hellman-group18-sha512",
            "diffie-hellman-group14-sha256");

    /** {@link #OPENSSH} with pqssh's ML-KEM/NIST-curve hybrids after the sntrup761 names. */
    public static final List<String> PQSSH = withPqHybrids(OPENSSH);

    private ClientKexNames() {
    }

    private static List<String> withPqHybrids(List<String> openssh) {
        List<String> kex = new ArrayList<>(openssh);
        kex.addAll(kex.indexOf("sntrup761x25519-sha512@openssh.com") + 1,
                List.of("mlkem1024nistp384-sha384", "mlkem768nistp256-sha256"));
        return List.copyOf(kex);
    }
}
