package io.pqssh.client.agent;

import io.pqssh.core.agent.Agent;
import io.pqssh.core.agent.AgentProtocol;

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
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Function;
import java.util.function.Supplier;

import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * Serves agent requests on a Unix domain socket (mode 0600; its directory should be the owner's alone, as
 * ssh-agent's {@code /tmp/ssh-XXXX}). One daemon thread per connection; the socket file is removed on close.
 * As ssh-agent, a connection whose peer (SO_PEERCRED) is neither root nor this process's user is closed unanswered,
 * whatever the socket's mode says.
 */
public final class AgentSocketServer implements AutoCloseable {
    private final Path path;
    private final ServerSocketChannel server;
    private final Supplier<Function<byte[], byte[]>> handlers;
    private final Thread acceptor;
    private final UserPrincipal owner;
    private final UserPrincipal root;

    private AgentSocketServer(Path path, ServerSocketChannel server, Supplier<Function<byte[], byte[]>> handlers,
            UserPrincipal owner, UserPrincipal root) {
        this.path = path;
        this.server = server;
        this.handlers = handlers;
        this.owner = owner;
        this.root = root;
        this.acceptor = new Thread(this::acceptLoop, "agent-accept " + path.getFileName());
        acceptor.setDaemon(true);
    }

    /** Serves {@code agent}, each socket connection as its own {@link Agent#connection()} (own session bindings). */
    public static AgentSocketServer start(Path path, Agent agent) throws IOException {
        return start(path, () -> agent.connection()::handle);
    }

    /**
     * Binds {@code path} (which must not exist) and starts accepting; {@code handlers} gives each connection the
     * function that answers its requests.
     */
    public static AgentSocketServer start(Path path, Supplier<Function<byte[], byte[]>> handlers)
            throws IOException {
        if (Files.exists(path)) {
            throw new IOException(path + ": already exists");
        }
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        UserPrincipal owner;
        UserPrincipal root;
        try {
            ch.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            owner = Files.getOwner(path); // the socket we just made: our own uid
            // "0" is no user name, so the lookup falls back to it as a number: uid 0 whatever root is called
            root = path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("0");
        } catch (IOException | RuntimeException e) {
            ch.close();
            Files.deleteIfExists(path);
            throw e;
        }
        AgentSocketServer s = new AgentSocketServer(path, ch, handlers, owner, root);
        s.acceptor.start();
        return s;
    }

    /** A fresh private directory {@code pqssh-XXXX} under {@code base} holding {@code agent.<pid>}, as ssh-agent. */
    public static Path newSocketPath(Path base) throws IOException {
        Path dir = Files.createTempDirectory(base, "pqssh-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return dir.resolve("agent." + ProcessHandle.current().pid());
    }

    public Path path() {
        return path;
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Thread t = new Thread(() -> serve(c), "agent-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    /** ssh-agent's rule: the peer's uid is root's or ours. A peer whose credentials cannot be read is refused. */
    private boolean peerAllowed(SocketChannel c) {
        try {
            UnixDomainPrincipal peer = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
            return peer != null && (peer.user().equals(owner) || peer.user().equals(root));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private void serve(SocketChannel c) {
        if (!peerAllowed(c)) {
            try {
                c.close();
            } catch (IOException e) {
                // refused either way
            }
            return;
        }
        Function<byte[], byte[]> handler = handlers.get();
        try (c; InputStream in = Channels.newInputStream(c); OutputStream out = Channels.newOutputStream(c)) {
            byte[] req;
            while ((req = AgentProtocol.readMessage(in)) != null) {
                AgentProtocol.writeMessage(out, handler.apply(req));
                java.util.Arrays.fill(req, (byte) 0); // an ADD_IDENTITY request carries a private key
            }
        } catch (IOException e) {
            // the client went away or sent a bad frame: drop the connection, as ssh-agent does
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        Files.deleteIfExists(path);
    }
}
