package io.pqssh.server;

import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.keys.authorized.AuthorizedKeyEntry;
import io.pqssh.core.keys.authorized.AuthorizedKeys;
import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccountSource;

/**
 * sshd's {@code AuthorizedKeysCommand} and {@code AuthorizedKeysCommandUser} ({@code user_key_command_allowed2} in
 * auth2-pubkey.c), run as {@link AuthorizationCommand} says with the tokens {@code %% %C %D %f %h %k %t %U %u} (a
 * command line without arguments gets the user name as its one argument, as sshd); its output is read as
 * authorized_keys lines with their options, after the user's AuthorizedKeysFile files found nothing. Used for
 * publickey and publickey-kem keys, and for certificates through the output's {@code cert-authority} lines.
 */
final class KeysCommand {
    private static final Logger LOG = LoggerFactory.getLogger(KeysCommand.class);

    private final AuthorizationCommand command;
    private final AccountSource accounts;

    KeysCommand(String command, String commandUser, AccountSource accounts) {
        this(command, commandUser, accounts, AuthorizationCommand.TIMEOUT);
    }

    KeysCommand(String command, String commandUser, AccountSource accounts, Duration timeout) {
        this.command = new AuthorizationCommand("AuthorizedKeysCommand", command, commandUser, accounts, timeout);
        this.accounts = accounts;
    }

    /**
     * The first entry the command prints that authorizes {@code blob} for this client now: a plain key line for a
     * key ({@code certAuthority} false), a {@code cert-authority} line for the CA key {@code blob} of the
     * certificate {@code presented} (true). {@code presented} is what the client offered (the key or the
     * certificate), which the tokens describe.
     */
    Optional<AuthorizedKeyEntry> find(String user, byte[] presented, byte[] blob, boolean certAuthority,
            String addr, PrincipalsCommand.Endpoints endpoints) {
        Optional<Account> account = accounts.byName(user);
        if (account.isEmpty()) {
            return Optional.empty(); // sshd runs it for valid users only
        }
        Optional<String> out = command.output(account.get(), tokens(account.get(), presented, endpoints), true);
        if (out.isEmpty()) {
            return Optional.empty();
        }
        AuthorizedKeys keys = AuthorizedKeys.parse(out.get(), command.command());
        Instant now = Instant.now();
        for (AuthorizedKeyEntry e : keys.entries()) {
            if (e.matchesBlob(blob) && e.options().certAuthority() == certAuthority
                    && e.denialReason(addr, null, now).isEmpty()) {
                LOG.debug("{}:{}: matching key found", command.command(), e.lineNumber());
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    private static Map<Character, String> tokens(Account user, byte[] key, PrincipalsCommand.Endpoints e) {
        Map<Character, String> t = AuthorizationCommand.userTokens(user, e);
        t.put('t', AuthorizationCommand.keyType(key));
        t.put('f', FileKeyAuthorizers.fingerprint(key));
        t.put('k', Base64.getEncoder().encodeToString(key));
        return t;
    }
}
