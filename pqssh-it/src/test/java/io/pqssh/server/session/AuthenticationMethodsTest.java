package io.pqssh.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.SshConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.pqssh.server.PqsshServer;

/**
 * Issue 14 §2: {@code AuthenticationMethods} with a KEM sub-method ({@code publickey-kem:mlkem768}) used to start
 * and then drop every connection; now the sub-method restricts the ML-KEM parameter set of that step, and what
 * cannot work is refused at start-up.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AuthenticationMethodsTest {
    @Test
    void aKemSubmethodAllowsOnlyItsParameterSet() throws Exception {
        try (PqsshServer s = TestServers.builder().authenticationMethods("publickey-kem:mlkem768").start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            // ML-KEM-1024 is authorized and allowed by KEMAuthAlgorithms, but not by this step: no challenge
            assertEquals("FAILURE publickey-kem", c.kemLogin("alice", "mlkem1024", TestServers.ALICE_KEM_1024)
                    .toString());
            assertEquals(0, s.pendingKemChallenges());
            // any spelling of the parameter set (the research client sends ML-KEM-768)
            assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS,
                    c.kemLogin("alice", "ML-KEM-768", TestServers.ALICE_KEM).cmd());
        }
    }

    @Test
    void stepsWithSubmethodsAdvanceOnlyTheirOwnList() throws Exception {
        String methods = "publickey-kem:mlkem1024,password publickey-kem:mlkem768";
        // ML-KEM-768 completes the second list at once
        try (PqsshServer s = TestServers.builder().authenticationMethods(methods).start()) {
            try (RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
                c.password("alice", "right");
                assertEquals("FAILURE publickey-kem", c.next().toString(), "password is not a first step");
                assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS,
                        c.kemLogin("alice", "mlkem768", TestServers.ALICE_KEM).cmd());
            }
            // ML-KEM-1024 is only the first step of the first list: partial success; the second list is still open
            // (sshd: each list advances on its own), so password or ML-KEM-768 now completes
            try (RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
                assertEquals("FAILURE publickey-kem,password partial",
                        c.kemLogin("alice", "mlkem1024", TestServers.ALICE_KEM_1024).toString());
                c.password("alice", "wrong");
                assertEquals("FAILURE publickey-kem,password", c.next().toString());
                c.password("alice", "right");
                assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS, c.next().cmd());
            }
            try (RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
                assertEquals("FAILURE publickey-kem,password partial",
                        c.kemLogin("alice", "mlkem1024", TestServers.ALICE_KEM_1024).toString());
                assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS,
                        c.kemLogin("alice", "mlkem768", TestServers.ALICE_KEM).cmd());
            }
        }
    }

    @Test
    void passwordThenKemWithASubmethod() throws Exception {
        try (PqsshServer s = TestServers.builder().authenticationMethods("password,publickey-kem:ML-KEM-1024")
                .start(); RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.password("alice", "right");
            assertEquals("FAILURE publickey-kem partial", c.next().toString());
            assertEquals("FAILURE publickey-kem", c.kemLogin("alice", "mlkem768", TestServers.ALICE_KEM).toString());
            assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS,
                    c.kemLogin("alice", "mlkem1024", TestServers.ALICE_KEM_1024).cmd());
        }
    }

    @Test
    void whatCannotWorkIsRefusedAtStartUp() {
        assertRefused("password:pam", "AuthenticationMethods: password:pam: only publickey-kem and"
                + " publickey-kem-and take a sub-method (an ML-KEM parameter set, e.g. publickey-kem:mlkem768)");
        assertRefused("publickey-kem:mlkem999", "AuthenticationMethods: publickey-kem:mlkem999: 'mlkem999' is not"
                + " an ML-KEM parameter set (mlkem512, mlkem768, mlkem1024)");
        assertRefused("password,publickey-kem:mlkem512", "AuthenticationMethods: publickey-kem:mlkem512 can never"
                + " succeed: KEMAuthAlgorithms does not allow mlkem512");
        assertRefused("hostbased", "AuthenticationMethods cannot be satisfied by enabled authentication methods:"
                + " method 'hostbased' is not enabled on this server (enabled: publickey-kem,password)");
        assertRefused("hostbased,password gssapi-with-mic", "AuthenticationMethods cannot be satisfied by enabled"
                + " authentication methods: method 'hostbased' is not enabled on this server (enabled:"
                + " publickey-kem,password)");
        assertRefused("publickey-kem:", "AuthenticationMethods: 'publickey-kem:' is not method or"
                + " method:submethod");
        assertRefused("password,,publickey-kem", "AuthenticationMethods: empty method in 'password,,publickey-kem'");
    }

    private static void assertRefused(String methods, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TestServers.builder().authenticationMethods(methods).start().close(), methods);
        assertEquals(message, e.getMessage());
    }

    /**
     * sshd's auth2_setup_methods_lists: a list naming a method the server does not offer is skipped and the others
     * still log in (pqssh used to refuse to start, or per Match connection to drop the connection).
     */
    @Test
    void aListWithADisabledMethodIsSkippedAndTheOthersKept() throws Exception {
        try (PqsshServer s = TestServers.builder().authenticationMethods("hostbased,password password")
                .start(); RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            c.password("alice", "right");
            assertEquals(SshConstants.SSH_MSG_USERAUTH_SUCCESS, c.next().cmd());
        }
    }

    @Test
    void anyMeansAnySingleMethod() throws Exception {
        try (PqsshServer s = TestServers.builder().authenticationMethods("any").start();
                RawAuthClient c = RawAuthClient.connect("alice", s.port(), null)) {
            assertTrue(c.kemLogin("alice", "mlkem1024", TestServers.ALICE_KEM_1024).cmd()
                    == SshConstants.SSH_MSG_USERAUTH_SUCCESS);
        }
    }
}
