package io.pqssh.client.transfer;

import java.io.IOException;

import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.sftp.client.RawSftpClient;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.extensions.helpers.AbstractSftpClientExtension;
import org.apache.sshd.sftp.client.impl.DefaultCloseableHandle;
import org.apache.sshd.sftp.common.SftpConstants;

/**
 * The SFTP requests {@code pqssh sftp} sends as OpenSSH's sftp does, where MINA's client has no call for them
 * ({@code hardlink@openssh.com}, {@code lsetstat@openssh.com}) or where the argument order matters
 * ({@code SSH_FXP_SYMLINK}). Failures are {@link org.apache.sshd.sftp.common.SftpException}s with the server's
 * status.
 */
final class SftpRequests extends AbstractSftpClientExtension {
    static final String HARDLINK = "hardlink@openssh.com";
    static final String LSETSTAT = "lsetstat@openssh.com";
    static final String STATVFS = "statvfs@openssh.com";
    static final String FSYNC = "fsync@openssh.com";
    static final String COPY_DATA = "copy-data";

    /** What a setstat changes (SFTP v3 ATTRS, draft-ietf-secsh-filexfer-02 §5); null fields are left alone. */
    record Change(Integer uid, Integer gid, Integer permissions, Long atime, Long mtime) {
        static final Change NONE = new Change(null, null, null, null, null);

        static Change permissions(int mode) {
            return new Change(null, null, mode, null, null);
        }

        static Change owner(int uid, int gid) {
            return new Change(uid, gid, null, null, null);
        }

        static Change times(long atime, long mtime) {
            return new Change(null, null, null, atime, mtime);
        }

        void encode(Buffer b) {
            int flags = (uid != null ? SftpConstants.SSH_FILEXFER_ATTR_UIDGID : 0)
                    | (permissions != null ? SftpConstants.SSH_FILEXFER_ATTR_PERMISSIONS : 0)
                    | (mtime != null ? SftpConstants.SSH_FILEXFER_ATTR_ACMODTIME : 0);
            b.putUInt(flags);
            if (uid != null) {
                b.putUInt(uid & 0xffffffffL);
                b.putUInt(gid & 0xffffffffL);
            }
            if (permissions != null) {
                b.putUInt(permissions);
            }
            if (mtime != null) {
                b.putUInt(atime);
                b.putUInt(mtime);
            }
        }
    }

    SftpRequests(SftpClient sftp) {
        super("pqssh", sftp, (RawSftpClient) sftp, true);
    }

    /** Whether the server named {@code extension} in its SSH_FXP_VERSION. */
    boolean offers(String extension) {
        return getClient().getServerExtensions().containsKey(extension);
    }

    /**
     * SSH_FXP_SYMLINK with the link's target first and the new link second: OpenSSH's sftp-server reads them in
     * that order (the reverse of draft-ietf-secsh-filexfer-02 §6.10, which OpenSSH's PROTOCOL.sftp says it swapped by
     * mistake and kept), and so does MINA's SFTP subsystem.
     */
    void symlink(String target, String link) throws IOException {
        Buffer b = new ByteArrayBuffer(target.length() + link.length() + 16, false);
        b.putString(target);
        b.putString(link);
        checkStatus(receive(send(SftpConstants.SSH_FXP_SYMLINK, b)));
    }

    /**
     * SSH_FXP_OPEN with attributes, as sftp's put sends the local file's permission bits for the server to create
     * the file with (under its umask); MINA's {@code open} sends none.
     */
    SftpClient.CloseableHandle open(String path, int pflags, Change attrs) throws IOException {
        Buffer b = new ByteArrayBuffer(path.length() + 64, false);
        b.putString(path);
        b.putUInt(pflags);
        attrs.encode(b);
        Buffer reply = receive(send(SftpConstants.SSH_FXP_OPEN, b));
        int start = reply.rpos();
        reply.getInt(); // length
        int type = reply.getUByte();
        reply.getInt(); // request id
        if (type != SftpConstants.SSH_FXP_HANDLE) {
            reply.rpos(start);
            checkStatus(reply);
            throw new IOException("SSH_FXP_OPEN: unexpected reply type " + type);
        }
        return new DefaultCloseableHandle(getClient(), path, reply.getBytes());
    }

    /** {@code hardlink@openssh.com}: a new name {@code link} for the existing file {@code existing}. */
    void hardlink(String existing, String link) throws IOException {
        Buffer b = extended(HARDLINK, existing.length() + link.length() + 8);
        b.putString(existing);
        b.putString(link);
        checkStatus(receive(sendExtendedCommand(b)));
    }

    /** SSH_FXP_SETSTAT, or {@code lsetstat@openssh.com} (a symbolic link itself) when not {@code follow}. */
    void setstat(String path, Change change, boolean follow) throws IOException {
        Buffer b;
        if (follow) {
            b = new ByteArrayBuffer(path.length() + 64, false);
            b.putString(path);
            change.encode(b);
            checkStatus(receive(send(SftpConstants.SSH_FXP_SETSTAT, b)));
        } else {
            b = extended(LSETSTAT, path.length() + 64);
            b.putString(path);
            change.encode(b);
            checkStatus(receive(sendExtendedCommand(b)));
        }
    }

    private static Buffer extended(String name, int room) {
        Buffer b = new ByteArrayBuffer(name.length() + room + 8, false);
        b.putString(name);
        return b;
    }
}
