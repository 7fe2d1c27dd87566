package io.pqssh.server.login;

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

    /**
     * Names of the account's primary and supplementary groups ({@code getgrouplist(3)}, as sshd's {@code ga_init}),
     * through {@code id -Gn}; empty when they cannot be found.
     */
    default java.util.List<String> groupNames(Account account) {
        try {
            Process p = new ProcessBuilder("/usr/bin/id", "-Gn", "--", account.name())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            String out;
            try (java.io.InputStream in = p.getInputStream()) {
                out = new String(in.readNBytes(64 * 1024), java.nio.charset.StandardCharsets.UTF_8);
            }
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return java.util.List.of();
            }
            String t = out.strip();
            return t.isEmpty() ? java.util.List.of() : java.util.List.of(t.split("\\s+"));
        } catch (java.io.IOException e) {
            return java.util.List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.List.of();
        }
    }
}
