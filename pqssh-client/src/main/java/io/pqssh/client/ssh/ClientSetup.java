package io.pqssh.client.ssh;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.UserAuth;
import org.apache.sshd.client.auth.UserAuthFactory;
import org.apache.sshd.client.auth.keyboard.UserAuthKeyboardInteractiveFactory;
import org.apache.sshd.client.auth.keyboard.UserInteraction;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.compression.BuiltinCompressions;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.mac.BuiltinMacs;
import org.apache.sshd.common.mac.Mac;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.core.CoreModuleProperties;

import io.pqssh.client.config.AlgorithmList;
import io.pqssh.client.config.ClientConfig;
import io.pqssh.client.config.ConfigException;
import io.pqssh.mina.kex.PqKex;

/**
 * Applies a {@link ClientConfig} to the MINA client behind {@code PqsshClient}: algorithm lists, compression,
 * keep-alives, password and keyboard-interactive prompts, and the {@code -v} debug lines (KEX, host key, methods
 * tried). MINA's own reading of {@code ~/.ssh/config} is switched off: pqssh's parser is the only one.
 */
public final class ClientSetup {
    /** The method that logged in, for "Authenticated to ... using". */
    public static final AttributeKey<String> AUTH_METHOD = new AttributeKey<>();

    /** Set when the session ended because ServerAliveCountMax keepalives went unanswered. */
    public static final AttributeKey<Boolean> SERVER_NOT_RESPONDING = new AttributeKey<>();

    /**
     * On the client (MINA's {@code SshClient}): the methods the server's last USERAUTH_FAILURE said can continue, for
     * ssh's final {@code user@host: Permission denied (publickey,publickey-kem).}
     */
    public static final AttributeKey<List<String>> SERVER_METHODS = new AttributeKey<>();

    /** The server's last list of methods that can continue, if a method was refused. */
    public static java.util.Optional<List<String>> serverMethods(org.apache.sshd.client.SshClient client) {
        return java.util.Optional.ofNullable(client.getAttribute(SERVER_METHODS));
    }

    /** MINA 2.20's text for the keepalive limit (ClientConnectionService), the only sign it gives of it. */
    private static final String MINA_HEARTBEAT_LIMIT = "heartbeat requests without reply";

    /** True when {@code session} was closed because the server stopped answering keepalives. */
    public static boolean serverNotResponding(ClientSession session) {
        return Boolean.TRUE.equals(session.getAttribute(SERVER_NOT_RESPONDING));
    }

    private ClientSetup() {
    }

    /** Resolves the KEX list ({@code +}/{@code -}/{@code ^} against the client's default list); null when unset. */
    public static List<String> kex(ClientConfig c) throws ConfigException {
        String spec = c.string("KexAlgorithms").orElse(null);
        if (spec == null) {
            return null;
        }
        List<String> supported = new ArrayList<>();
        for (String n : PqKex.knownNames()) {
            org.apache.sshd.common.kex.DHFactory f = org.apache.sshd.common.kex.BuiltinDHFactories.resolveFactory(n);
            if (f != null && f.isSupported()) {
                supported.add(n);
            }
        }
        return AlgorithmList.apply("KexAlgorithms", spec, io.pqssh.mina.internal.kex.KexInitDefaults.CLIENT_KEX, supported);
    }

    /** The customizer for {@code PqsshClient.Builder.customize}; config errors were checked by {@link #check}. */
    public static void apply(SshClient client, ClientConfig c, ClientLog log, Prompter prompter) {
        try {
            applyChecked(client, c, log, prompter);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static void applyChecked(SshClient client, ClientConfig c, ClientLog log, Prompter prompter)
            throws ConfigException {
        client.setHostConfigEntryResolver(HostConfigEntryResolver.EMPTY);
        // -R connections (forwarded-tcpip, forwarded-streamlocal) are served by pqssh's own relay, which also does
        // remote dynamic (SOCKS) forwarding and passes half-closes through; MINA's forwarded-tcpip factory is replaced
        List<org.apache.sshd.common.channel.ChannelFactory> channels =
                new ArrayList<>(io.pqssh.common.forward.RemoteForwards.CHANNEL_FACTORIES);
        // x11 channels: served only when this session asked for X11 forwarding (ssh's warning otherwise)
        channels.add(io.pqssh.client.x11.X11Forwarding.CHANNEL_FACTORY);
        client.setChannelFactories(channels);

        List<NamedFactory<Signature>> allSigs = new ArrayList<>(client.getSignatureFactories());
        List<String> sigNames = names(allSigs);
        boolean hostKeyAlgsSet = c.string("HostKeyAlgorithms").isPresent();
        if (hostKeyAlgsSet) {
            client.setSignatureFactories(select(allSigs, AlgorithmList.apply("HostKeyAlgorithms",
                    c.string("HostKeyAlgorithms").get(), sigNames, sigNames)));
        }
        // MINA signs user keys with the session's signature list unless the publickey method has its own: give it
        // one when PubkeyAcceptedAlgorithms is set, or when HostKeyAlgorithms narrowed the session's list
        List<NamedFactory<Signature>> pubkeySigs = null;
        if (c.string("PubkeyAcceptedAlgorithms").isPresent()) {
            pubkeySigs = select(allSigs, AlgorithmList.apply("PubkeyAcceptedAlgorithms",
                    c.string("PubkeyAcceptedAlgorithms").get(), sigNames, sigNames));
        } else if (hostKeyAlgsSet) {
            pubkeySigs = allSigs;
        }

        List<NamedFactory<Cipher>> ciphers = new ArrayList<>(client.getCipherFactories());
        List<String> supportedCiphers = new ArrayList<>();
        for (BuiltinCiphers b : BuiltinCiphers.VALUES) {
            if (b.isSupported() && b != BuiltinCiphers.none) {
                supportedCiphers.add(b.getName());
            }
        }
        if (c.string("Ciphers").isPresent()) {
            List<String> l = AlgorithmList.apply("Ciphers", c.string("Ciphers").get(), names(ciphers),
                    supportedCiphers);
            List<NamedFactory<Cipher>> out = new ArrayList<>();
            for (String n : l) {
                out.add(io.pqssh.common.cipher.TransportCiphers.byName(n));
            }
            client.setCipherFactories(out);
        }
        List<NamedFactory<Mac>> macs = new ArrayList<>(client.getMacFactories());
        List<String> supportedMacs = new ArrayList<>();
        for (BuiltinMacs b : BuiltinMacs.VALUES) {
            if (b.isSupported()) {
                supportedMacs.add(b.getName());
            }
        }
        if (c.string("MACs").isPresent()) {
            List<String> l = AlgorithmList.apply("MACs", c.string("MACs").get(), names(macs), supportedMacs);
            List<NamedFactory<Mac>> out = new ArrayList<>();
            for (String n : l) {
                out.add(BuiltinMacs.fromFactoryName(n));
            }
            client.setMacFactories(out);
        }
        if (c.flag("Compression", false)) {
            // OpenSSH 10: "zlib@openssh.com,none"; without it the client's default list stays
            client.setCompressionFactories(List.of(BuiltinCompressions.delayedZlib, BuiltinCompressions.none));
        }

        long alive = c.serverAliveIntervalSeconds();
        if (alive > 0) {
            CoreModuleProperties.HEARTBEAT_INTERVAL.set(client, Duration.ofSeconds(alive));
            CoreModuleProperties.HEARTBEAT_REQUEST.set(client, "keepalive@openssh.com");
            CoreModuleProperties.HEARTBEAT_NO_REPLY_MAX.set(client, c.serverAliveCountMax());
        }
        CoreModuleProperties.SOCKET_KEEPALIVE.set(client, c.flag("TCPKeepAlive", true));
        // RekeyLimit: 0 turns a limit off (OpenSSH's "none"); MINA reads 0 or less as no limit as well
        c.rekeyBytes().ifPresent(b -> CoreModuleProperties.REKEY_BYTES_LIMIT.set(client, b));
        c.rekeySeconds().ifPresent(t -> CoreModuleProperties.REKEY_TIME_LIMIT.set(client, Duration.ofSeconds(t)));

        // authentication: the publickey method gets its own signature list (PubkeyAcceptedAlgorithms), so
        // HostKeyAlgorithms does not restrict user keys; keyboard-interactive when allowed
        List<UserAuthFactory> auth = new ArrayList<>();
        for (UserAuthFactory f : client.getUserAuthFactories()) {
            if (pubkeySigs != null && f instanceof io.pqssh.client.DirectSignUserAuthPublicKey.Factory d) {
                d.setSignatureFactories(pubkeySigs);
                auth.add(d);
            } else if (pubkeySigs != null && f instanceof UserAuthPublicKeyFactory) {
                auth.add(new UserAuthPublicKeyFactory(pubkeySigs));
            } else {
                auth.add(f);
            }
        }
        if (c.flag("KbdInteractiveAuthentication", true)) {
            auth.add(UserAuthKeyboardInteractiveFactory.INSTANCE);
        }
        List<UserAuthFactory> logged = new ArrayList<>();
        for (UserAuthFactory f : auth) {
            logged.add(new LoggingFactory(f, log));
        }
        client.setUserAuthFactories(logged);
        client.setUserInteraction(new Interaction(c, prompter, log));
        client.addSessionListener(new DebugListener(log, c.hostName()));
    }

    private interface CheckedSupplier<T> {
        T get() throws ConfigException;
    }

    private static <T> T unchecked(CheckedSupplier<T> s) {
        try {
            return s.get();
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static <T extends NamedFactory<?>> List<String> names(List<T> l) {
        List<String> out = new ArrayList<>();
        l.forEach(f -> out.add(f.getName()));
        return out;
    }

    private static <T> List<NamedFactory<T>> select(List<NamedFactory<T>> all, List<String> names) {
        List<NamedFactory<T>> out = new ArrayList<>();
        for (String n : names) {
            for (NamedFactory<T> f : all) {
                if (f.getName().equals(n)) {
                    out.add(f);
                    break;
                }
            }
        }
        return out;
    }

    /**
     * Text from the server for the user's terminal, as OpenSSH's fmprintf shows it: printable characters (UTF-8
     * included), newline and tab as they are; every other control character as a backslash and three octal digits
     * ({@code \033} for ESC), so that no escape sequence reaches the terminal.
     */
    public static String visible(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            boolean control = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (c >= 0x80 && c < 0xa0);
            if (control) {
                out.append('\\').append(String.format("%03o", c & 0xff));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    /** "Next authentication method", "Authentications that can continue", as ssh -v. */
    private static final class LoggingFactory implements UserAuthFactory {
        private final UserAuthFactory delegate;
        private final ClientLog log;

        LoggingFactory(UserAuthFactory delegate, ClientLog log) {
            this.delegate = delegate;
            this.log = log;
        }

        @Override
        public String getName() {
            return delegate.getName();
        }

        @Override
        public UserAuth createUserAuth(ClientSession session) throws java.io.IOException {
            UserAuth a = delegate.createUserAuth(session);
            String name = getName();
            return new UserAuth() {
                @Override
                public ClientSession getClientSession() {
                    return a.getClientSession();
                }

                @Override
                public ClientSession getSession() {
                    return a.getSession();
                }

                @Override
                public String getName() {
                    return a.getName();
                }

                @Override
                public void init(ClientSession s, String service) throws Exception {
                    log.debug1("Next authentication method: " + name);
                    a.init(s, service);
                }

                @Override
                public boolean process(Buffer buffer) throws Exception {
                    return a.process(buffer);
                }

                @Override
                public void signalAuthMethodSuccess(ClientSession s, String service, Buffer buffer)
                        throws Exception {
                    s.setAttribute(AUTH_METHOD, name);
                    a.signalAuthMethodSuccess(s, service, buffer);
                }

                @Override
                public void signalAuthMethodFailure(ClientSession s, String service, boolean partial,
                        List<String> serverMethods, Buffer buffer) throws Exception {
                    log.debug1((partial ? "Authenticated using \"" + name + "\" with partial success. " : "")
                            + "Authentications that can continue: " + String.join(",", serverMethods));
                    s.getFactoryManager().setAttribute(SERVER_METHODS, List.copyOf(serverMethods));
                    a.signalAuthMethodFailure(s, service, partial, serverMethods, buffer);
                }

                @Override
                public boolean isCancellable() {
                    return a.isCancellable();
                }

                @Override
                public void destroy() {
                    a.destroy();
                }
            };
        }
    }

    /** Password and keyboard-interactive prompts through {@link Prompter}; none in batch mode. */
    private static final class Interaction implements UserInteraction {
        private final ClientConfig config;
        private final Prompter prompter;
        private final ClientLog log;
        private final AtomicInteger passwordPrompts = new AtomicInteger();

        Interaction(ClientConfig config, Prompter prompter, ClientLog log) {
            this.config = config;
            this.prompter = prompter;
            this.log = log;
        }

        @Override
        public boolean isInteractionAllowed(ClientSession session) {
            return prompter.canAsk() && !hostKeyChanged(session);
        }

        /** OpenSSH: after a changed host key accepted under "no", no password or keyboard-interactive answer. */
        private static boolean hostKeyChanged(ClientSession session) {
            return Boolean.TRUE.equals(session.getAttribute(HostKeyCheck.HOST_KEY_CHANGED));
        }

        @Override
        public void welcome(ClientSession session, String banner, String lang) {
            if (!log.quiet()) {
                // a hostile banner must not drive the user's terminal (escape sequences): made visible, as ssh
                System.err.print(visible(banner));
                System.err.flush();
            }
        }

        @Override
        public String[] interactive(ClientSession session, String name, String instruction, String lang,
                String[] prompt, boolean[] echo) {
            if (!prompter.canAsk() || hostKeyChanged(session)) {
                return null;
            }
            if (name != null && !name.isEmpty()) {
                System.err.println(name);
            }
            if (instruction != null && !instruction.isEmpty()) {
                System.err.println(instruction);
            }
            String[] answers = new String[prompt.length];
            for (int i = 0; i < prompt.length; i++) {
                // OpenSSH 8.4+ names the account and host before each keyboard-interactive prompt
                String shown = "(" + config.user() + "@" + config.hostName() + ") " + prompt[i];
                if (echo[i]) {
                    answers[i] = prompter.ask(shown, true);
                } else {
                    char[] s = prompter.secret(shown);
                    answers[i] = s == null ? null : new String(s);
                    if (s != null) {
                        Arrays.fill(s, '\0');
                    }
                }
                if (answers[i] == null) {
                    return null;
                }
            }
            return answers;
        }

        @Override
        public String getUpdatedPassword(ClientSession session, String prompt, String lang) {
            return null; // password change requests are refused, as ssh does when it cannot ask
        }

        @Override
        public String resolveAuthPasswordAttempt(ClientSession session) {
            int max = config.string("NumberOfPasswordPrompts").map(Integer::parseInt).orElse(3);
            if (!prompter.canAsk() || hostKeyChanged(session) || passwordPrompts.incrementAndGet() > max) {
                return null;
            }
            if (passwordPrompts.get() > 1) {
                System.err.println("Permission denied, please try again.");
            }
            char[] s = prompter.secret(config.user() + "@" + config.hostName() + "'s password: ");
            if (s == null) {
                return null;
            }
            String p = new String(s);
            Arrays.fill(s, '\0');
            return p;
        }
    }

    /** ssh -v's transport lines. */
    private static final class DebugListener implements SessionListener {
        private final ClientLog log;
        private final String host;

        DebugListener(ClientLog log, String host) {
            this.log = log;
            this.host = host;
        }

        @Override
        public void sessionPeerIdentificationReceived(Session session, String version, List<String> extraLines) {
            log.debug1("Remote protocol version 2.0, remote software version "
                    + version.replaceFirst("^SSH-2\\.0-", ""));
        }

        @Override
        public void sessionPeerIdentificationSend(Session session, String version, List<String> extraLines) {
            log.debug1("Local version string " + version);
        }

        @Override
        public void sessionNegotiationEnd(Session session, Map<KexProposalOption, String> clientProposal,
                Map<KexProposalOption, String> serverProposal, Map<KexProposalOption, String> negotiated,
                Throwable reason) {
            if (negotiated == null || reason != null) {
                if (reason != null) {
                    log.debug1("kex: negotiation failed: " + reason.getMessage());
                }
                return;
            }
            if (log.debugEnabled(2)) {
                log.debug2("local client KEXINIT proposal: KEX algorithms: "
                        + clientProposal.get(KexProposalOption.ALGORITHMS));
                log.debug2("peer server KEXINIT proposal: KEX algorithms: "
                        + serverProposal.get(KexProposalOption.ALGORITHMS));
                log.debug2("peer server KEXINIT proposal: host key algorithms: "
                        + serverProposal.get(KexProposalOption.SERVERKEYS));
            }
            log.debug1("kex: algorithm: " + negotiated.get(KexProposalOption.ALGORITHMS));
            log.debug1("kex: host key algorithm: " + negotiated.get(KexProposalOption.SERVERKEYS));
            log.debug1("kex: server->client cipher: " + negotiated.get(KexProposalOption.S2CENC) + " MAC: "
                    + mac(negotiated.get(KexProposalOption.S2CENC), negotiated.get(KexProposalOption.S2CMAC))
                    + " compression: " + negotiated.get(KexProposalOption.S2CCOMP));
            log.debug1("kex: client->server cipher: " + negotiated.get(KexProposalOption.C2SENC) + " MAC: "
                    + mac(negotiated.get(KexProposalOption.C2SENC), negotiated.get(KexProposalOption.C2SMAC))
                    + " compression: " + negotiated.get(KexProposalOption.C2SCOMP));
        }

        private static String mac(String cipher, String mac) {
            return cipher != null && (cipher.contains("gcm") || cipher.contains("chacha")) ? "<implicit>" : mac;
        }

        @Override
        public void sessionEvent(Session session, Event event) {
            if (event == Event.KexCompleted) {
                log.debug1("SSH2_MSG_NEWKEYS received; key exchange done");
            } else if (event == Event.Authenticated) {
                log.debug2("authenticated");
            }
        }

        @Override
        public void sessionException(Session session, Throwable t) {
            if (t != null && t.getMessage() != null
                    && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains(MINA_HEARTBEAT_LIMIT)) {
                // ssh's line, printed here, before MINA closes the session: printed once the channel was seen
                // closed, it raced the close and was lost now and then under load (CI, ServerAliveTest)
                if (session.setAttribute(SERVER_NOT_RESPONDING, Boolean.TRUE) == null) {
                    log.error("Timeout, server " + host + " not responding.");
                }
            }
            log.debug1("session error: " + (t == null ? "?" : t.getMessage()));
        }

        @Override
        public void sessionDisconnect(Session session, int reason, String msg, String language,
                boolean initiator) {
            log.debug1((initiator ? "sending" : "received") + " disconnect (reason " + reason + "): " + msg);
        }
    }
}
