package io.pqssh.client.transfer;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;
import org.apache.sshd.sftp.client.RawSftpClient;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.common.SftpConstants;

/**
 * sftp's own long listing line for a name it did not get from a directory read ({@code ls -l FILE}, {@code ls -l
 * GLOB}), as OpenSSH's sftp builds it from the attributes (sftp-common.c's {@code ls_file}): mode, {@code ?} for the
 * link count (SFTP v3 has none), owner and group at least 8 wide, size 8 wide, {@code Mmm dd HH:MM} within the last
 * half year else {@code Mmm dd  YYYY}, name as given. Owner and group names come from the server's
 * {@code users-groups-by-id@openssh.com} when it offers it (OpenSSH's sftp-server), else they are numbers, as sftp.
 */
final class SftpLongList {
    private static final String NAMES_EXTENSION = "users-groups-by-id@openssh.com";
    private static final long HALF_YEAR = 365L * 24 * 60 * 60 / 2;
    private static final DateTimeFormatter RECENT = DateTimeFormatter.ofPattern("MMM ppd HH:mm", Locale.ROOT);
    private static final DateTimeFormatter OLD = DateTimeFormatter.ofPattern("MMM ppd  yyyy", Locale.ROOT);

    private SftpLongList() {
    }

    /** True when the server offers {@code users-groups-by-id@openssh.com} (OpenSSH's sftp-server does). */
    static boolean serverNamesIds(SftpClient sftp) {
        return sftp instanceof RawSftpClient && sftp.getServerExtensions().containsKey(NAMES_EXTENSION);
    }

    /** One line per (name, attributes) pair, in order. */
    static List<String> lines(SftpClient sftp, List<String> names, List<SftpClient.Attributes> attrs) {
        Map<Integer, String> users = new HashMap<>();
        Map<Integer, String> groups = new HashMap<>();
        resolveNames(sftp, attrs, users, groups);
        List<String> out = new ArrayList<>();
        Instant now = Instant.now();
        for (int i = 0; i < names.size(); i++) {
            SftpClient.Attributes a = attrs.get(i);
            String user = users.getOrDefault(a.getUserId(), String.valueOf(a.getUserId()));
            String group = groups.getOrDefault(a.getGroupId(), String.valueOf(a.getGroupId()));
            out.add(line(names.get(i), a, user, group, now));
        }
        return out;
    }

    static String line(String name, SftpClient.Attributes a, String user, String group, Instant now) {
        long mtime = a.getModifyTime() == null ? 0 : a.getModifyTime().toInstant().getEpochSecond();
        ZonedDateTime t = Instant.ofEpochSecond(mtime).atZone(ZoneId.systemDefault());
        long n = now.getEpochSecond();
        String time = (n - HALF_YEAR < mtime && n >= mtime ? RECENT : OLD).format(t);
        return String.format(Locale.ROOT, "%s %3s %-8s %-8s %8d %s %s", mode(a.getPermissions()), "?", user, group,
                a.getSize(), time, name);
    }

    /** strmode(3): the type letter and nine permission letters, with set-id and sticky bits, then a blank. */
    static String mode(int m) {
        char type = switch (m & 0170000) {
            case 0040000 -> 'd';
            case 0120000 -> 'l';
            case 0020000 -> 'c';
            case 0060000 -> 'b';
            case 0010000 -> 'p';
            case 0140000 -> 's';
            default -> '-';
        };
        StringBuilder b = new StringBuilder().append(type);
        b.append((m & 0400) != 0 ? 'r' : '-').append((m & 0200) != 0 ? 'w' : '-');
        b.append(exec(m & 0100, m & 04000, 's'));
        b.append((m & 040) != 0 ? 'r' : '-').append((m & 020) != 0 ? 'w' : '-');
        b.append(exec(m & 010, m & 02000, 's'));
        b.append((m & 04) != 0 ? 'r' : '-').append((m & 02) != 0 ? 'w' : '-');
        b.append(exec(m & 01, m & 01000, 't'));
        return b.append(' ').toString();
    }

    private static char exec(int x, int special, char letter) {
        if (special != 0) {
            return x != 0 ? letter : Character.toUpperCase(letter);
        }
        return x != 0 ? 'x' : '-';
    }

    /**
     * Asks the server for the names of the owners and groups (one {@code users-groups-by-id@openssh.com} request for
     * all); leaves the maps as they are when the server does not offer it or answers with something else.
     */
    private static void resolveNames(SftpClient sftp, List<SftpClient.Attributes> attrs, Map<Integer, String> users,
            Map<Integer, String> groups) {
        if (attrs.isEmpty() || !serverNamesIds(sftp)) {
            return;
        }
        RawSftpClient raw = (RawSftpClient) sftp;
        List<Integer> uids = attrs.stream().map(SftpClient.Attributes::getUserId).distinct().toList();
        List<Integer> gids = attrs.stream().map(SftpClient.Attributes::getGroupId).distinct().toList();
        try {
            Buffer req = new ByteArrayBuffer();
            req.putString(NAMES_EXTENSION);
            req.putBytes(ids(uids));
            req.putBytes(ids(gids));
            int id = raw.send(SftpConstants.SSH_FXP_EXTENDED, req);
            Buffer rep = raw.receive(id);
            rep.getInt(); // length
            int type = rep.getUByte();
            if (type != SftpConstants.SSH_FXP_EXTENDED_REPLY || rep.getInt() != id) {
                return;
            }
            Buffer u = new ByteArrayBuffer(rep.getBytes());
            Buffer g = new ByteArrayBuffer(rep.getBytes());
            for (int uid : uids) {
                String name = u.getString();
                if (!name.isEmpty()) {
                    users.put(uid, name);
                }
            }
            for (int gid : gids) {
                String name = g.getString();
                if (!name.isEmpty()) {
                    groups.put(gid, name);
                }
            }
        } catch (IOException | RuntimeException e) {
            // numbers then, as sftp prints without the extension
        }
    }

    private static byte[] ids(List<Integer> ids) {
        Buffer b = new ByteArrayBuffer();
        ids.forEach(i -> b.putUInt(i & 0xffffffffL));
        return b.getCompactData();
    }
}
