package io.pqssh.client.config;

import java.util.List;

/** One keyword's arguments and where they came from ("FILE line N" or "command-line"). */
public record OptionValue(List<String> args, String source) {
    public OptionValue {
        args = List.copyOf(args);
    }

    public String first() {
        return args.get(0);
    }

    public String joined() {
        return String.join(" ", args);
    }
}
