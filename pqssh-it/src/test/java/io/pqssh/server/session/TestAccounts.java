package io.pqssh.server.session;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Removal of the accounts a test created: first any process still running as one (by PID), then the account. */
final class TestAccounts {
    private TestAccounts() {
    }

    static void remove(String user) throws Exception {
        for (int round = 0; round < 20; round++) {
            List<Long> pids = pidsOf(user);
            if (pids.isEmpty()) {
                break;
            }
            for (long pid : pids) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            Thread.sleep(100);
        }
        Process p = new ProcessBuilder("/usr/sbin/userdel", "-r", user).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 && p.exitValue() != 12) {
            // 12: the home or mail spool could not be removed (there is no spool for these accounts)
            throw new IllegalStateException("userdel -r " + user + " failed: " + out);
        }
    }

    /** The processes whose real uid is the user's (the sessions this test started as it). */
    private static List<Long> pidsOf(String user) throws Exception {
        Process p = new ProcessBuilder("ps", "-o", "pid=", "-U", user).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(10, TimeUnit.SECONDS);
        List<Long> pids = new ArrayList<>();
        for (String l : out.split("\\s+")) {
            if (!l.isBlank()) {
                pids.add(Long.parseLong(l.strip()));
            }
        }
        return pids;
    }
}
