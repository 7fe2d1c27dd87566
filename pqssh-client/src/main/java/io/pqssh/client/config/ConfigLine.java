package io.pqssh.client.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits one ssh_config line as ssh does: the keyword ends at white space or {@code =}; arguments are separated by
 * white space, may be quoted with {@code "} or {@code '}, take {@code \} escapes of quote, backslash and space,
 * and a {@code #} that starts an argument ends the line. A command keyword's value ({@code ProxyCommand},
 * {@code RemoteCommand}, {@code LocalCommand}, {@code KnownHostsCommand}) is the rest of the line as written.
 */
final class ConfigLine {
    private ConfigLine() {
    }

    /** The keyword followed by its arguments; empty for blank and comment lines. */
    static List<String> split(String line) throws ConfigException {
        String s = line.strip();
        List<String> out = new ArrayList<>();
        if (s.isEmpty() || s.startsWith("#")) {
            return out;
        }
        int i = 0;
        while (i < s.length() && !Character.isWhitespace(s.charAt(i)) && s.charAt(i) != '=') {
            i++;
        }
        out.add(s.substring(0, i));
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        if (i < s.length() && s.charAt(i) == '=') {
            i++;
        }
        String rest = s.substring(i);
        if (COMMANDS.contains(out.get(0).toLowerCase(java.util.Locale.ROOT))) {
            // ssh keeps a command's text as written (quotes, #) for the shell that runs it: readconf's parse_command
            String raw = rest.strip();
            if (!raw.isEmpty()) {
                out.add(raw);
            }
            return out;
        }
        out.addAll(arguments(rest));
        return out;
    }

    /** Keywords whose value is a shell command, taken as the rest of the line. */
    private static final java.util.Set<String> COMMANDS = java.util.Set.of("proxycommand", "remotecommand",
            "localcommand", "knownhostscommand");

    static List<String> arguments(String s) throws ConfigException {
        try {
            return io.pqssh.common.text.ArgvSplit.split(s, true);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid quotes");
        }
    }
}
