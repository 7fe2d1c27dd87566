package io.pqssh.core.auth;

import java.util.Optional;

/** The two KEMUAuth method names and the message numbers they use. */
public enum KemAuthMethod {
    /** ML-KEM proof of possession alone. */
    PUBLICKEY_KEM("publickey-kem"),
    /** A classical signature AND an ML-KEM proof in one request. */
    PUBLICKEY_KEM_AND("publickey-kem-and");

    public static final int SSH_MSG_USERAUTH_REQUEST = 50;
    public static final int SSH_MSG_USERAUTH_KEM_CHALLENGE = 60;
    public static final int SSH_MSG_USERAUTH_KEM_RESPONSE = 61;
    public static final String CONNECTION_SERVICE = "ssh-connection";

    private final String wireName;

    KemAuthMethod(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<KemAuthMethod> fromWireName(String name) {
        for (KemAuthMethod m : values()) {
            if (m.wireName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
