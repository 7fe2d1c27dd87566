package io.pqssh.server.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** sshd's {@code PidFile}: the process id, written once listening, removed on a clean exit. */
public final class PidFile implements AutoCloseable {
    private final Path file;

    private PidFile(Path file) {
        this.file = file;
    }

    /** Writes the pid atomically (temporary file + rename), so a reader never sees a partial number. */
    public static PidFile write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IOException("PidFile " + file + ": directory " + dir + " does not exist");
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp" + ProcessHandle.current().pid());
        Files.writeString(tmp, ProcessHandle.current().pid() + "\n");
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new PidFile(file);
    }

    public Path file() {
        return file;
    }

    /** Removes the file if it still holds this process's id (another server may have taken it over). */
    @Override
    public void close() {
        try {
            if (Files.readString(file).strip().equals(Long.toString(ProcessHandle.current().pid()))) {
                Files.delete(file);
            }
        } catch (IOException ignored) {
            // already gone
        }
    }
}
