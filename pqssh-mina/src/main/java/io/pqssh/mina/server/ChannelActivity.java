package io.pqssh.mina.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

/**
 * What sshd's inactivity timeouts need to know about a connection, seen from its packets: when the client last
 * sent anything ({@code ClientAliveInterval}), each channel's sshd type name and extended type
 * ({@code session:shell}, {@code session:command}, {@code session:subsystem:sftp}, {@code direct-tcpip},
 * {@code agent-connection}, ...), and when data last crossed it either way ({@code ChannelTimeout}). MINA keeps
 * none of this, so {@link PqsshServerSession} shows every packet in and out to this class, which only peeks.
 */
public final class ChannelActivity {
    private volatile long lastReceived = System.nanoTime();
    /** Connection-wide last channel use, for ChannelTimeout's {@code global}. */
    private volatile long lastChannelUse;
    /** Types of channels the client opened, by the client's channel id, until the server confirms them. */
    private final Map<Long, String> opening = new ConcurrentHashMap<>();
    private final Map<Long, String> typeByLocalId = new ConcurrentHashMap<>();
    private final Map<Long, Long> lastInByLocalId = new ConcurrentHashMap<>();
    private final Map<Long, Long> lastOutByRemoteId = new ConcurrentHashMap<>();

    /** A packet from the client (its first byte is the message number). */
    void received(Buffer packet) {
        long now = System.nanoTime();
        lastReceived = now;
        int cmd = packet.available() > 0 ? packet.rawByte(packet.rpos()) & 0xff : -1;
        if (cmd != SshConstants.SSH_MSG_CHANNEL_OPEN && cmd != SshConstants.SSH_MSG_CHANNEL_DATA
                && cmd != SshConstants.SSH_MSG_CHANNEL_EXTENDED_DATA && cmd != SshConstants.SSH_MSG_CHANNEL_REQUEST) {
            return;
        }
        try {
            Buffer b = view(packet);
            if (cmd == SshConstants.SSH_MSG_CHANNEL_OPEN) {
                String type = b.getString();
                opening.put(b.getUInt(), sshdName(type));
            } else if (cmd == SshConstants.SSH_MSG_CHANNEL_REQUEST) {
                long id = b.getUInt();
                String request = b.getString();
                b.getBoolean();
                String xtype = switch (request) {
                    case "shell" -> "session:shell";
                    case "exec" -> "session:command";
                    case "subsystem" -> "session:subsystem:" + b.getString();
                    default -> null;
                };
                if (xtype != null && "session".equals(typeByLocalId.get(id))) {
                    typeByLocalId.put(id, xtype);
                }
            } else {
                lastInByLocalId.put(b.getUInt(), now);
                lastChannelUse = now;
            }
        } catch (RuntimeException malformed) {
            // MINA's own parsing of the same packet reports it; the timeouts simply learn nothing from it
        }
    }

    /** A packet the server sends. */
    void sent(Buffer packet) {
        int cmd = packet.available() > 0 ? packet.rawByte(packet.rpos()) & 0xff : -1;
        if (cmd != SshConstants.SSH_MSG_CHANNEL_OPEN && cmd != SshConstants.SSH_MSG_CHANNEL_OPEN_CONFIRMATION
                && cmd != SshConstants.SSH_MSG_CHANNEL_OPEN_FAILURE && cmd != SshConstants.SSH_MSG_CHANNEL_DATA
                && cmd != SshConstants.SSH_MSG_CHANNEL_EXTENDED_DATA) {
            return;
        }
        long now = System.nanoTime();
        try {
            Buffer b = view(packet);
            if (cmd == SshConstants.SSH_MSG_CHANNEL_OPEN) {
                String type = b.getString();
                long local = b.getUInt();
                typeByLocalId.put(local, sshdName(type));
                lastInByLocalId.put(local, now);
            } else if (cmd == SshConstants.SSH_MSG_CHANNEL_OPEN_FAILURE) {
                opening.remove(b.getUInt());
            } else if (cmd == SshConstants.SSH_MSG_CHANNEL_OPEN_CONFIRMATION) {
                long remote = b.getUInt();
                long local = b.getUInt();
                String type = opening.remove(remote);
                if (type != null) {
                    typeByLocalId.put(local, type);
                }
                lastInByLocalId.put(local, now);
                lastChannelUse = now;
            } else {
                lastOutByRemoteId.put(b.getUInt(), now);
                lastChannelUse = now;
            }
        } catch (RuntimeException malformed) {
            // a packet this server built; nothing to learn if it is not what it seems
        }
    }

    public long lastReceived() {
        return lastReceived;
    }

    public long lastChannelUse() {
        return lastChannelUse;
    }

    /** The channel's sshd type name ({@code session:shell}, ...), or null when unknown. */
    public String type(long localId) {
        return typeByLocalId.get(localId);
    }

    /** When data last crossed the channel either way, or when it opened; 0 when unknown. */
    public long lastUsed(long localId, long remoteId) {
        return Math.max(lastInByLocalId.getOrDefault(localId, 0L), lastOutByRemoteId.getOrDefault(remoteId, 0L));
    }

    /** Keeps only what is known about the channels still open (by local and by remote id). */
    public void retain(java.util.Set<Long> localIds, java.util.Set<Long> remoteIds) {
        typeByLocalId.keySet().retainAll(localIds);
        lastInByLocalId.keySet().retainAll(localIds);
        lastOutByRemoteId.keySet().retainAll(remoteIds);
    }

    /** sshd's name for a channel type where it differs from the SSH one (ChannelTimeout's list). */
    static String sshdName(String sshType) {
        return "auth-agent@openssh.com".equals(sshType) ? "agent-connection" : sshType;
    }

    private static Buffer view(Buffer packet) {
        return new ByteArrayBuffer(packet.array(), packet.rpos() + 1, packet.available() - 1);
    }
}
