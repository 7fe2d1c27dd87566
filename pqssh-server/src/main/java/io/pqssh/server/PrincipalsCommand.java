package io.pqssh.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.core.cert.SshCertificate;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccountSource;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.session.UserCommand;

/**
 * sshd's {@code AuthorizedPrincipalsCommand} and {@code AuthorizedPrincipalsCommandUser} ({@code
 * match_principals_command} in auth2-pubkey.c): the command line is split as sshd's {@code argv_split} (quotes,
 * backslashes), its arguments (not the program) get the tokens {@code %% %C %D %F %f %h %i %K %k %s %T %t %U %u};
 * the program must be an absolute path to a root-owned file that neither it nor a directory above it lets group or
 * others write ({@code safe_path}); it runs as the command user with stdin {@code /dev/null}, stderr discarded and
 * sshd's minimal environment ({@code PATH USER LOGNAME HOME}), and its output is read as an AuthorizedPrincipalsFile.
 * Any failure (unknown user, unsafe path, non-zero exit, a timeout) grants no principal and is logged in sshd's
 * words.
 */
public final class PrincipalsCommand {
    private static final Logger LOG = LoggerFactory.getLogger(PrincipalsCommand.class);
    /** sshd reads the output line by line without a limit; pqssh stops at 1 MiB. */
    static final int MAX_OUTPUT = 1 << 20;
    /** sshd has no timeout of its own (LoginGraceTime ends the connection); pqssh kills the command after this. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String STD_PATH = "/usr/bin:/bin:/usr/sbin:/sbin";

    private final String command;
    private final String commandUser;
    private final AccountSource accounts;
    private final Duration timeout;

    public PrincipalsCommand(String command, String commandUser, AccountSource accounts) {
        this(command, commandUser, accounts, TIMEOUT);
    }

    PrincipalsCommand(String command, String commandUser, AccountSource accounts, Duration timeout) {
        this.command = command;
        this.commandUser = commandUser;
        this.accounts = accounts;
        this.timeout = timeout;
    }

    /** The endpoints of the connection ({@code %C}: client address and port, server address and port). */
    public record Endpoints(String clientAddress, int clientPort, String serverAddress, int serverPort) {
        String token() {
            return clientAddress + " " + clientPort + " " + serverAddress + " " + serverPort;
        }
    }

    /** The principal lines the command prints for this certificate presented by {@code user}; empty on failure. */
    List<String> principals(SshCertificate cert, byte[] certBlob, Account user, Endpoints endpoints) {
        String runAsName = expand(commandUser, Map.of('u', user.name()));
        Optional<Account> runAs = runAsName == null ? Optional.empty() : accounts.byName(runAsName);
        if (runAs.isEmpty()) {
            LOG.error("AuthorizedPrincipalsCommandUser \"{}\" not found", runAsName == null ? commandUser : runAsName);
            return List.of();
        }
        List<String> av;
        try {
            av = argvSplit(command);
        } catch (IllegalArgumentException e) {
            LOG.error("AuthorizedPrincipalsCommand \"{}\" contains invalid quotes", command);
            return List.of();
        }
        if (av.isEmpty()) {
            LOG.error("AuthorizedPrincipalsCommand \"{}\" yields no arguments", command);
            return List.of();
        }
        Map<Character, String> tokens = tokens(cert, certBlob, user, endpoints);
        for (int i = 1; i < av.size(); i++) {
            String t = expand(av.get(i), tokens);
            if (t == null) {
                LOG.error("AuthorizedPrincipalsCommand \"{}\": unknown or incomplete token in \"{}\"", command,
                        av.get(i));
                return List.of();
            }
            av.set(i, t);
        }
        String shown = String.join(" ", av);
        if (!av.get(0).startsWith("/")) {
            LOG.error("AuthorizedPrincipalsCommand path is not absolute: \"{}\"", av.get(0));
            return List.of();
        }
        Path program = Path.of(av.get(0));
        if (!Files.exists(program)) {
            LOG.error("Could not stat AuthorizedPrincipalsCommand \"{}\": No such file or directory", program);
            return List.of();
        }
        try {
            Optional<String> unsafe = UserPaths.strictModesRefusal(program, "root", Optional.empty());
            if (unsafe.isPresent()) {
                LOG.error("Unsafe AuthorizedPrincipalsCommand \"{}\": {}", program, unsafe.get());
                return List.of();
            }
        } catch (IOException e) {
            LOG.error("Could not stat AuthorizedPrincipalsCommand \"{}\": {}", program, e.getMessage());
            return List.of();
        }
        Account a = runAs.get();
        boolean switchUid = ProcessIdentity.current().uid() == 0 && a.uid() != 0;
        if (!switchUid && ProcessIdentity.current().uid() != a.uid()) {
            LOG.error("AuthorizedPrincipalsCommand \"{}\": cannot run as {} (the server is not root)", shown,
                    a.name());
            return List.of();
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", STD_PATH);
        env.put("USER", a.name());
        env.put("LOGNAME", a.name());
        env.put("HOME", a.home().toString());
        UserCommand.Result r;
        try {
            r = UserCommand.run(av, a, switchUid, env, MAX_OUTPUT, timeout);
        } catch (IOException e) {
            LOG.error("AuthorizedPrincipalsCommand {} failed: {}", shown, e.getMessage());
            return List.of();
        }
        if (r.status() != 0) {
            LOG.error("AuthorizedPrincipalsCommand {} failed, status {}", shown, r.status());
            return List.of();
        }
        return principalLines(new String(r.out(), StandardCharsets.UTF_8));
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
        Map<Character, String> t = new LinkedHashMap<>();
        t.put('C', e == null ? "" : e.token());
        t.put('D', ""); // no routing domains
        t.put('U', Integer.toString(user.uid()));
        t.put('u', user.name());
        t.put('h', user.home().toString());
        t.put('t', cert.certType());
        t.put('T', typeOf(cert.signatureKey()));
        t.put('f', KeyFingerprints.sha256(cert.certifiedKey()));
        t.put('F', KeyFingerprints.sha256(cert.signatureKey()));
        t.put('k', Base64.getEncoder().encodeToString(certBlob));
        t.put('K', Base64.getEncoder().encodeToString(cert.signatureKey()));
        t.put('i', cert.keyId());
        t.put('s', Long.toUnsignedString(cert.serial()));
        return t;
    }

    private static String typeOf(byte[] blob) {
        try {
            return PublicKeyLine.blobKeyType(blob);
        } catch (io.pqssh.core.keys.KeyFileException e) {
            return "unknown";
        }
    }

    /** sshd's {@code percent_expand}; null for an unknown or trailing {@code %} (the caller logs it). */
    static String expand(String s, Map<Character, String> tokens) {
        try {
            return io.pqssh.common.text.PercentExpand.expand(s, tokens);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** sshd splits the command line with {@code argv_split}, as ssh_config arguments are split. */
    static List<String> argvSplit(String s) {
        return io.pqssh.common.text.ArgvSplit.split(s, false);
    }
}
