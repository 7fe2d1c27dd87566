package io.pqssh.server;

import java.util.List;

import org.apache.sshd.server.auth.keyboard.InteractiveChallenge;
import org.apache.sshd.server.auth.keyboard.KeyboardInteractiveAuthenticator;
import org.apache.sshd.server.auth.password.PasswordAuthenticator;
import org.apache.sshd.server.session.ServerSession;

/**
 * keyboard-interactive as Debian's sshd offers it through PAM's pam_unix: one round with no name and no
 * instruction, one prompt {@code Password: } not echoed, the answer checked by a {@link PasswordAuthenticator}
 * (pqssh server's PasswordFile). A wrong answer fails the attempt; the client may start another.
 */
public final class PasswordPrompt implements KeyboardInteractiveAuthenticator {
    private final PasswordAuthenticator passwords;

    public PasswordPrompt(PasswordAuthenticator passwords) {
        this.passwords = passwords;
    }

    @Override
    public InteractiveChallenge generateChallenge(ServerSession session, String username, String lang,
            String subMethods) {
        InteractiveChallenge c = new InteractiveChallenge();
        c.setInteractionName("");
        c.setInteractionInstruction("");
        c.setLanguageTag("");
        c.addPrompt("Password: ", false);
        return c;
    }

    @Override
    public boolean authenticate(ServerSession session, String username, List<String> responses) throws Exception {
        if (responses == null || responses.size() != 1) {
            return false;
        }
        return passwords.authenticate(username, responses.get(0), session);
    }
}
