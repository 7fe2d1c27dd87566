package io.pqssh.client.ssh;

import java.util.List;

import org.apache.sshd.client.session.ClientSession;

import io.pqssh.client.config.ClientConfig;
import io.pqssh.client.config.ConfigException;
import io.pqssh.client.config.ForwardSpec;
import io.pqssh.client.config.Validators;

/**
 * Where port forwarding ({@code -L/-R/-D}, {@code LocalForward/RemoteForward/DynamicForward}) and agent forwarding
 * ({@code -A}, {@code ForwardAgent}) plug into {@code pqssh ssh}: {@link #checkSupported} runs before connecting,
 * {@link #start} after authentication. Until they are carried out, asking for them is an error rather than being
 * ignored. A session whose host key changed under {@code StrictHostKeyChecking no} gets no forwarding
 * ({@link HostKeyCheck#HOST_KEY_CHANGED}), as in OpenSSH.
 */
public final class Forwarding {
    /** Set on a session whose shell/exec channel asks for agent forwarding ({@code auth-agent-req@openssh.com}). */
    public static final org.apache.sshd.common.AttributeRepository.AttributeKey<Boolean> FORWARD_AGENT =
            new org.apache.sshd.common.AttributeRepository.AttributeKey<>();

    /** ssh's compiled-in XAuthLocation. */
    static final String XAUTH_LOCATION = "/usr/bin/xauth";
    /** ssh's ForwardX11Timeout default: 20 minutes. */
    static final long DEFAULT_X11_TIMEOUT_SECONDS = 1200;

    private Forwarding() {
    }

    public static void checkSupported(ClientConfig config) throws ConfigException {
        config.forwards();
        config.permitRemoteOpen();
        String agent = config.string("ForwardAgent").orElse("no").toLowerCase(java.util.Locale.ROOT);
        if (!List.of("yes", "no", "true", "false").contains(agent)) {
            throw new ConfigException("ForwardAgent " + agent + ": only yes and no are supported (the agent is"
                    + " SSH_AUTH_SOCK or IdentityAgent)");
        }
    }

    /**
     * Starts the port forwardings; they live as long as the session (MINA closes the listeners with it).
     *
     * @throws java.io.IOException when one failed and {@code ExitOnForwardFailure yes}
     */
    public static void start(ClientSession session, ClientConfig config, ClientLog log)
            throws ConfigException, java.io.IOException {
        session.setAttribute(io.pqssh.client.x11.X11Forwarding.LOG, log);
        if (Boolean.TRUE.equals(session.getAttribute(HostKeyCheck.HOST_KEY_CHANGED))) {
            log.debug1("host key changed: no forwarding on this connection");
            if (config.flag("ForwardX11", false)) {
                log.error("X11 forwarding is disabled to avoid man-in-the-middle attacks.");
            }
            if (!config.forwards().isEmpty()) {
                log.error("Port forwarding is disabled to avoid man-in-the-middle attacks.");
            }
            return;
        }
        if (config.flag("ForwardX11", false)) {
            String xauth = config.string("XAuthLocation").orElse(XAUTH_LOCATION);
            io.pqssh.client.x11.X11Forwarding x11 = io.pqssh.client.x11.X11Forwarding.prepare(
                    System.getenv("DISPLAY"), xauth.equalsIgnoreCase("none") ? null : config.path(xauth),
                    config.flag("ForwardX11Trusted", true), config.string("ForwardX11Timeout")
                            .map(Validators::parseSeconds).orElse(DEFAULT_X11_TIMEOUT_SECONDS), log);
            if (x11 != null) {
                x11.install(session);
            }
        }
        if (config.flag("ForwardAgent", false)) {
            if (session.getFactoryManager().getAgentFactory() == null) {
                log.debug1("ForwardAgent: no agent (SSH_AUTH_SOCK unset or IdentityAgent none)");
            } else {
                session.setAttribute(FORWARD_AGENT, Boolean.TRUE);
            }
        }
        // started even without forwardings: ~C and the mux's -O forward add to it
        List<ForwardSpec> specs = config.forwards();
        for (ForwardSpec s : specs) {
            if (s.kind() == ForwardSpec.Kind.REMOTE || s.bindPath() != null || s.targetPath() != null) {
                log.debug1("forwarding " + s.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + s);
            } // TCP -L and -D print ssh's own lines as they start
        }
        io.pqssh.client.forward.PortForwards.start(session, specs, config.flag("GatewayPorts", false),
                config.flag("ExitOnForwardFailure", false), config.permitRemoteOpen(),
                new io.pqssh.client.forward.PortForwards.UnixSockets(config.streamLocalBindMask(),
                        config.flag("StreamLocalBindUnlink", false)), log::error,
                (message, level) -> {
                    if (level <= 1) {
                        log.debug1(message);
                    } else {
                        log.debug2(message);
                    }
                });
    }
}
