package io.pqssh.client.ssh;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import io.pqssh.client.config.ClientConfig.HostKeyChecking;
import io.pqssh.client.keys.KnownHostsFiles;

/**
 * {@code StrictHostKeyChecking} as OpenSSH 10 does it against the user's and the global {@code known_hosts} files
 * ({@link KnownHostsFiles}: host patterns, hashed names, {@code @revoked}): a revoked key is refused; an unknown key is
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
     * @param userFiles {@code UserKnownHostsFile}: read, and the first one receives new keys (none: nothing is
     *        recorded, so an unknown key fails as in ssh)
     * @param globalFiles {@code GlobalKnownHostsFile}: read only
     * @param hashNames {@code HashKnownHosts yes}: a new entry's host field is written hashed,
     *        {@code |1|base64(salt)|base64(HMAC-SHA1(salt, name))}, as ssh writes it (lookups match either form)
     */
    public static ServerKeyVerifier verifier(HostKeyChecking mode, List<Path> userFiles, List<Path> globalFiles,
            boolean hashNames, String host, int port, boolean batchMode, ClientLog log, Prompter prompter) {
        return verifier(mode, userFiles, globalFiles, hashNames, host, port, batchMode, log, prompter,
                new Enabled(true, true, false));
    }

    /**
     * What this connection would send that a man in the middle could use; under {@code StrictHostKeyChecking no}
     * ssh names each one it turns off for a changed or revoked key, and only those that were on. Port forwarding is
     * named by {@link Forwarding#start}, which holds the forwards.
     */
    public record Enabled(boolean password, boolean keyboardInteractive, boolean agentForwarding) {
    }

    /** {@code CASignatureAlgorithms}: the signature algorithms a host certificate's CA may have used (null: any). */
    private static volatile List<String> caSignatureAlgorithms;

    /** Sets {@code CASignatureAlgorithms} for the verifiers made afterwards (null: OpenSSH's default, any). */
    public static void caSignatureAlgorithms(List<String> algorithms) {
        caSignatureAlgorithms = algorithms == null ? null : List.copyOf(algorithms);
    }

    public static ServerKeyVerifier verifier(HostKeyChecking mode, List<Path> userFiles, List<Path> globalFiles,
            boolean hashNames, String host, int port, boolean batchMode, ClientLog log, Prompter prompter,
            Enabled enabled) {
        String name = KnownHostsFiles.hostName(host, port);
        List<Path> all = new ArrayList<>(userFiles);
        all.addAll(globalFiles);
        List<String> caAlgorithms = caSignatureAlgorithms;
        ServerKeyVerifier check = (ClientSession s, SocketAddress a, PublicKey presented) -> {
            PublicKey k = presented instanceof org.apache.sshd.common.config.keys.OpenSshCertificate c
                    ? c.getCertPubKey() : presented;
            byte[] blob = blob(k);
            java.util.Optional<io.pqssh.core.cert.SshCertificate> cert = HostCertificateCheck.of(s, presented, blob);
            if (cert.isPresent()) {
                log.debug1("Server host certificate: " + HostCertificateCheck.describe(cert.get()));
                CertVerdict cv = certificate(cert.get(), all, host, port, name, caAlgorithms, log);
                if (cv == CertVerdict.OK) {
                    return true;
                }
                if (cv == CertVerdict.REVOKED) {
                    return revoked(s, log, mode, enabled, label(cert.get().keyType()) + "-CERT", name);
                }
                log.debug1("No matching CA found. Retry with plain key");
            } else {
                log.debug1("Server host key: " + KeyUtils.getKeyType(k) + " " + KeyUtils.getFingerPrint(k));
            }
            KnownHostsFiles.Verdict v = KnownHostsFiles.load(all, name).check(blob);
            if (v.status() == KnownHostsFiles.Status.NEW && port != 22 && port > 0) {
                // as ssh's "checking without port identifier": a key recorded for the bare name is good for any port
                KnownHostsFiles.Verdict bare = KnownHostsFiles.load(all, KnownHostsFiles.hostName(host, 22)).check(blob);
                if (bare.status() == KnownHostsFiles.Status.OK) {
                    log.debug1("found matching key w/out port");
                    v = bare;
                }
            }
            return switch (v.status()) {
                case OK -> {
                    log.debug1("Host '" + name + "' is known and matches the " + label(k) + " host key.");
                    log.debug1("Found key in " + v.line().file() + ":" + v.line().number());
                    yield true;
                }
                case NEW -> unknown(mode, userFiles, hashNames, name, k, blob, batchMode, log, prompter);
                case REVOKED -> revoked(s, log, mode, enabled, label(k), name);
                case CHANGED -> {
                    changedBanner(log, name, k, v.line(), userFiles.isEmpty() ? globalFiles : userFiles);
                    if (mode != HostKeyChecking.NO) {
                        log.fatal("Host key for " + name + " has changed and you have requested strict checking.");
                        log.fatal("Host key verification failed.");
                        yield false;
                    }
                    yield continueUnsafe(s, log, enabled);
                }
            };
        };
        return (s, a, k) -> {
            boolean ok = check.verifyServerKey(s, a, k);
            if (!ok) {
                s.getFactoryManager().setAttribute(REFUSED, Boolean.TRUE);
            }
            return ok;
        };
    }

    /**
     * Set on the client (MINA's {@code SshClient}) when this verifier refused a host key, having printed ssh's
     * reason: MINA's exception then may carry its own certificate complaint, which ssh would not print.
     */
    public static final AttributeKey<Boolean> REFUSED = new AttributeKey<>();

    /** Whether a host key was refused (and the reason printed) on this client. */
    public static boolean refused(org.apache.sshd.client.SshClient client) {
        return client != null && Boolean.TRUE.equals(client.getAttribute(REFUSED));
    }

    /** How a host certificate stands: good, revoked (its key or its CA), or to be checked as its plain key. */
    private enum CertVerdict { OK, REVOKED, PLAIN }

    /**
     * OpenSSH's {@code check_host_key} for a certificate: an {@code @revoked} line for the certified key or for the
     * CA refuses it; a CA named by an {@code @cert-authority} line for the host (also without the port, as ssh
     * retries) makes it good if {@link HostCertificateCheck#problem} finds nothing; otherwise (unknown CA, or an
     * invalid certificate, whose reason ssh prints) the plain key is checked as if no certificate had been sent.
     */
    private static CertVerdict certificate(io.pqssh.core.cert.SshCertificate cert, List<Path> files, String host,
            int port, String name, List<String> caAlgorithms, ClientLog log) {
        List<String> names = new ArrayList<>(List.of(name));
        if (port != 22 && port > 0) {
            names.add(KnownHostsFiles.hostName(host, 22));
        }
        for (String n : names) {
            KnownHostsFiles known = KnownHostsFiles.load(files, n);
            if (known.revoked(cert.certifiedKey()) || known.revoked(cert.signatureKey())) {
                return CertVerdict.REVOKED;
            }
        }
        for (String n : names) {
            java.util.Optional<KnownHostsFiles.Line> ca = KnownHostsFiles.load(files, n)
                    .certAuthority(cert.signatureKey());
            if (ca.isEmpty()) {
                continue;
            }
            if (!n.equals(name)) {
                log.debug1("found matching key w/out port");
            }
            log.debug1("Host '" + n + "' is known and matches the " + label(cert.keyType())
                    + "-CERT host certificate.");
            log.debug1("Found CA key in " + ca.get().file() + ":" + ca.get().number());
            java.util.Optional<String> problem = HostCertificateCheck.problem(cert, host, java.time.Instant.now(),
                    caAlgorithms);
            if (problem.isEmpty()) {
                return CertVerdict.OK;
            }
            log.error(problem.get());
            return CertVerdict.PLAIN;
        }
        return CertVerdict.PLAIN;
    }

    /** ssh's revoked-key block; refused unless StrictHostKeyChecking is no. */
    private static boolean revoked(ClientSession s, ClientLog log, HostKeyChecking mode, Enabled enabled,
            String type, String name) {
        log.fatal("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
        log.fatal("@       WARNING: REVOKED HOST KEY DETECTED!               @");
        log.fatal("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
        log.fatal("The " + type + " host key for " + name + " is marked as revoked.");
        log.fatal("This could mean that a stolen key is being used to");
        log.fatal("impersonate this host.");
        if (mode != HostKeyChecking.NO) {
            log.fatal(type + " host key for " + name + " was revoked and you have requested strict checking.");
            log.fatal("Host key verification failed.");
            return false;
        }
        return continueUnsafe(s, log, enabled);
    }

    /**
     * OpenSSH (sshconnect.c): under "no" a changed or revoked key lets the connection continue, but nothing a man in
     * the middle could capture is sent: no password, no keyboard-interactive answers, no agent, no forwarding.
     */
    private static boolean continueUnsafe(ClientSession s, ClientLog log, Enabled enabled) {
        if (enabled.password()) {
            log.fatal("Password authentication is disabled to avoid man-in-the-middle attacks.");
        }
        if (enabled.keyboardInteractive()) {
            log.fatal("Keyboard-interactive authentication is disabled to avoid man-in-the-middle attacks.");
        }
        if (enabled.agentForwarding()) {
            log.fatal("Agent forwarding is disabled to avoid man-in-the-middle attacks.");
        }
        // the user-auth service already holds its method list: ClientSetup's prompts read this attribute and
        // answer nothing, so no password or keyboard-interactive response leaves this client
        s.setAttribute(HOST_KEY_CHANGED, Boolean.TRUE);
        return true;
    }

    private static boolean unknown(HostKeyChecking mode, List<Path> userFiles, boolean hashNames, String name,
            PublicKey k, byte[] blob, boolean batchMode, ClientLog log, Prompter prompter) {
        String type = label(k);
        if (userFiles.isEmpty()) {
            // ssh: with UserKnownHostsFile none a new key cannot be recorded, so it is not accepted either
            log.fatal("Host key verification failed.");
            return false;
        }
        switch (mode) {
            case NO, ACCEPT_NEW -> {
                return record(userFiles.get(0), hashNames, name, k, blob, log);
            }
            case YES -> {
                log.fatal("No " + type + " host key is known for " + name + " and you have requested strict checking.");
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
                        return record(userFiles.get(0), hashNames, name, k, blob, log);
                    }
                    if (a2.equalsIgnoreCase("no")) {
                        log.fatal("Host key verification failed.");
                        return false;
                    }
                    q = "Please type 'yes', 'no' or the fingerprint: ";
                }
            }
        }
    }

    /** Appends the key to the first user file; ssh goes on when that fails, saying so. */
    private static boolean record(Path file, boolean hashNames, String name, PublicKey k, byte[] blob,
            ClientLog log) {
        try {
            KnownHostsFiles.add(file, name, hashNames, KeyUtils.getKeyType(k), blob, new SecureRandom());
            log.error("Warning: Permanently added '" + name + "' (" + label(k) + ") to the list of known hosts.");
        } catch (IOException | RuntimeException e) {
            log.error("Failed to add the host to the list of known hosts (" + file + ").");
        }
        return true;
    }

    /** The changed-key block as OpenSSH 9.2 (Debian) prints it, with the offending line and the -R hint. */
    private static void changedBanner(ClientLog log, String name, PublicKey actual, KnownHostsFiles.Line offending,
            List<Path> files) {
        log.fatal("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
        log.fatal("@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @");
        log.fatal("@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
        log.fatal("IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!");
        log.fatal("Someone could be eavesdropping on you right now (man-in-the-middle attack)!");
        log.fatal("It is also possible that a host key has just been changed.");
        log.fatal("The fingerprint for the " + label(actual) + " key sent by the remote host is");
        log.fatal(KeyUtils.getFingerPrint(actual) + ".");
        log.fatal("Please contact your system administrator.");
        log.fatal("Add correct host key in " + files.get(0) + " to get rid of this message.");
        log.fatal("Offending " + label(offending.keyType()) + " key in " + offending.file() + ":"
                + offending.number());
        log.fatal("  remove with:");
        log.fatal("  ssh-keygen -f \"" + offending.file() + "\" -R \"" + name + "\"");
    }

    /** The key as it travels in SSH_MSG_KEXDH_REPLY and known_hosts: the wire blob. */
    static byte[] blob(PublicKey k) {
        ByteArrayBuffer b = new ByteArrayBuffer();
        b.putRawPublicKey(k);
        return b.getCompactData();
    }

    /** OpenSSH's label for a key type: ED25519, ECDSA, RSA, or the upper-cased name. */
    static String label(PublicKey k) {
        String t = KeyUtils.getKeyType(k);
        return t == null ? k.getAlgorithm().toUpperCase(Locale.ROOT) : label(t);
    }

    /** OpenSSH's label for a key type name (sshkey_type). */
    static String label(String t) {
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
