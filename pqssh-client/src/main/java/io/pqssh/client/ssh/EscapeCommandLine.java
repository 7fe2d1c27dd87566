package io.pqssh.client.ssh;

import java.io.IOException;
import java.net.BindException;
import java.util.function.Consumer;

import io.pqssh.client.config.ConfigException;
import io.pqssh.client.config.ForwardSpec;
import io.pqssh.client.forward.PortForwards;

/**
 * One line of ssh's escape command line ({@code ~C}, {@code ssh> }), carried out as clientloop.c's
 * {@code process_cmdline}: {@code -L}, {@code -R}, {@code -D} add a forwarding, {@code -KL}, {@code -KR},
 * {@code -KD} cancel one, {@code h}/{@code ?} list the commands; the leading {@code -} and spaces are optional. Each
 * outcome is one of ssh's lines. With PermitLocalCommand, {@code !command} runs the command as ssh's
 * {@code ssh_local_cmd}: {@code $SHELL -c command} ({@code /bin/sh} without SHELL) on the user's terminal, waited
 * for; without it {@code !} is an invalid command, as in ssh.
 */
final class EscapeCommandLine {
    private final PortForwards forwards;
    private final Consumer<String> say;
    private final boolean permitLocalCommand;
    private final Runnable fatal;

    /**
     * @param forwards the session's forwardings, or null when it may have none (host key changed)
     * @param permitLocalCommand {@code PermitLocalCommand}: {@code !command} is offered
     * @param exitOnForwardFailure with {@code ExitOnForwardFailure yes}, what ends the connection when the server
     *     refuses a {@code -R} (ssh's fatal "Error: remote port forwarding failed ..."); null: only a warning
     */
    EscapeCommandLine(PortForwards forwards, Consumer<String> say, boolean permitLocalCommand,
            Runnable exitOnForwardFailure) {
        this.fatal = exitOnForwardFailure;
        this.forwards = forwards;
        this.say = say;
        this.permitLocalCommand = permitLocalCommand;
    }

    void run(String line) {
        String s = line.stripLeading();
        if (s.startsWith("-")) {
            s = s.substring(1);
        }
        if (s.isEmpty()) {
            return;
        }
        char first = s.charAt(0);
        if (first == 'h' || first == 'H' || first == '?') {
            say.accept("Commands:");
            say.accept("      -L[bind_address:]port:host:hostport    Request local forward");
            say.accept("      -R[bind_address:]port:host:hostport    Request remote forward");
            say.accept("      -D[bind_address:]port                  Request dynamic forward");
            say.accept("      -KL[bind_address:]port                 Cancel local forward");
            say.accept("      -KR[bind_address:]port                 Cancel remote forward");
            say.accept("      -KD[bind_address:]port                 Cancel dynamic forward");
            if (permitLocalCommand) {
                say.accept("      !args                                  Execute local command");
            }
            return;
        }
        if (first == '!' && permitLocalCommand) {
            localCommand(s.substring(1));
            return;
        }
        boolean cancel = first == 'K';
        if (cancel) {
            s = s.substring(1);
        }
        ForwardSpec.Kind kind = s.isEmpty() ? null : switch (s.charAt(0)) {
            case 'L' -> ForwardSpec.Kind.LOCAL;
            case 'R' -> ForwardSpec.Kind.REMOTE;
            case 'D' -> ForwardSpec.Kind.DYNAMIC;
            default -> null;
        };
        if (kind == null) {
            say.accept("Invalid command.");
            return;
        }
        String spec = s.substring(1).strip();
        if (cancel) {
            cancel(kind, spec);
        } else {
            add(kind, spec);
        }
    }

    /** ssh's ssh_local_cmd: the user's shell runs it on our terminal; its status is not reported, as in ssh. */
    private void localCommand(String args) {
        if (args.isEmpty()) {
            return;
        }
        String shell = System.getenv("SHELL");
        ProcessBuilder pb = new ProcessBuilder(shell == null || shell.isEmpty() ? "/bin/sh" : shell, "-c", args)
                .inheritIO();
        try {
            Process p = pb.start();
            boolean interrupted = false;
            while (p.isAlive()) {
                try {
                    p.waitFor();
                } catch (InterruptedException e) {
                    interrupted = true; // as ssh's waitpid loop: wait on; the interrupt is kept for the caller
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        } catch (IOException e) {
            say.accept("Couldn't execute " + pb.command().get(0) + " -c \"" + args + "\": " + e.getMessage());
        }
    }

    private void cancel(ForwardSpec.Kind kind, String spec) {
        ForwardSpec which;
        try {
            // as ssh: one or two fields ([bind_address:]port or a path), whatever the kind
            which = ForwardSpec.parseCommandLine(ForwardSpec.Kind.DYNAMIC, spec);
        } catch (ConfigException e) {
            say.accept("Bad forwarding close specification.");
            return;
        }
        try {
            if (forwards == null || !forwards.cancel(kind, which)) {
                say.accept("Unknown port forwarding.");
                return;
            }
        } catch (IOException e) {
            say.accept("Unknown port forwarding.");
            return;
        }
        say.accept("Canceled forwarding.");
    }

    private void add(ForwardSpec.Kind kind, String spec) {
        ForwardSpec f;
        try {
            f = ForwardSpec.parseCommandLine(kind, spec);
        } catch (ConfigException e) {
            say.accept(kind == ForwardSpec.Kind.REMOTE ? "Bad remote forwarding specification."
                    : "Bad local forwarding specification."); // -D too, as ssh
            return;
        }
        if (forwards == null) {
            say.accept("Port forwarding failed.");
            return;
        }
        if (kind == ForwardSpec.Kind.REMOTE) {
            // ssh says this once the request is sent; the server's refusal comes as a warning after it
            say.accept("Forwarding port.");
            try {
                forwards.add(f);
            } catch (IOException | RuntimeException e) {
                say.accept((fatal != null ? "Error: " : "Warning: ") + PortForwards.failure(f, e));
                if (fatal != null) {
                    fatal.run();
                }
            }
            return;
        }
        try {
            forwards.add(f);
        } catch (IOException | RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof BindException)) {
                cause = cause.getCause();
            }
            if (cause instanceof BindException && f.bindPort() != null) {
                say.accept("bind [" + (f.bindAddress() == null || f.bindAddress().equals("localhost") ? "127.0.0.1"
                        : f.bindAddress()) + "]:" + f.bindPort() + ": " + cause.getMessage());
                say.accept("channel_setup_fwd_listener_tcpip: cannot listen to port: " + f.bindPort());
            }
            say.accept("Port forwarding failed.");
            return;
        }
        say.accept("Forwarding port.");
    }
}
