package io.pqssh.server;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.authorized.AuthorizedKeyOptions;
import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccountSource;

/**
 * sshd's {@code AuthorizedPrincipalsCommand} and {@code AuthorizedPrincipalsCommandUser} ({@code
 * match_principals_command} in auth2-pubkey.c), run as {@link AuthorizationCommand} says with the tokens
 * {@code %% %C %D %F %f %h %i %K %k %s %T %t %U %u}; its output is read as an AuthorizedPrincipalsFile, lines
 * {@code [options] principal} ({@code match}). Any failure grants no principal.
 */
public final class PrincipalsCommand {
    private static final Logger LOG = LoggerFactory.getLogger(PrincipalsCommand.class);

    private final AuthorizationCommand command;

    public PrincipalsCommand(String command, String commandUser, AccountSource accounts) {
        this(command, commandUser, accounts, AuthorizationCommand.TIMEOUT);
    }

    PrincipalsCommand(String command, String commandUser, AccountSource accounts, Duration timeout) {
        this.command = new AuthorizationCommand("AuthorizedPrincipalsCommand", command, commandUser, accounts,
                timeout);
    }

    /** The endpoints of the connection ({@code %C}: client address and port, server address and port). */
    public record Endpoints(String clientAddress, int clientPort, String serverAddress, int serverPort) {
        String token() {
            return clientAddress + " " + clientPort + " " + serverAddress + " " + serverPort;
        }
    }

    /** A principal line that matched: where it is ({@code FILE:N}), its principal and its options. */
    record PrincipalLine(String location, String principal, AuthorizedKeyOptions options) {
    }

    /**
     * The first line the command prints for this certificate presented by {@code user} that names one of the
     * certificate's principals (sshd's {@code process_principals} on {@code "(command)"}); empty on failure.
     */
    Optional<PrincipalLine> match(SshCertificate cert, byte[] certBlob, Account user, Endpoints endpoints) {
        return command.output(user, tokens(cert, certBlob, user, endpoints), false)
                .flatMap(text -> match(text, "(command)", cert.principals()));
    }

    /**
     * sshd's {@code process_principals} and {@code check_principals_line} on a file's or command's text: a {@code #}
     * ends the line, leading and trailing blanks go, blank lines are skipped. A line with inner blanks is {@code
     * options principal} (the principal after the last space, or the last tab when there is no space), its options
     * those of authorized_keys ({@link AuthorizedKeyOptions#parseLeading}); a line whose options do not parse grants
     * nothing and is logged as sshd's {@code FILE:N: bad principals options: reason}. The first line naming one of
     * {@code certPrincipals} wins, with its options (none: {@link AuthorizedKeyOptions#NONE}).
     */
    static Optional<PrincipalLine> match(String text, String source, List<String> certPrincipals) {
        int n = 0;
        for (String raw : text.split("\n", -1)) {
            n++;
            int hash = raw.indexOf('#');
            String s = (hash >= 0 ? raw.substring(0, hash) : raw).replaceAll("^[ \t]+|[ \t\r]+$", "");
            if (s.isEmpty()) {
                continue;
            }
            String loc = source + ":" + n;
            int blank = s.lastIndexOf(' ') >= 0 ? s.lastIndexOf(' ') : s.lastIndexOf('\t');
            String principal = s;
            AuthorizedKeyOptions options = AuthorizedKeyOptions.NONE;
            if (blank >= 0) {
                principal = s.substring(blank).replaceAll("^[ \t]+", "");
                try {
                    options = AuthorizedKeyOptions.parseLeading(s, ZoneId.systemDefault());
                } catch (AuthorizedKeyOptions.OptionsException e) {
                    // the reason quotes the file's text: escaped, as every line of the user's files in the log
                    LOG.info("{}: bad principals options: {}", io.pqssh.mina.internal.log.LogText.escape(loc),
                            io.pqssh.mina.internal.log.LogText.escape(e.getMessage()));
                    continue;
                }
            }
            if (certPrincipals.contains(principal)) {
                return Optional.of(new PrincipalLine(loc, principal, options));
            }
        }
        return Optional.empty();
    }

    private static Map<Character, String> tokens(SshCertificate cert, byte[] certBlob, Account user,
            Endpoints e) {
        Map<Character, String> t = AuthorizationCommand.userTokens(user, e);
        t.put('t', cert.certType());
        t.put('T', AuthorizationCommand.keyType(cert.signatureKey()));
        t.put('f', KeyFingerprints.sha256(cert.certifiedKey()));
        t.put('F', KeyFingerprints.sha256(cert.signatureKey()));
        t.put('k', Base64.getEncoder().encodeToString(certBlob));
        t.put('K', Base64.getEncoder().encodeToString(cert.signatureKey()));
        t.put('i', cert.keyId());
        t.put('s', Long.toUnsignedString(cert.serial()));
        return t;
    }
}
