package io.pqssh.cli;

import static io.pqssh.cli.CliHarness.pub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.FileKeyPairProvider;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.pqssh.mina.auth.KemServerSettings;
import io.pqssh.mina.kex.PqKex;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;

/**
 * Debian's OpenSSH 9.2 client ({@code /usr/bin/ssh}) against an in-process pqssh server assembled as
 * {@code pqssh server} does (file authorizers on an absolute AuthorizedKeysFile, an ssh-keygen host key).
 */
class OpenSshClientToPqsshServerTest {
    @TempDir
    Path dir;

    private Path userKey;
    private Path hostKey;
    private Path authorizedKeys;
    private Path knownHosts;
    private final List<PqsshServer> servers = new ArrayList<>();
    private final List<String> serverNegotiatedKex = new CopyOnWriteArrayList<>();
    private final List<Session> serverSessions = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        CliHarness.requireBinary(CliHarness.SSH_KEYGEN, "openssh-client");
        hostKey = CliHarness.sshKeygen(dir.resolve("ssh_host_ed25519_key"), "ed25519");
        userKey = CliHarness.sshKeygen(dir.resolve("id_ed25519"), "ed25519");
        authorizedKeys = dir.resolve("authorized_keys");
        Files.writeString(authorizedKeys, Files.readString(pub(userKey)));
        knownHosts = dir.resolve("known_hosts");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (PqsshServer s : servers) {
            s.close();
        }
    }

    private PqsshServer startServer(boolean requirePq) throws Exception {
        FileKeyAuthorizers auth = new FileKeyAuthorizers(authorizedKeys.toAbsolutePath().toString(), "none");
        PqsshServer s = PqsshServer.builder().systemShell().sftp(true).host("127.0.0.1").port(0)
                .hostKeys(new FileKeyPairProvider(hostKey)).requirePostQuantumKex(requirePq)
                .publickey(auth.publickey())
                .kem(KemServerSettings.builder().authorizer(auth.kem()).build())
                .start();
        servers.add(s);
        s.sshd().addSessionListener(new SessionListener() {
            @Override
            public void sessionCreated(Session session) {
                serverSessions.add(session);
            }

            @Override
            public void sessionNegotiationEnd(Session session, Map<KexProposalOption, String> clientProposal,
                    Map<KexProposalOption, String> serverProposal, Map<KexProposalOption, String> negotiated,
                    Throwable reason) {
                if (reason == null && negotiated != null) {
                    serverNegotiatedKex.add(negotiated.get(KexProposalOption.ALGORITHMS));
                }
            }
        });
        // pin the pqssh host key for OpenSSH, so the client really checks it (StrictHostKeyChecking=yes)
        Files.writeString(knownHosts, "[127.0.0.1]:" + s.port() + " " + Files.readString(pub(hostKey)).strip() + "\n");
        return s;
    }

    private CliHarness.Result ssh(PqsshServer s, Path identity, List<String> extra, String command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString(), "-vv", "-F", "/dev/null",
                "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                "-o", "UserKnownHostsFile=" + knownHosts, "-o", "GlobalKnownHostsFile=/dev/null",
                "-o", "IdentitiesOnly=yes", "-o", "ConnectTimeout=10"));
        cmd.addAll(extra);
        cmd.addAll(List.of("-i", identity.toString(), "-p", String.valueOf(s.port()),
                CliHarness.user() + "@127.0.0.1", command));
        return CliHarness.exec(dir, cmd);
    }

    private static String clientKexLine(CliHarness.Result r) {
        Matcher m = Pattern.compile("kex: algorithm: (\\S+)").matcher(r.err());
        assertTrue(m.find(), "no 'kex: algorithm:' line in ssh -v output\n" + r.all());
        return m.group(1);
    }

    @Test
    void explicitSntrup761LogsInRunsCommandAndReturnsItsStatus() throws Exception {
        PqsshServer s = startServer(false);
        CliHarness.Result r = ssh(s, userKey, List.of("-o", "KexAlgorithms=sntrup761x25519-sha512@openssh.com"),
                "echo hi; exit 7");
        assertEquals(7, r.rc(), r.all());
        assertEquals("hi", r.out().strip(), r.all());
        assertEquals("sntrup761x25519-sha512@openssh.com", clientKexLine(r), r.all());
        assertEquals(List.of("sntrup761x25519-sha512@openssh.com"), serverNegotiatedKex, "server side kex");
        assertTrue(r.err().contains("Authenticated to 127.0.0.1") && r.err().contains("using \"publickey\""),
                r.all());
    }

    /**
     * The exit status reaches the client before the channel's EOF: a client whose input has ended (here /dev/null)
     * closes the channel as soon as EOF arrives, after which nothing more is sent on it, so a status sent after EOF
     * could be lost (seen through OpenSSH's mux master in CI).
     */
    @Test
    void exitStatusComesBeforeEof() throws Exception {
        PqsshServer s = startServer(false);
        CliHarness.Result r = ssh(s, userKey, List.of("-n"), "echo out; echo err >&2; exit 3");
        assertEquals(3, r.rc(), r.all());
        int status = r.err().indexOf("rtype exit-status");
        int eof = r.err().indexOf("channel 0: rcvd eof");
        assertTrue(status >= 0 && eof >= 0, "ssh -vv shows neither line\n" + r.all());
        assertTrue(status < eof, "EOF came before the exit status\n" + r.all());
        assertEquals("out", r.out().strip(), r.all());
    }

    @Test
    void defaultKexIsSntrup761BecauseOpenSsh92LacksMlkem() throws Exception {
        PqsshServer s = startServer(false);
        CliHarness.Result r = ssh(s, userKey, List.of(), "echo hi; exit 0");
        assertEquals(0, r.rc(), r.all());
        assertEquals("hi", r.out().strip(), r.all());
        // pqssh offers OpenSSH 10's order, ML-KEM first
        Matcher offered = Pattern.compile("peer server KEXINIT proposal\\s+debug2: KEX algorithms: (\\S+)")
                .matcher(r.err());
        assertTrue(offered.find(), "no server KEXINIT proposal in ssh -vv output\n" + r.all());
        assertTrue(offered.group(1).startsWith("mlkem768x25519-sha256,"), "pqssh server offered " + offered.group(1));
        // Debian's 9.2 has sntrup761x25519-sha512 (and the @openssh.com alias), no ML-KEM: a sntrup761 hybrid wins
        String kex = clientKexLine(r);
        assertTrue(kex.matches("sntrup761x25519-sha512(@openssh\\.com)?"), "negotiated " + kex + "\n" + r.all());
        assertEquals(List.of(kex), serverNegotiatedKex, "server side kex");
        assertTrue(PqKex.isPostQuantum(kex));
    }

    @Test
    void unauthorizedKeyIsRefusedWithExit255() throws Exception {
        PqsshServer s = startServer(false);
        Path stranger = CliHarness.sshKeygen(dir.resolve("id_stranger"), "ed25519");
        CliHarness.Result r = ssh(s, stranger, List.of(), "echo hi; exit 7");
        assertEquals(255, r.rc(), r.all());
        assertEquals("", r.out(), r.all());
        assertTrue(r.err().contains("Permission denied"), r.all());
        assertFalse(serverSessions.stream().anyMatch(Session::isAuthenticated), "a server session authenticated");
    }

    @Test
    void serverRequirePostQuantumKexRefusesClassicalOpenSshClient() throws Exception {
        PqsshServer s = startServer(true);
        CliHarness.Result r = ssh(s, userKey, List.of("-o", "KexAlgorithms=curve25519-sha256"), "echo hi; exit 7");
        assertEquals(255, r.rc(), r.all());
        assertEquals("", r.out(), r.all());
        assertFalse(serverSessions.stream().anyMatch(Session::isAuthenticated), "a server session authenticated");
        // and the same server still takes a post-quantum OpenSSH client
        CliHarness.Result ok = ssh(s, userKey, List.of(), "echo hi; exit 7");
        assertEquals(7, ok.rc(), ok.all());
    }
}
