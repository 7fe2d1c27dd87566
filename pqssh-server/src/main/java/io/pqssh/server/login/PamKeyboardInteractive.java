package io.pqssh.server.login;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.auth.AbstractUserAuth;
import org.apache.sshd.server.auth.AbstractUserAuthFactory;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.session.ServerSession;

/**
 * keyboard-interactive through PAM, as sshd's {@code KbdInteractiveAuthentication} with {@code UsePAM yes}:
 * {@code pam_authenticate} runs on its own thread, and each batch of its conversation's prompts becomes one
 * SSH_MSG_USERAUTH_INFO_REQUEST (texts a module shows before a prompt are its instruction, as sshd does), the
 * client's INFO_RESPONSE answers them; PAM's result is the method's. The answers are held only as long as the
 * conversation takes. The MINA thread waits for PAM's next step (pam_unix's delay after a wrong password included),
 * bounded by {@link #STEP_TIMEOUT_SECONDS}.
 */
public final class PamKeyboardInteractive extends AbstractUserAuthFactory {
    public static final String NAME = "keyboard-interactive";
    static final long STEP_TIMEOUT_SECONDS = 120;
    private static final int MAX_ROUNDS = 16;

    private final PamLogins pam;

    public PamKeyboardInteractive(PamLogins pam) {
        super(NAME);
        this.pam = pam;
    }

    @Override
    public UserAuth createUserAuth(ServerSession session) {
        return new Attempt(pam);
    }

    /** A batch of prompts from PAM, or its final code. */
    private record Step(List<Pam.Message> prompts, String instruction, Integer result) {
    }

    private static final class Attempt extends AbstractUserAuth {
        private final PamLogins pam;
        private final BlockingQueue<Step> steps = new LinkedBlockingQueue<>();
        private final BlockingQueue<List<String>> answers = new LinkedBlockingQueue<>();
        private List<Pam.Message> asked;
        private int rounds;
        private Thread worker;

        Attempt(PamLogins pam) {
            super(NAME);
            this.pam = pam;
        }

        @Override
        protected Boolean doAuth(Buffer buffer, boolean init) throws Exception {
            ServerSession session = getServerSession();
            if (init) {
                buffer.getString(); // language tag (deprecated)
                buffer.getString(); // submethods: PAM decides what it asks
                PamLogins.Transaction t = pam.transaction(session, getUsername());
                worker = new Thread(() -> authenticate(t), "pam-authenticate");
                worker.setDaemon(true);
                worker.start();
            } else {
                int cmd = buffer.getUByte();
                if (cmd != SshConstants.SSH_MSG_USERAUTH_INFO_RESPONSE || asked == null) {
                    throw new IllegalStateException("unexpected message " + cmd + " during keyboard-interactive");
                }
                int n = buffer.getInt();
                if (n != asked.size()) {
                    answers.add(List.of()); // a wrong count aborts PAM's conversation
                    asked = null;
                    return awaitResult(session);
                }
                List<String> given = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    given.add(buffer.getString());
                }
                asked = null;
                answers.add(given);
            }
            return awaitResult(session);
        }

        /** Sends PAM's next prompts (null: pending) or returns its verdict. */
        private Boolean awaitResult(ServerSession session) throws Exception {
            Step s = steps.poll(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (s == null) {
                destroy();
                return Boolean.FALSE;
            }
            if (s.result() != null) {
                return s.result() == Pam.SUCCESS;
            }
            if (++rounds > MAX_ROUNDS) {
                destroy();
                return Boolean.FALSE;
            }
            asked = s.prompts();
            Buffer out = session.createBuffer(SshConstants.SSH_MSG_USERAUTH_INFO_REQUEST, 256);
            out.putString("");
            out.putString(s.instruction());
            out.putString("");
            out.putInt(asked.size());
            for (Pam.Message m : asked) {
                out.putString(m.text());
                out.putBoolean(m.echo());
            }
            session.writePacket(out);
            return null;
        }

        private void authenticate(PamLogins.Transaction t) {
            int rc;
            try {
                rc = t.run(this::converse, p -> p.authenticate(0));
            } catch (RuntimeException e) {
                rc = Pam.ABORT;
            }
            steps.add(new Step(null, null, rc));
        }

        /** PAM's conversation: texts gathered, prompts sent to the client, its answers back. */
        private List<String> converse(List<Pam.Message> messages) throws InterruptedException {
            StringBuilder instruction = new StringBuilder();
            List<Pam.Message> prompts = new ArrayList<>();
            for (Pam.Message m : messages) {
                if (m.prompt()) {
                    prompts.add(m);
                } else {
                    instruction.append(m.text()).append('\n');
                }
            }
            // texts alone go out as an INFO_REQUEST without prompts, which the client answers with none
            steps.add(new Step(prompts, instruction.toString(), null));
            List<String> got = answers.poll(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (got == null || got.size() != prompts.size()) {
                return null;
            }
            List<String> out = new ArrayList<>(messages.size());
            int next = 0;
            for (Pam.Message m : messages) {
                out.add(m.prompt() ? got.get(next++) : null);
            }
            return out;
        }

        @Override
        public void destroy() {
            answers.add(List.of()); // a conversation still waiting gets an abort, and pam_authenticate returns
            super.destroy();
        }
    }
}
