package io.pqssh.core.keys.authorized;

/** A line of an authorized keys file that was skipped, and why (sshd logs these and carries on). */
public record RejectedLine(String source, int lineNumber, String reason) {
    @Override
    public String toString() {
        return source + ":" + lineNumber + ": " + reason;
    }
}
