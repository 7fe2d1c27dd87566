package io.pqssh.common.process;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * This JVM's executable and arguments, for starting a copy of this process in the background ({@code ssh -f}, {@code pqssh server} without -D,
 * {@code pqssh agent}): a JVM cannot fork. {@link ProcessHandle.Info#arguments()} is empty on Linux when the command
 * line is longer than a page (the JDK reads one page of {@code /proc/self/cmdline}), which a long class path
 * reaches; {@code /proc/self/cmdline} itself holds all of it.
 */
public final class OwnCommandLine {
    private OwnCommandLine() {
    }

    /** The executable (absolute path) followed by every argument, or empty when neither source has them. */
    public static Optional<List<String>> get() {
        ProcessHandle.Info info = ProcessHandle.current().info();
        Optional<String> exe = info.command();
        if (exe.isEmpty()) {
            return Optional.empty();
        }
        List<String> out = new ArrayList<>();
        out.add(exe.get());
        Optional<List<String>> proc = procCmdline(Path.of("/proc/self/cmdline"));
        if (proc.isPresent() && proc.get().size() > 1) {
            out.addAll(proc.get().subList(1, proc.get().size()));
            return Optional.of(List.copyOf(out));
        }
        if (info.arguments().isEmpty()) {
            return Optional.empty();
        }
        out.addAll(List.of(info.arguments().get()));
        return Optional.of(List.copyOf(out));
    }

    /** The NUL-separated words of a {@code /proc/PID/cmdline} file. */
    static Optional<List<String>> procCmdline(Path file) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
        List<String> words = new ArrayList<>();
        Charset cs = Charset.defaultCharset();
        int start = 0;
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                words.add(new String(b, start, i - start, cs));
                start = i + 1;
            }
        }
        if (start < b.length) {
            words.add(new String(b, start, b.length - start, cs));
        }
        return words.isEmpty() ? Optional.empty() : Optional.of(words);
    }
}
