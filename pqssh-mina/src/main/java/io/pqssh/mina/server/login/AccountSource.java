package io.pqssh.mina.server.login;

import java.util.Optional;

/** Where accounts come from: the system's name service in production, a fixed table in unit tests. */
public interface AccountSource {
    /** {@code getpwnam(3)}: the account, or empty when the name is unknown. */
    Optional<Account> byName(String name);

    /**
     * The account's {@code shadow(5)} entry ({@code name:pw:lastchg:min:max:warn:inactive:expire:}), or empty when
     * there is none or it cannot be read (not root).
     */
    Optional<String> shadowEntry(String name);
}
