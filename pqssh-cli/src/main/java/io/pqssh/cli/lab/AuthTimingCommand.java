package io.pqssh.cli.lab;

import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.lab.enumeration.AuthTimingLab;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pqssh lab auth-timing}: does a failed login take longer for a real account than for an unknown name? */
@Command(name = "auth-timing", mixinStandardHelpOptions = true,
        description = {"Time from the first USERAUTH_REQUEST to USERAUTH_FAILURE, per method, for a real account",
                "(wrong key/password) and for made-up names, interleaved; medians and a Mann-Whitney U test.",
                "bench/auth-timing.sh sets up a server and an account and runs this."})
public final class AuthTimingCommand implements Callable<Integer> {
    @Option(names = "--host", description = "Server address (default 127.0.0.1).")
    String host = "127.0.0.1";

    @Option(names = "--port", required = true, description = "Server port.")
    int port;

    @Option(names = "--user", required = true, description = "A real account the client has no valid credential for.")
    String user;

    @Option(names = "-n", description = "Samples per method and kind of name (default 200).")
    int rounds = 200;

    @Option(names = "--methods", split = ",", description = "Comma list (default: all of "
            + "publickey,publickey-kem,password,keyboard-interactive).")
    List<String> methods = AuthTimingLab.METHODS;

    @Override
    public Integer call() throws Exception {
        AuthTimingLab.Settings s = new AuthTimingLab.Settings(host, port, user, rounds, methods);
        System.out.print(AuthTimingLab.markdown(s, AuthTimingLab.run(s, System.err)));
        return 0;
    }
}
