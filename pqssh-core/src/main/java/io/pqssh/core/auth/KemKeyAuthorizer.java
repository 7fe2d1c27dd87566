package io.pqssh.core.auth;

/** Decides whether a KEM public key may log in as a user from an address (authorized_keys, authorized_kem_keys). */
@FunctionalInterface
public interface KemKeyAuthorizer {
    /**
     * @param user          the user name from the request
     * @param credential    algorithm and raw public key as requested
     * @param clientAddress the peer's IP address as text (for {@code from=} options)
     */
    boolean isAuthorized(String user, KemCredential credential, String clientAddress);
}
