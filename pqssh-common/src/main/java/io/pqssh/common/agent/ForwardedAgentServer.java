package io.pqssh.common.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;

import org.apache.sshd.agent.SshAgentServer;
import org.apache.sshd.client.channel.AbstractClientChannel;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.ChannelOutputStream;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's end of agent forwarding, as sshd: a Unix socket {@code /tmp/pqssh-XXXX/agent.N} (directory 0700,
 * socket 0600, both owned by the login's account) whose path becomes the session's {@code SSH_AUTH_SOCK}; each
 * connection to it opens an {@code auth-agent@openssh.com} channel to the client and is relayed byte for byte.
 * Removed when the connection ends.
 */
final class ForwardedAgentServer implements SshAgentServer {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardedAgentServer.class);
    static final String CHANNEL_TYPE = "auth-agent@openssh.com";

    private final ConnectionService service;
    private final Path dir;
    private final Path path;
    private final ServerSocketChannel server;

    ForwardedAgentServer(ConnectionService service) throws IOException {
        this.service = service;
        this.dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "pqssh-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        this.path = dir.resolve("agent." + ProcessHandle.current().pid());
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            giveTo(service.getSession().getUsername());
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        Thread t = new Thread(this::acceptLoop, "agent-forward-accept");
        t.setDaemon(true);
        t.start();
    }

    /** A root server runs the session as the login's account, which must be able to use the socket. */
    private void giveTo(String user) throws IOException {
        if (user == null || !"root".equals(System.getProperty("user.name")) || "root".equals(user)) {
            return;
        }
        UserPrincipal owner = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
        handOver(dir, path, owner);
    }

    /**
     * The socket first, without following a link, then its directory: once the account owns the directory it can
     * put a symlink where the socket was, and a chown through that link (what {@code Files.setOwner} does) would
     * give it any file root can name, {@code /etc/shadow} included. Until the directory is handed over only root
     * can reach the socket.
     */
    static void handOver(Path dir, Path socket, UserPrincipal owner) throws IOException {
        Files.getFileAttributeView(socket, java.nio.file.attribute.PosixFileAttributeView.class,
                java.nio.file.LinkOption.NOFOLLOW_LINKS).setOwner(owner);
        Files.getFileAttributeView(dir, java.nio.file.attribute.PosixFileAttributeView.class,
                java.nio.file.LinkOption.NOFOLLOW_LINKS).setOwner(owner);
    }

    @Override
    public String getId() {
        return path.toString();
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (IOException e) {
                return;
            }
            try {
                relay(c);
            } catch (IOException | RuntimeException e) {
                LOG.info("agent forwarding: cannot open an agent channel to the client: {}", e.toString());
                try {
                    c.close();
                } catch (IOException ignored) {
                    // already gone
                }
            }
        }
    }

    private void relay(SocketChannel c) throws IOException {
        Session session = service.getSession();
        OutputStream toLocal = Channels.newOutputStream(c);
        AbstractClientChannel ch = new AbstractClientChannel(CHANNEL_TYPE) {
            @Override
            protected void doOpen() throws IOException {
                invertedIn = new ChannelOutputStream(this, getRemoteWindow(), log, SshConstants.SSH_MSG_CHANNEL_DATA,
                        true);
            }

            @Override
            protected void doWriteData(byte[] data, int off, long len) throws IOException {
                toLocal.write(data, off, (int) len);
                getLocalWindow().release(len);
            }
        };
        ch.addCloseFutureListener(cf -> {
            try {
                c.close();
            } catch (IOException e) {
                // already closed
            }
        });
        service.registerChannel(ch);
        ch.open().verify(Duration.ofSeconds(30));
        OutputStream toClient = ch.getInvertedIn();
        InputStream fromLocal = Channels.newInputStream(c);
        Thread pump = new Thread(() -> {
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = fromLocal.read(buf)) > 0) {
                    toClient.write(buf, 0, n);
                    toClient.flush();
                }
            } catch (IOException e) {
                // either side went away
            } finally {
                ch.close(false);
            }
        }, "agent-forward " + session.getUsername());
        pump.setDaemon(true);
        pump.start();
    }

    @Override
    public boolean isOpen() {
        return server.isOpen();
    }

    @Override
    public void close() throws IOException {
        server.close();
        Files.deleteIfExists(path);
        Files.deleteIfExists(dir);
    }
}
