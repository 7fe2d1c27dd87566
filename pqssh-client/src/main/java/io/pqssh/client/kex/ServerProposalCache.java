package io.pqssh.client.kex;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each server offered in its last KEXINIT (key exchange and host key name-lists), per host and port: the
 * knowledge that lets the client's {@code first_kex_packet_follows} guess be right (see {@link FirstKexGuess}).
 * The file form is {@code ~/.ssh/pqssh_kex_cache} beside {@code known_hosts}, one line per destination:
 * {@code host|[host]:port kex,... hostkey,...} (docs/round-trips.md, "KEX guess cache").
 */
public abstract class ServerProposalCache {
    /** A server's offer, markers such as {@code kex-strict-s-v00@openssh.com} included as sent. */
    public static final class Proposal {
        private final List<String> kex;
        private final List<String> hostKeys;

        public Proposal(List<String> kex, List<String> hostKeys) {
            this.kex = List.copyOf(kex);
            this.hostKeys = List.copyOf(hostKeys);
        }

        public List<String> kex() {
            return kex;
        }

        public List<String> hostKeys() {
            return hostKeys;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Proposal p && p.kex.equals(kex) && p.hostKeys.equals(hostKeys);
        }

        @Override
        public int hashCode() {
            return kex.hashCode() * 31 + hostKeys.hashCode();
        }

        @Override
        public String toString() {
            return String.join(",", kex) + " " + String.join(",", hostKeys);
        }
    }

    /** The most entries a cache keeps; the oldest go first. */
    static final int MAX_ENTRIES = 4096;

    public abstract Optional<Proposal> lookup(String host, int port);

    public abstract void record(String host, int port, Proposal proposal);

    /** Remembers nothing: the client never guesses. */
    public static ServerProposalCache none() {
        return new ServerProposalCache() {
            @Override
            public Optional<Proposal> lookup(String host, int port) {
                return Optional.empty();
            }

            @Override
            public void record(String host, int port, Proposal proposal) {
                // nothing kept
            }
        };
    }

    /** Kept in memory: the second and later connections of one client to a host can guess. */
    public static ServerProposalCache inMemory() {
        return new InMemory();
    }

    /** Kept in {@code file} (created 0600 on first write), read on every lookup so processes share it. */
    public static ServerProposalCache file(Path file) {
        return new FileCache(file);
    }

    static String key(String host, int port) {
        String h = host.toLowerCase(Locale.ROOT);
        return port == 22 ? h : "[" + h + "]:" + port;
    }

    private static final class InMemory extends ServerProposalCache {
        private final Map<String, Proposal> entries = new ConcurrentHashMap<>();

        @Override
        public Optional<Proposal> lookup(String host, int port) {
            return Optional.ofNullable(entries.get(key(host, port)));
        }

        @Override
        public void record(String host, int port, Proposal proposal) {
            if (entries.size() >= MAX_ENTRIES) {
                entries.clear();
            }
            entries.put(key(host, port), proposal);
        }
    }

    private static final class FileCache extends ServerProposalCache {
        private static final Logger LOG = LoggerFactory.getLogger(FileCache.class);
        private final Path file;

        FileCache(Path file) {
            this.file = file;
        }

        @Override
        public Optional<Proposal> lookup(String host, int port) {
            return Optional.ofNullable(read().get(key(host, port)));
        }

        @Override
        public synchronized void record(String host, int port, Proposal proposal) {
            Map<String, Proposal> entries = read();
            String k = key(host, port);
            if (proposal.equals(entries.get(k))) {
                return;
            }
            entries.remove(k);
            entries.put(k, proposal);
            while (entries.size() > MAX_ENTRIES) {
                entries.remove(entries.keySet().iterator().next());
            }
            StringBuilder out = new StringBuilder("# pqssh: each server's last KEX and host key lists, for the"
                    + " first_kex_packet_follows guess (docs/round-trips.md)\n");
            entries.forEach((h, p) -> out.append(h).append(' ').append(p).append('\n'));
            try {
                Path dir = file.toAbsolutePath().getParent();
                Files.createDirectories(dir);
                Path tmp = Files.createTempFile(dir, ".pqssh_kex_cache", ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                try {
                    Files.writeString(tmp, out, StandardCharsets.UTF_8);
                    try {
                        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    } catch (AtomicMoveNotSupportedException e) {
                        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                    }
                } finally {
                    Files.deleteIfExists(tmp);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // a cache that cannot be written only costs the next connection its guess
                LOG.debug("cannot update {}: {}", file, e.toString());
            }
        }

        /** Entries in file order; unreadable lines are skipped (the file is only a cache). */
        private Map<String, Proposal> read() {
            Map<String, Proposal> entries = new LinkedHashMap<>();
            if (!Files.isRegularFile(file)) {
                return entries;
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                LOG.debug("cannot read {}: {}", file, e.toString());
                return entries;
            } catch (UncheckedIOException e) {
                return entries;
            }
            for (String line : lines) {
                String[] f = line.strip().split("\\s+");
                if (f.length != 3 || f[0].startsWith("#")) {
                    continue;
                }
                entries.put(f[0], new Proposal(names(f[1]), names(f[2])));
            }
            return entries;
        }

        private static List<String> names(String list) {
            return new ArrayList<>(Arrays.asList(list.split(",")));
        }
    }
}
