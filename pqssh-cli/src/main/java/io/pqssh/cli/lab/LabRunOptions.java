package io.pqssh.cli.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import picocli.CommandLine.Option;

/** The options every lab that starts its own servers takes alike (load, pending, transfer): a {@code @Mixin}. */
final class LabRunOptions {
    @Option(names = "--timeout", description = "Seconds to wait for each login step (default 30).")
    double timeout = 30;

    @Option(names = "--work-dir", description = "Keys, configs and server logs (default: a temporary directory).")
    Path workDir;

    /** The login timeout; a non-positive {@code --timeout} is an error. */
    Duration timeout() {
        if (!(timeout > 0)) {
            throw new IllegalArgumentException("--timeout must be > 0, got " + timeout);
        }
        return Duration.ofMillis(Math.round(timeout * 1000));
    }

    /** {@code --work-dir}, or a new temporary directory named after the lab. */
    Path workDir(String lab) throws IOException {
        return workDir != null ? workDir : Files.createTempDirectory("pqssh-lab-" + lab);
    }
}
