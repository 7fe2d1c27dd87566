package io.pqssh.client.agent;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.pqssh.client.keys.KnownHosts;
import io.pqssh.core.agent.DestinationConstraint;

/**
 * {@code ssh-add -h} destinations ({@code [user@]host} or {@code [user@]from>[user@]to}) turned into
 * {@code restrict-destination-v00@openssh.com} rules, each host's keys looked up by name in the {@code -H} files
 * (default: ~/.ssh/known_hosts, ~/.ssh/known_hosts2, /etc/ssh/ssh_known_hosts, /etc/ssh/ssh_known_hosts2), as
 * OpenSSH's ssh-add does. Errors carry ssh-add's messages.
 */
public final class DestinationSpecs {
    private DestinationSpecs() {
    }

    public static List<Path> defaultHostKeyFiles(Path home) {
        return List.of(home.resolve(".ssh/known_hosts"), home.resolve(".ssh/known_hosts2"),
                Path.of("/etc/ssh/ssh_known_hosts"), Path.of("/etc/ssh/ssh_known_hosts2"));
    }

    public static DestinationConstraint parse(String spec, List<Path> hostKeyFiles) throws IOException {
        int gt = spec.indexOf('>');
        DestinationConstraint.Hop from = DestinationConstraint.Hop.ORIGIN;
        DestinationConstraint.Hop to;
        if (gt < 0) {
            to = hop(spec, hostKeyFiles);
        } else {
            String f = spec.substring(0, gt);
            from = hop(f, hostKeyFiles);
            to = hop(spec.substring(gt + 1), hostKeyFiles);
            if (from.user() != null) {
                throw new IllegalArgumentException("Invalid key constraint " + f
                        + ": cannot specify user on 'from' host");
            }
        }
        try {
            return new DestinationConstraint(from, to);
        } catch (IllegalArgumentException e) {
            // ssh-add sends these and ssh-agent refuses them
            throw new IllegalArgumentException("Invalid key destination constraint \"" + spec + "\": "
                    + e.getMessage());
        }
    }

    private static DestinationConstraint.Hop hop(String s, List<Path> hostKeyFiles) throws IOException {
        int at = s.lastIndexOf('@');
        String user = at < 0 ? null : s.substring(0, at);
        String host = cleanHostname(at < 0 ? s : s.substring(at + 1));
        if (host.isEmpty()) {
            if (user == null) {
                throw new IllegalArgumentException("Invalid key destination constraint \"" + s
                        + "\": does not specify user or host");
            }
            return new DestinationConstraint.Hop(user.isEmpty() ? null : user, null, List.of());
        }
        List<DestinationConstraint.HostKey> keys = new ArrayList<>();
        for (Path file : hostKeyFiles) {
            for (KnownHosts.HostKey k : KnownHosts.keysFor(file, host)) {
                keys.add(new DestinationConstraint.HostKey(k.blob(), k.ca()));
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("No host keys found for destination \"" + host + "\"");
        }
        return new DestinationConstraint.Hop(user == null || user.isEmpty() ? null : user, host, keys);
    }

    /** OpenSSH's cleanhostname: {@code [host]} loses its brackets. */
    private static String cleanHostname(String h) {
        return h.length() >= 2 && h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }
}
