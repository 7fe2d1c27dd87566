package io.pqssh.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccountSource;

/**
 * sshd's {@code AuthorizedPrincipalsCommand} and {@code AuthorizedPrincipalsCommandUser} ({@code
 * match_principals_command} in auth2-pubkey.c), run as {@link AuthorizationCommand} says with the tokens
 * {@code %% %C %D %F %f %h %i %K %k %s %T %t %U %u}; its output is read as an AuthorizedPrincipalsFile. Any failure
 * grants no principal.
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

    /** The principal lines the command prints for this certificate presented by {@code user}; empty on failure. */
    List<String> principals(SshCertificate cert, byte[] certBlob, Account user, Endpoints endpoints) {
        return command.output(user, tokens(cert, certBlob, user, endpoints), false)
                .map(PrincipalsCommand::principalLines).orElse(List.of());
    }

    /**
     * sshd's {@code auth_process_principals} on a file's or command's text: a {@code #} ends the line, leading and
     * trailing blanks go, blank lines are skipped. A line with inner blanks is {@code options principal}; pqssh does
     * not apply options on principal lines, so such a line grants nothing (fail closed) and is logged.
     */
    static List<String> principalLines(String text) {
        List<String> out = new ArrayList<>();
        for (String raw : text.split("\n")) {
            int hash = raw.indexOf('#');
            String s = (hash >= 0 ? raw.substring(0, hash) : raw).replaceAll("^[ \t]+|[ \t\r]+$", "");
            if (s.isEmpty()) {
                continue;
            }
            if (s.indexOf(' ') >= 0 || s.indexOf('\t') >= 0) {
                LOG.info("principals line with options ignored (options on principal lines are not supported): {}",
                        io.pqssh.mina.internal.log.LogText.escape(s));
                continue;
            }
            out.add(s);
        }
        return out;
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
