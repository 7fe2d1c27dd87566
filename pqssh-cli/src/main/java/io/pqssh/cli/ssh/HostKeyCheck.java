package io.pqssh.cli.ssh;

import java.net.SocketAddress;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.Locale;

import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.config.keys.KeyUtils;

import io.pqssh.cli.config.ClientConfig.HostKeyChecking;

/**
 * {@code StrictHostKeyChecking} as OpenSSH 10 does it against one {@code known_hosts} file: an unknown key is
 * refused ({@code yes}), asked about on the terminal ({@code ask}, refused in batch mode or without a terminal), or
 * added ({@code accept-new}, {@code no}). A changed key is refused, except with {@code no}: then the connection
 * goes on after the warning, with password and keyboard-interactive authentication disabled and the
 * {@link #HOST_KEY_CHANGED} attribute set so that forwarding code disables agent and port forwarding too.
 */
public final class HostKeyCheck {
    /** Set on a session whose host key differs from the known one (accepted only under "no"). */
    public static final AttributeKey<Boolean> HOST_KEY_CHANGED = new AttributeKey<>();

    private HostKeyCheck() {
    }

    /**
     * @param hashNames {@code HashKnownHosts yes}: a new entry's host field is written hashed,
     *        {@code |1|base64(salt)|base64(HMAC-SHA1(salt, name))}, as ssh writes it (lookups match either form)
     */
    public static ServerKeyVerifier verifier(HostKeyChecking mode, Path knownHosts, boolean hashNames, String host,
            int port, boolean batchMode, ClientLog log, Prompter prompter) {
        String name = port == 22 ? host : "[" + host + "]:" + port;
        ServerKeyVerifier unknown = (ClientSession s, SocketAddress a, PublicKey k) -> {
            String type = label(k);
            switch (mode) {
                case NO, ACCEPT_NEW -> {
                    log.error("Warning: Permanently added '" + name + "' (" + type + ") to the list of known hosts.");
                    return true;
                }
                case YES -> {
                    log.fatal("No " + type + " host key is known for " + name
                            + " and you have requested strict checking.");
                    log.fatal("Host key verification failed.");
                    return false;
                }
                default -> {
                    String fp = KeyUtils.getFingerPrint(k);
                    if (batchMode || !prompter.hasTerminal()) {
                        log.fatal("No " + type + " host key is known for " + name + " (fingerprint " + fp + ")"
                                + (batchMode ? " and BatchMode is set" : " and there is no terminal to ask on") + ".");
                        log.fatal("Host key verification failed.");
                        return false;
                    }
                    String q = "The authenticity of host '" + name + "' can't be established.\n" + type
                            + " key fingerprint is " + fp + ".\n"
                            + "Are you sure you want to continue connecting (yes/no/[fingerprint])? ";
                    while (true) {
                        String answer = prompter.ask(q, true);
                        if (answer == null) {
                            log.fatal("Host key verification failed.");
                            return false;
                        }
                        String a2 = answer.strip();
                        if (a2.equalsIgnoreCase("yes") || a2.equals(fp)) {
                            log.error("Warning: Permanently added '" + name + "' (" + type
                                    + ") to the list of known hosts.");
                            return true;
                        }
                        if (a2.equalsIgnoreCase("no")) {
                            log.fatal("Host key verification failed.");
                            return false;
                        }
                        q = "Please type 'yes', 'no' or the fingerprint: ";
                    }
                }
            }
        };
        ClientLog clientLog = log;
        KnownHostsServerKeyVerifier v = new KnownHostsServerKeyVerifier(unknown, knownHosts) {
            @Override
            public boolean verifyServerKey(ClientSession s, SocketAddress a, PublicKey k) {
                clientLog.debug1("Server host key: " + KeyUtils.getKeyType(k) + " " + KeyUtils.getFingerPrint(k));
                boolean ok = super.verifyServerKey(s, a, k);
                if (ok && !Boolean.TRUE.equals(s.getAttribute(HOST_KEY_CHANGED))) {
                    clientLog.debug1("Host '" + name + "' is known and matches the " + label(k) + " host key"
                            + " (or was just added to " + knownHosts + ").");
                }
                return ok;
            }

            /** Through a jump host only the destination names the host, not the local forwarding's address. */
            @Override
            protected java.util.Collection<org.apache.sshd.common.util.net.SshdSocketAddress>
                    resolveHostNetworkIdentities(ClientSession s, SocketAddress a) {
                org.apache.sshd.common.util.net.SshdSocketAddress t =
                        s.getAttribute(org.apache.sshd.client.session.ClientSessionCreator.TARGET_SERVER);
                return t != null ? java.util.List.of(t) : super.resolveHostNetworkIdentities(s, a);
            }

            @Override
            protected org.apache.sshd.common.NamedFactory<org.apache.sshd.common.mac.Mac> getHostValueDigester(ClientSession s,
                    SocketAddress a, org.apache.sshd.common.util.net.SshdSocketAddress hostIdentity) {
                // HMAC-SHA1 with a salt of its block size (20 bytes): OpenSSH's "|1|" format
                return hashNames ? org.apache.sshd.client.config.hosts.KnownHostDigest.SHA1 : null;
            }

            @Override
            protected void updateModifiedServerKey(ClientSession s, SocketAddress a, PublicKey actual,
                    java.util.Collection<HostEntryPair> known, HostEntryPair match) {
                // OpenSSH never rewrites known_hosts for a changed key (MINA would): the warning must stay
            }
        };
        v.setModifiedServerKeyAcceptor((s, a, entry, expected, actual) -> {
            banner(log, name, actual, expected, knownHosts);
            if (mode != HostKeyChecking.NO) {
                log.fatal("Host key for " + name + " has changed and you have requested strict checking.");
                log.fatal("Host key verification failed.");
                return false;
            }
            // OpenSSH (sshconnect.c): under "no" the connection continues, but nothing a man in the middle could
            // capture is sent: no password, no keyboard-interactive answers, no agent, no forwarding
            log.fatal("Password authentication is disabled to avoid man-in-the-middle attacks.");
            log.fatal("Keyboard-interactive authentication is disabled to avoid man-in-the-middle attacks.");
            log.fatal("Agent forwarding is disabled to avoid man-in-the-middle attacks.");
            log.fatal("Port forwarding is disabled to avoid man-in-the-middle attacks.");
            // the user-auth service already holds its method list: ClientSetup's prompts read this attribute and
            // answer nothing, so no password or keyboard-interactive response leaves this client
            s.setAttribute(HOST_KEY_CHANGED, Boolean.TRUE);
            return true;
        });
        return v;
    }

    private static void banner(ClientLog log, String name, PublicKey actual, PublicKey expected, Path knownHosts) {
        log.fatal("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
        log.fatal("@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @");
        log.fatal("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
        log.fatal("IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!");
        log.fatal("Someone could be eavesdropping on you right now (man-in-the-middle attack)!");
        log.fatal("It is also possible that a host key has just been changed.");
        log.fatal("The fingerprint for the " + label(actual) + " key sent by the remote host " + name + " is");
        log.fatal(KeyUtils.getFingerPrint(actual) + ".");
        log.fatal("The key known for it in " + knownHosts + " is " + label(expected) + " "
                + KeyUtils.getFingerPrint(expected) + ".");
        log.fatal("Please contact your system administrator.");
        log.fatal("Add correct host key in " + knownHosts + " to get rid of this message.");
    }

    /** OpenSSH's label for a key type: ED25519, ECDSA, RSA, or the upper-cased name. */
    static String label(PublicKey k) {
        String t = KeyUtils.getKeyType(k);
        if (t == null) {
            return k.getAlgorithm().toUpperCase(Locale.ROOT);
        }
        if (t.equals("ssh-ed25519")) {
            return "ED25519";
        }
        if (t.startsWith("ecdsa-")) {
            return "ECDSA";
        }
        if (t.equals("ssh-rsa")) {
            return "RSA";
        }
        return t.replaceFirst("^ssh-", "").toUpperCase(Locale.ROOT);
    }
}
