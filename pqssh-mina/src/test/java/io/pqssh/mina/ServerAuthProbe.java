package io.pqssh.mina;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.UserAuth;
import org.apache.sshd.server.auth.UserAuthFactory;
import org.apache.sshd.server.session.ServerSession;

import io.pqssh.core.auth.KemAuthMethod;

/**
 * Wraps a started server's user-auth methods so a test can see what reached them: how many USERAUTH_REQUESTs per
 * method, how many KEM_RESPONSE messages (61), and which method calls returned success.
 */
final class ServerAuthProbe {
    final AtomicInteger kemRequests = new AtomicInteger();
    final AtomicInteger kemResponses = new AtomicInteger();
    final List<String> requests = new CopyOnWriteArrayList<>();
    final List<String> successes = new CopyOnWriteArrayList<>();

    private ServerAuthProbe() {
    }

    /** Installs the probe; sessions opened afterwards use the wrapped methods. */
    static ServerAuthProbe on(SshServer server) {
        ServerAuthProbe p = new ServerAuthProbe();
        List<UserAuthFactory> wrapped = new ArrayList<>();
        for (UserAuthFactory f : server.getUserAuthFactories()) {
            wrapped.add(p.wrap(f));
        }
        server.setUserAuthFactories(wrapped);
        return p;
    }

    private UserAuthFactory wrap(UserAuthFactory f) {
        return new UserAuthFactory() {
            @Override
            public String getName() {
                return f.getName();
            }

            @Override
            public UserAuth createUserAuth(ServerSession session) throws IOException {
                return new Counting(f.createUserAuth(session));
            }
        };
    }

    private static boolean isKem(String name) {
        return KemAuthMethod.fromWireName(name).isPresent();
    }

    private final class Counting implements UserAuth {
        private final UserAuth d;

        Counting(UserAuth d) {
            this.d = d;
        }

        @Override
        public Boolean auth(ServerSession session, String username, String service, Buffer buffer)
                throws Exception {
            requests.add(d.getName());
            if (isKem(d.getName())) {
                kemRequests.incrementAndGet();
            }
            return record(d.auth(session, username, service, buffer));
        }

        @Override
        public Boolean next(Buffer buffer) throws Exception {
            if (buffer.available() > 0 && (buffer.rawByte(buffer.rpos()) & 0xFF)
                    == KemAuthMethod.SSH_MSG_USERAUTH_KEM_RESPONSE) {
                kemResponses.incrementAndGet();
            }
            return record(d.next(buffer));
        }

        private Boolean record(Boolean result) {
            if (Boolean.TRUE.equals(result)) {
                successes.add(d.getName());
            }
            return result;
        }

        @Override
        public void destroy() {
            d.destroy();
        }

        @Override
        public String getName() {
            return d.getName();
        }

        @Override
        public ServerSession getSession() {
            return d.getSession();
        }

        @Override
        public ServerSession getServerSession() {
            return d.getServerSession();
        }

        @Override
        public String getUsername() {
            return d.getUsername();
        }
    }
}
