package io.pqssh.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.pqssh.mina.internal.log.LogText;
import io.pqssh.server.login.Account;
import io.pqssh.server.login.AccountSource;
import io.pqssh.server.login.ProcessIdentity;
import io.pqssh.server.session.UserCommand;

/**
 * What sshd's {@code AuthorizedKeysCommand} and {@code AuthorizedPrincipalsCommand} share ({@code
 * user_key_command_allowed2} and {@code match_principals_command} in auth2-pubkey.c, {@code subprocess} in misc.c):
 * the command user ({@code %u} expanded) must exist; the command line is split as sshd's {@code argv_split} (quotes,
 * backslashes), its arguments (not the program) get the caller's {@code %} tokens; the program must be an absolute
 * path to a root-owned file that neither it nor a directory above it lets group or others write ({@code safe_path});
 * it runs as the command user (root only when that user is root) with stdin {@code /dev/null}, sshd's minimal
 * environment ({@code PATH USER LOGNAME HOME}) and a bounded output and time; its standard error goes to the log at
 * debug level (sshd discards it). Any failure (unknown user, unsafe path, non-zero exit, a timeout) yields no output
 * and is logged in sshd's words, so the caller grants nothing.
 */
final class AuthorizationCommand {
    private static final Logger LOG = LoggerFactory.getLogger(AuthorizationCommand.class);
    /** sshd reads the output line by line without a limit; pqssh stops at 1 MiB. */
    static final int MAX_OUTPUT = 1 << 20;
    /** sshd has no timeout of its own (LoginGraceTime ends the connection); pqssh kills the command after this. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String STD_PATH = "/usr/bin:/bin:/usr/sbin:/sbin";

    private final String keyword;
    private final String command;
    private final String commandUser;
    private final AccountSource accounts;
    private final Duration timeout;

    /** {@code keyword} names the command in log lines ({@code AuthorizedKeysCommand}); its user is keyword + User. */
    AuthorizationCommand(String keyword, String command, String commandUser, AccountSource accounts,
            Duration timeout) {
        this.keyword = keyword;
        this.command = command;
        this.commandUser = commandUser;
        this.accounts = accounts;
        this.timeout = timeout;
    }

    /** The raw command line as configured (sshd's name for the output in its log lines). */
    String command() {
        return command;
    }

    /**
     * The command's standard output for {@code user}, arguments expanded with {@code tokens}; empty on any failure.
     * {@code userWhenNoArguments}: a command line without arguments gets the user name as its one argument
     * (AuthorizedKeysCommand's old interface, kept by sshd).
     */
    Optional<String> output(Account user, Map<Character, String> tokens, boolean userWhenNoArguments) {
        String runAsName = expand(commandUser, Map.of('u', user.name()));
        Optional<Account> runAs = runAsName == null ? Optional.empty() : accounts.byName(runAsName);
        if (runAs.isEmpty()) {
            LOG.error("{}User \"{}\" not found", keyword, runAsName == null ? commandUser : runAsName);
            return Optional.empty();
        }
        List<String> av;
        try {
            av = new java.util.ArrayList<>(argvSplit(command));
        } catch (IllegalArgumentException e) {
            LOG.error("{} \"{}\" contains invalid quotes", keyword, command);
            return Optional.empty();
        }
        if (av.isEmpty()) {
            LOG.error("{} \"{}\" yields no arguments", keyword, command);
            return Optional.empty();
        }
        for (int i = 1; i < av.size(); i++) {
            String t = expand(av.get(i), tokens);
            if (t == null) {
                LOG.error("{} \"{}\": unknown or incomplete token in \"{}\"", keyword, command, av.get(i));
                return Optional.empty();
            }
            av.set(i, t);
        }
        if (av.size() == 1 && userWhenNoArguments) {
            av.add(user.name());
        }
        String shown = String.join(" ", av);
        if (!av.get(0).startsWith("/")) {
            LOG.error("{} path is not absolute: \"{}\"", keyword, av.get(0));
            return Optional.empty();
        }
        Path program = Path.of(av.get(0));
        if (!Files.exists(program)) {
            LOG.error("Could not stat {} \"{}\": No such file or directory", keyword, program);
            return Optional.empty();
        }
        try {
            Optional<String> unsafe = UserPaths.strictModesRefusal(program, "root", Optional.empty());
            if (unsafe.isPresent()) {
                LOG.error("Unsafe {} \"{}\": {}", keyword, program, unsafe.get());
                return Optional.empty();
            }
        } catch (IOException e) {
            LOG.error("Could not stat {} \"{}\": {}", keyword, program, e.getMessage());
            return Optional.empty();
        }
        Account a = runAs.get();
        boolean switchUid = ProcessIdentity.current().uid() == 0 && a.uid() != 0;
        if (!switchUid && ProcessIdentity.current().uid() != a.uid()) {
            LOG.error("{} \"{}\": cannot run as {} (the server is not root)", keyword, shown, a.name());
            return Optional.empty();
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", STD_PATH);
        env.put("USER", a.name());
        env.put("LOGNAME", a.name());
        env.put("HOME", a.home().toString());
        UserCommand.Result r;
        try {
            r = UserCommand.run(av, a, switchUid, env, MAX_OUTPUT, timeout,
                    line -> LOG.debug("{} {}: stderr: {}", keyword, shown, LogText.escape(line)));
        } catch (IOException e) {
            LOG.error("{} {} failed: {}", keyword, shown, e.getMessage());
            return Optional.empty();
        }
        if (r.status() != 0) {
            LOG.error("{} {} failed, status {}", keyword, shown, r.status());
            return Optional.empty();
        }
        return Optional.of(new String(r.out(), StandardCharsets.UTF_8));
    }

    /** The tokens both commands take: {@code %C %D %U %u %h} (no routing domains: {@code %D} is empty). */
    static Map<Character, String> userTokens(Account user, PrincipalsCommand.Endpoints e) {
        Map<Character, String> t = new LinkedHashMap<>();
        t.put('C', e == null ? "" : e.token());
        t.put('D', "");
        t.put('U', Integer.toString(user.uid()));
        t.put('u', user.name());
        t.put('h', user.home().toString());
        return t;
    }

    /** The type name in a public key blob ({@code %t}, {@code %T}); "unknown" when it has none. */
    static String keyType(byte[] blob) {
        try {
            return io.pqssh.core.keys.PublicKeyLine.blobKeyType(blob);
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
