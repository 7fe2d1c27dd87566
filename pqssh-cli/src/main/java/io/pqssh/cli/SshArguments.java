package io.pqssh.cli;

import java.util.List;

/**
 * The command line of {@code pqssh ssh}, read as OpenSSH's {@code ssh} reads its own: BSD {@code getopt(3)} without
 * permutation, so flags may be bundled ({@code -tt}, {@code -vvv}, {@code -NfL 8080:h:80}) and a value may follow its
 * letter directly ({@code -p2222}); the first word that is not an option is the destination; option parsing then
 * resumes once after the destination (as ssh.c's {@code goto again}), and the first word after that which is not an
 * option starts the remote command. {@code --} ends the options ({@code ssh -- host -v} runs {@code -v}).
 *
 * <p>Hand-written rather than picocli because this is the start-up path of every login (docs/startup.md): picocli
 * is compiled for Java 5, so the JVM's AOT cache cannot hold its classes, and building its model cost ~0.1 s of a
 * 0.5 s budget. Errors read like ssh's and end in exit 255.
 */
final class SshArguments {
    /** ssh's letters that take a value. */
    private static final String WITH_VALUE = "BbcDEeFIiJLlmOoPpQRSWw";
    /** ssh's letters, with or without a value; the ones pqssh lacks are refused by name. */
    private static final String OPENSSH_LETTERS = "1246abcefgiklmnopqstvxABCDEFGIJKLMNOPQRSTVWwXYy";

    static final String USAGE = String.join("\n",
            "usage: pqssh ssh [-AaCfGMNnqsTtVv] [-D [bind_address:]port] [-e escape_char] [-F configfile]",
            "                 [-i identity_file] [-J destination] [-L address] [-l login_name]",
            "                 [-O ctl_cmd] [-o option] [-p port] [-R address] [-S ctl_path] [-W host:port]",
            "                 destination [command [argument ...]]",
            "       pqssh ssh [-Q query_option]",
            "Options and ssh_config keywords as OpenSSH's ssh; the list with each one's status: docs/client.md.");

    /** A command line that ssh would refuse; the message is ssh's. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean showUsage;

        UsageException(String message, boolean showUsage) {
            super(message);
            this.showUsage = showUsage;
        }

        boolean showUsage() {
            return showUsage;
        }
    }

    private final SshCommand into;

    private SshArguments(SshCommand into) {
        this.into = into;
    }

    /** Reads {@code args} (everything after {@code ssh}) into a new command. */
    static SshCommand parse(List<String> args) throws UsageException {
        SshCommand c = new SshCommand();
        new SshArguments(c).read(args);
        return c;
    }

    private void read(List<String> args) throws UsageException {
        int i = options(args, 0);
        boolean terminated = i > 0 && args.get(i - 1).equals("--");
        if (i < args.size()) {
            into.destination = args.get(i++);
            if (!terminated) {
                i = options(args, i);
            }
            into.command.addAll(args.subList(i, args.size()));
        }
    }

    /** getopt from {@code start}: returns the index of the first word that is not an option (past a {@code --}). */
    private int options(List<String> args, int start) throws UsageException {
        int i = start;
        while (i < args.size()) {
            String a = args.get(i);
            if (a.equals("--")) {
                return i + 1;
            }
            if (a.equals("--help")) {
                into.help = true;
                i++;
                continue;
            }
            if (a.length() < 2 || a.charAt(0) != '-') {
                return i;
            }
            i++;
            for (int k = 1; k < a.length(); k++) {
                char letter = a.charAt(k);
                if (OPENSSH_LETTERS.indexOf(letter) < 0) {
                    throw new UsageException("unknown option -- " + letter, true);
                }
                if (WITH_VALUE.indexOf(letter) >= 0) {
                    String value;
                    if (k + 1 < a.length()) {
                        value = a.substring(k + 1);
                    } else if (i < args.size()) {
                        value = args.get(i++);
                    } else {
                        throw new UsageException("option requires an argument -- " + letter, true);
                    }
                    option(letter, value);
                    break;
                }
                flag(letter);
            }
        }
        return i;
    }

    private void flag(char letter) throws UsageException {
        switch (letter) {
            case 'A' -> into.forwardAgent = true;
            case 'a' -> into.noForwardAgent = true;
            case 'X' -> into.forwardX11 = "X";
            case 'Y' -> into.forwardX11 = "Y";
            case 'x' -> into.forwardX11 = "x";
            case 'C' -> into.compression = true;
            case 'f' -> into.fork = true;
            case 'G' -> into.printConfig = true;
            case 'M' -> into.master++;
            case 'N' -> into.noCommand = true;
            case 'n' -> into.stdinNull = true;
            case 'q' -> into.quiet = true;
            case 's' -> into.subsystem = true;
            case 'T' -> into.noTty = true;
            case 't' -> into.tty++;
            case 'V' -> into.version = true;
            case 'v' -> into.verbose++;
            default -> throw notImplemented(letter);
        }
    }

    private void option(char letter, String value) throws UsageException {
        switch (letter) {
            case 'D' -> into.dynamicForwards.add(value);
            case 'e' -> into.escapeChar = value;
            case 'F' -> into.configFile = value;
            case 'i' -> into.identities.add(value);
            case 'J' -> into.proxyJump = value;
            case 'L' -> into.localForwards.add(value);
            case 'l' -> into.loginName = value;
            case 'o' -> into.options.add(value);
            case 'p' -> into.port = port(value);
            case 'Q' -> into.query = value;
            case 'R' -> into.remoteForwards.add(value);
            case 'S' -> into.controlPath = value;
            case 'O' -> muxCommand(value);
            case 'W' -> stdioForward(value);
            default -> throw notImplemented(letter);
        }
    }

    /**
     * ssh's -O words. {@code proxy} is refused: ssh then runs its own channel layer over the control socket as an
     * unencrypted packet stream, and MINA's client runs its channels only on its own encrypted transport.
     */
    private void muxCommand(String value) throws UsageException {
        if (into.stdioForward != null) {
            throw new UsageException("Cannot specify multiplexing command with -W", false);
        }
        if (into.muxCommand != null) {
            throw new UsageException("Multiplexing command already specified", false);
        }
        switch (value) {
            case "check", "exit", "stop", "forward", "cancel", "conninfo", "channels" -> into.muxCommand = value;
            case "proxy" -> throw new UsageException("-O proxy is not supported by pqssh ssh: a proxy-mode client "
                    + "runs SSH channels over the unencrypted control socket, which MINA's client cannot; use "
                    + "OpenSSH's ssh -O proxy or a plain -S session (docs/client.md)", false);
            default -> throw new UsageException("Invalid multiplex command.", false);
        }
    }

    private void stdioForward(String value) throws UsageException {
        if (into.stdioForward != null) {
            throw new UsageException("stdio forward already specified", false);
        }
        if (into.muxCommand != null) {
            throw new UsageException("Cannot specify stdio forward with -O", false);
        }
        try {
            io.pqssh.client.forward.StdioForward.parse(value);
        } catch (io.pqssh.client.config.ConfigException e) {
            throw new UsageException(e.getMessage(), false);
        }
        into.stdioForward = value;
    }

    private static int port(String value) throws UsageException {
        try {
            int p = Integer.parseInt(value);
            if (p > 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // same message as out of range
        }
        throw new UsageException("Bad port '" + value + "'", true);
    }

    private static UsageException notImplemented(char letter) {
        return new UsageException("option -" + letter + " is not implemented by pqssh ssh (docs/client.md)", false);
    }
}
