package io.pqssh.server.session;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

import io.pqssh.server.login.Account;

/**
 * sshd's {@code ChrootDirectory}: the tokens ({@code %%}, {@code %h}, {@code %u}, {@code %U}) and
 * {@code safely_chroot}'s rule that every component of the path, from {@code /} down, is a directory owned by root
 * and writable by no group or other user. Anything else would let the user (or a group) rearrange what the session
 * sees as {@code /}, so the session fails with sshd's message instead.
 */
public final class Chroot {
    private Chroot() {
    }

    /** The directory for {@code account}, its tokens expanded (sshd's {@code percent_expand}). */
    public static String expand(String spec, Account account) throws IOException {
        Map<Character, String> tokens = Map.of('h', account.home().toString(), 'u', account.name(),
                'U', Integer.toString(account.uid()));
        try {
            return io.pqssh.common.text.PercentExpand.expand(spec, tokens);
        } catch (IllegalArgumentException e) {
            throw new IOException("ChrootDirectory " + spec + ": " + e.getMessage());
        }
    }

    /**
     * sshd's {@code safely_chroot} checks, in its words: the path must be absolute, and each component a
     * root-owned directory without group or other write permission.
     */
    public static Path check(String path) throws IOException {
        if (!path.startsWith("/")) {
            throw new IOException("chroot path does not begin at root");
        }
        java.util.List<String> components = new java.util.ArrayList<>(java.util.List.of("/"));
        StringBuilder prefix = new StringBuilder();
        for (String part : path.split("/")) {
            if (!part.isEmpty()) {
                prefix.append('/').append(part);
                components.add(prefix.toString());
            }
        }
        for (int i = 0; i < components.size(); i++) {
            String c = components.get(i);
            int uid;
            int mode;
            try {
                // stat(2), as sshd: symbolic links are followed
                uid = (Integer) Files.getAttribute(Path.of(c), "unix:uid");
                mode = (Integer) Files.getAttribute(Path.of(c), "unix:mode");
            } catch (NoSuchFileException e) {
                throw new IOException("safely_chroot: stat(\"" + c + "\"): No such file or directory");
            }
            String which = i == components.size() - 1 ? "" : "component ";
            if (uid != 0 || (mode & 022) != 0) {
                throw new IOException("bad ownership or modes for chroot directory " + which + "\"" + c + "\"");
            }
            if (!Files.isDirectory(Path.of(c))) {
                throw new IOException("chroot path " + which + "\"" + c + "\" is not a directory");
            }
        }
        return Path.of(path);
    }
}
