package io.pqssh.cli.lab;

import java.util.List;
import java.util.concurrent.Callable;

import io.pqssh.lab.link.Netns;
import picocli.CommandLine.Command;

/** {@code pqssh lab cleanup}: removes pqssh- namespaces left by lab processes that no longer run. */
@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = "Remove stale pqssh-<pid>-* network namespaces of lab processes that are gone.")
public final class LabLinkCleanupCommand implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
        Netns.requireUsable();
        List<String> removed = Netns.cleanupStale();
        System.out.println(removed.isEmpty() ? "nothing to clean up" : "removed " + String.join(", ", removed));
        return 0;
    }
}
