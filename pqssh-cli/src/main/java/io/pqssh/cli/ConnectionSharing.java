package io.pqssh.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.apache.sshd.client.session.ClientSession;

import io.pqssh.client.config.ClientConfig;
import io.pqssh.client.config.ConfigException;
import io.pqssh.client.config.ForwardSpec;
import io.pqssh.client.config.OptionValue;
import io.pqssh.client.config.Patterns;
import io.pqssh.client.config.Validators;
import io.pqssh.client.mux.MuxClient;
import io.pqssh.client.mux.MuxMaster;
import io.pqssh.client.ssh.Background;
import io.pqssh.client.ssh.ClientLog;
import io.pqssh.client.ssh.SessionRunner;
import io.pqssh.client.ssh.Terminals;

/**
 * ssh's connection sharing for one {@code pqssh ssh}: ControlMaster, ControlPath, ControlPersist, {@code -M},
 * {@code -S} and {@code -O} (docs/client.md). Before connecting: {@code -O} commands, and a session through a live
 * master (ControlMaster no/auto with a ControlPath), falling back to a normal connection when the socket is absent
 * or stale. After authenticating: the master's socket (ControlMaster yes/auto), and ControlPersist's background
 * master, which is this program started again (there is no fork in Java) and told so by {@link #PERSIST_ENV}.
 */
final class ConnectionSharing {
    static final String PERSIST_ENV = "PQSSH_MUX_PERSIST";
    private static final int ENOENT = 2;
    private static final int ECONNREFUSED = 111;

    enum MasterMode { NO, YES, AUTO }

    static final ConnectionSharing NONE = new ConnectionSharing(MasterMode.NO, null, null, null);

    private final MasterMode mode;
    private final Path path;
    private final String muxCommand;
    /** ControlPersist: null for no; Duration.ZERO for yes (no idle limit); else the idle time. */
    private final Duration persist;

    private ConnectionSharing(MasterMode mode, Path path, String muxCommand, Duration persist) {
        this.mode = mode;
        this.path = path;
        this.muxCommand = muxCommand;
        this.persist = persist;
    }

    static boolean isPersistChild() {
        return System.getenv(PERSIST_ENV) != null;
    }

    static ConnectionSharing of(ClientConfig config, String muxCommand) throws ConfigException {
        Optional<Path> path = config.controlPath(null);
        Optional<OptionValue> cm = config.value("ControlMaster");
        String v = cm.map(OptionValue::first).orElse("no").toLowerCase(Locale.ROOT);
        MasterMode mode = switch (v) {
            case "yes", "true" -> MasterMode.YES;
            case "auto" -> MasterMode.AUTO;
            case "ask", "autoask" -> {
                if (path.isEmpty() && muxCommand == null) {
                    yield MasterMode.NO; // as ssh: without a ControlPath nothing is shared, so nothing is asked
                }
                // ssh asks (ssh-askpass) before each shared session and -O exit/stop; without that question the
                // master would hand the connection to every process of this user: refuse rather than guess
                throw new ConfigException("ControlMaster " + v + " (" + cm.get().source() + "): confirming shared "
                        + "sessions with ssh-askpass is not implemented; use ControlMaster "
                        + (v.equals("ask") ? "yes" : "auto") + " (docs/client.md)");
            }
            default -> MasterMode.NO;
        };
        Duration persist = null;
        String p = config.string("ControlPersist").orElse("no").toLowerCase(Locale.ROOT);
        if (p.equals("yes") || p.equals("true")) {
            persist = Duration.ZERO;
        } else if (!p.equals("no") && !p.equals("false")) {
            long s = Validators.parseSeconds(p);
            persist = s > 0 ? Duration.ofSeconds(s) : null;
        }
        if (muxCommand != null && path.isEmpty()) {
            throw new ConfigException("No ControlPath specified for \"-O\" command");
        }
        return new ConnectionSharing(mode, path.orElse(null), muxCommand, persist);
    }

    /**
     * What happens before any connection: an {@code -O} command's status, a shared session's status, the status
     * of starting ControlPersist's master and a session through it, or empty to connect normally.
     */
    Optional<Integer> beforeConnecting(SshCommand cmd, ClientConfig config, ClientLog log) throws ConfigException {
        if (path == null) {
            return Optional.empty();
        }
        try {
            if (muxCommand != null) {
                return Optional.of(control(config, log));
            }
            if (isPersistChild()) {
                return Optional.empty();
            }
            if (mode != MasterMode.YES) {
                if (mode == MasterMode.AUTO) {
                    log.debug1("auto-mux: Trying existing master at '" + path + "'");
                }
                MuxClient.Attempt a = MuxClient.connect(path, mode != MasterMode.NO, log);
                if (a.connected()) {
                    if (cmd.stdioForward == null && !sendForwards(a.client(), true, config, log, false)) {
                        // as ssh's muxclient: nothing is shared, and a login of this process's own carries out
                        // the forwardings (ExitOnForwardFailure applies to it as to any login)
                        a.client().close();
                        log.error("muxclient: master forward request failed");
                        return Optional.empty();
                    }
                    return Optional.of(passenger(a.client(), cmd, config, log));
                }
                // ssh's cases: a stale socket is unlinked quietly (unless ControlMaster no), a missing one is normal
                boolean stale = a.errno() == ECONNREFUSED;
                if (a.errno() != 0 && a.errno() != ENOENT && (!stale || mode == MasterMode.NO)) {
                    log.error("Control socket connect(" + path + "): " + a.reason());
                }
            }
            if (mode != MasterMode.NO && persist != null) {
                return Optional.of(persistInBackground(cmd, config, log));
            }
            return Optional.empty();
        } catch (MuxClient.MuxFailure e) {
            log.fatal(e.getMessage());
            return Optional.of(255);
        }
    }

    /**
     * {@code -O check|exit|stop}: ssh's messages, on stderr with CR LF as ssh prints them; {@code -O
     * conninfo|channels}: the master's answer on stdout (OpenSSH 10.3's "info" extension).
     */
    private int control(ClientConfig config, ClientLog log) throws MuxClient.MuxFailure, ConfigException {
        MuxClient.Attempt a = MuxClient.connect(path, false, log);
        if (!a.connected()) {
            log.fatal("Control socket connect(" + path + "): " + a.reason());
            return 255;
        }
        try (MuxClient c = a.client()) {
            switch (muxCommand) {
                case "check" -> {
                    long pid = c.aliveCheck();
                    System.err.print("Master running (pid=" + pid + ")\r\n");
                }
                case "exit" -> {
                    c.terminate();
                    if (!log.quiet()) {
                        System.err.print("Exit request sent.\r\n");
                    }
                }
                case "stop" -> {
                    c.stopListening();
                    if (!log.quiet()) {
                        System.err.print("Stop listening request sent.\r\n");
                    }
                }
                case "forward", "cancel" -> {
                    return forwards(c, muxCommand.equals("forward"), config, log);
                }
                case "conninfo", "channels" -> {
                    // as ssh's muxclient: the master's text on stdout as it comes (CR LF line ends)
                    System.out.print(c.info(muxCommand.equals("conninfo") ? "connection" : "channels"));
                    System.out.flush();
                    return 0;
                }
                default -> throw new IllegalStateException(muxCommand);
            }
            System.err.flush();
            return 0;
        }
    }

    /**
     * {@code -O forward|cancel}: as ssh's {@code mux_client_forwards}, then for forward its fatal line and 255 when
     * any was refused, for cancel an error line and still 0 (OpenSSH 9.2 exits 0 there).
     */
    private static int forwards(MuxClient c, boolean open, ClientConfig config, ClientLog log)
            throws ConfigException {
        if (sendForwards(c, open, config, log, open)) {
            return 0;
        }
        if (open) {
            log.fatal("muxclient: master forward request failed");
            return 255;
        }
        log.error("muxclient: master cancel forward request failed");
        return 0;
    }

    /**
     * Each -L/-D, then each -R (command line and LocalForward...) sent to the master, as ssh's
     * {@code mux_client_forwards}: every one is tried, a refusal is ssh's error line; false if any was refused.
     * {@code printPort}: the port of a {@code -R 0:…} on stdout ({@code -O forward}); else only {@code -v} says it.
     */
    private static boolean sendForwards(MuxClient c, boolean open, ClientConfig config, ClientLog log,
            boolean printPort) throws ConfigException {
        boolean ok = true;
        List<ForwardSpec> all = new ArrayList<>(config.forwards());
        all.sort(java.util.Comparator.comparing(f -> f.kind() == ForwardSpec.Kind.REMOTE));
        for (ForwardSpec f : all) {
            log.debug1("Requesting " + (open ? "forwarding of " : "cancellation of ")
                    + f.kind().name().toLowerCase(Locale.ROOT) + " forward " + f);
            try {
                int port = c.forward(open, f);
                if (port >= 0) {
                    log.debug1("Allocated port " + port + " for remote forward to "
                            + (f.targetHost() == null ? "" : f.targetHost()) + ":"
                            + (f.targetPort() == null ? 0 : f.targetPort()));
                    if (printPort) {
                        System.out.println(port);
                        System.out.flush();
                    }
                }
            } catch (MuxClient.MuxFailure e) {
                log.error(e.getMessage());
                ok = false;
            }
        }
        return ok;
    }

    /** A session (or -W) through the master, with this process's stdin, stdout and stderr. */
    private static int passenger(MuxClient c, SshCommand cmd, ClientConfig config, ClientLog log)
            throws MuxClient.MuxFailure, ConfigException {
        try (c) {
            if (cmd.stdioForward != null) {
                io.pqssh.client.forward.StdioForward f = io.pqssh.client.forward.StdioForward.parse(cmd.stdioForward);
                return c.stdioForward(f.host(), f.port(), log);
            }
            String sessionType = config.string("SessionType").orElse("default").toLowerCase(Locale.ROOT);
            if (sessionType.equals("none")) {
                log.debug1("mux: -N with a live master: nothing to request");
                return 0;
            }
            String command = cmd.command.isEmpty() ? config.string("RemoteCommand").orElse(null)
                    : String.join(" ", cmd.command);
            boolean subsystem = sessionType.equals("subsystem");
            if (subsystem && command == null) {
                throw new ConfigException("-s: a subsystem name is required");
            }
            boolean stdinNull = config.flag("StdinNull", false);
            boolean stdinTty = Terminals.stdinIsTerminal();
            SessionRunner.Tty t = SshCommand.tty(config);
            boolean tty = switch (t) {
                case NO -> false;
                case FORCE -> true;
                case YES -> stdinTty && !stdinNull;
                case AUTO -> command == null && stdinTty && !stdinNull;
            };
            if (!tty && t != SessionRunner.Tty.NO && (t == SessionRunner.Tty.YES || command == null)
                    && (!stdinTty || stdinNull)) {
                log.error("Pseudo-terminal will not be allocated because stdin is not a terminal.");
            }
            Map<String, String> env = SshCommand.environment(config);
            List<String> envList = new ArrayList<>();
            env.forEach((k, v) -> envList.add(k + "=" + v));
            String term = env.getOrDefault("TERM", System.getenv("TERM"));
            MuxClient.SessionRequest r = new MuxClient.SessionRequest(tty, config.flag("ForwardX11", false),
                    config.flag("ForwardAgent", false),
                    subsystem, config.escapeChar(), term, command == null ? "" : command, envList, stdinNull);
            Runnable[] restore = new Runnable[1];
            int rc = c.session(r, raw -> {
                if (raw && Terminals.stdinIsTerminal()) {
                    restore[0] = Terminals.rawStdin();
                    log.rawTerminal(restore[0] != null);
                } else if (!raw && restore[0] != null) {
                    restore[0].run();
                    restore[0] = null;
                    log.rawTerminal(false);
                }
            }, log);
            if (tty) {
                log.error("Shared connection to " + config.hostName() + " closed.");
            }
            return rc;
        }
    }

    /**
     * ControlPersist: this program again in the background as the master (it logs in; prompts still reach the
     * terminal), then this process's own session through it, as ssh's foreground after its fork.
     */
    private int persistInBackground(SshCommand cmd, ClientConfig config, ClientLog log)
            throws MuxClient.MuxFailure, ConfigException {
        int rc = Background.launch(System.err, Map.of(PERSIST_ENV, "1"));
        if (rc != 0) {
            return rc;
        }
        String sessionType = config.string("SessionType").orElse("default").toLowerCase(Locale.ROOT);
        if (sessionType.equals("none") && cmd.stdioForward == null) {
            return 0;
        }
        MuxClient.Attempt a = MuxClient.connect(path, false, log);
        if (!a.connected()) {
            log.fatal("Failed to connect to new control master");
            return 255;
        }
        return passenger(a.client(), cmd, config, log);
    }

    /** After authenticating: the master socket when this process is to be the master; null otherwise. */
    MuxMaster startMaster(ClientSession session, ClientConfig config, ClientLog log) throws ConfigException {
        if (path == null || mode == MasterMode.NO || muxCommand != null) {
            return null;
        }
        List<String> sendEnv = new ArrayList<>();
        for (OptionValue v : config.values("SendEnv")) {
            sendEnv.addAll(v.args());
        }
        MuxMaster.Options o = new MuxMaster.Options(name -> sendEnv.stream().anyMatch(pat -> !pat.startsWith("-")
                && Patterns.glob(name, pat)), config.flag("ForwardAgent", false), Duration.ofSeconds(60));
        try {
            return MuxMaster.start(session, path, o, log);
        } catch (IOException e) {
            throw new ConfigException(e.getMessage(), e);
        }
    }

    /** ControlPersist's master after logging in: detached, stdio on /dev/null, until -O exit or idle. */
    int persist(MuxMaster m, ClientLog log) {
        Background.detach();
        io.pqssh.client.mux.UnixSocket.stdioToDevNull(log.debugEnabled(1));
        try {
            m.awaitEnd(persist.isZero() ? null : persist);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            m.close();
        }
        return 0;
    }
}
