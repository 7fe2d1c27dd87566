package io.pqssh.cli.ssh;

import java.util.List;

import org.apache.sshd.client.session.ClientSession;

import io.pqssh.cli.config.ClientConfig;
import io.pqssh.cli.config.ConfigException;
import io.pqssh.cli.config.ForwardSpec;

/**
 * Where port forwarding ({@code -L/-R/-D}, {@code LocalForward/RemoteForward/DynamicForward}) and agent forwarding
 * ({@code -A}, {@code ForwardAgent}) plug into {@code pqssh ssh}: {@link #checkSupported} runs before connecting,
 * {@link #start} after authentication. Until they are carried out, asking for them is an error rather than being
 * ignored. A session whose host key changed under {@code StrictHostKeyChecking no} gets no forwarding
 * ({@link HostKeyCheck#HOST_KEY_CHANGED}), as in OpenSSH.
 */
public final class Forwarding {
    private Forwarding() {
    }

    public static void checkSupported(ClientConfig config) throws ConfigException {
        io.pqssh.cli.forward.PortForwards.checkSupported(config.forwards());
        String agent = config.string("ForwardAgent").orElse("no");
        if (!agent.equalsIgnoreCase("no") && !agent.equalsIgnoreCase("false")) {
            throw new ConfigException("ForwardAgent " + agent + ": agent forwarding is not implemented yet in"
                    + " pqssh ssh");
        }
    }

    /**
     * Starts the port forwardings; they live as long as the session (MINA closes the listeners with it).
     *
     * @throws java.io.IOException when one failed and {@code ExitOnForwardFailure yes}
     */
    public static void start(ClientSession session, ClientConfig config, ClientLog log)
            throws ConfigException, java.io.IOException {
        if (Boolean.TRUE.equals(session.getAttribute(HostKeyCheck.HOST_KEY_CHANGED))) {
            log.debug1("host key changed: no forwarding on this connection");
            if (!config.forwards().isEmpty()) {
                log.error("Port forwarding is disabled to avoid man-in-the-middle attacks.");
            }
            return;
        }
        List<ForwardSpec> specs = config.forwards();
        if (specs.isEmpty()) {
            return;
        }
        for (ForwardSpec s : specs) {
            log.debug1("forwarding " + s.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + s);
        }
        io.pqssh.cli.forward.PortForwards.start(session, specs, config.flag("GatewayPorts", false),
                config.flag("ExitOnForwardFailure", false), log::error);
    }
}
