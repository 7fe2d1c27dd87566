package io.pqssh.cli.agent;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.pqssh.client.keys.FingerprintHash;
import io.pqssh.client.keys.KeyDescriptions;
import io.pqssh.core.agent.AgentClient;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.PublicKeyLine;

/**
 * The lines of {@code pqssh add -l} / {@code -L} for what an agent answered: plain keys and certificates of every
 * type pqssh describes, printed as {@code ssh-add} prints them. An agent may hold a type pqssh cannot describe (a
 * newer OpenSSH's, another tool's, or a malformed blob); ssh-add drops those silently, pqssh drops them from
 * {@code -l} and names them in one warning, so that the rest of the listing still appears.
 */
public final class AgentListing {
    /** The lines to print and the warning for what was left out (null when nothing was). */
    public record Result(List<String> lines, String warning) {
    }

    private AgentListing() {
    }

    /**
     * {@code fingerprints}: ssh-add -l's {@code bits fingerprint comment (TYPE)}; otherwise ssh-add -L's
     * {@code type base64 [comment]}, which needs only the blob's type name.
     */
    public static Result of(List<AgentClient.Identity> identities, boolean fingerprints, FingerprintHash hash) {
        List<String> lines = new ArrayList<>();
        Set<String> skipped = new LinkedHashSet<>();
        int skippedCount = 0;
        for (AgentClient.Identity id : identities) {
            try {
                if (fingerprints) {
                    lines.add(KeyDescriptions.fingerprintLine(id.blob(), id.comment(), hash));
                } else {
                    String type = PublicKeyLine.blobKeyType(id.blob());
                    if (!type.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                        throw new KeyFileException("key type name with control characters");
                    }
                    lines.add(type + " "
                            + Base64.getEncoder().encodeToString(id.blob())
                            + (id.comment().isEmpty() ? "" : " " + id.comment()));
                }
            } catch (KeyFileException e) {
                skippedCount++;
                skipped.add(typeName(id.blob()));
            }
        }
        String warning = null;
        if (skippedCount > 0) {
            warning = "pqssh add: " + skippedCount + (skippedCount == 1 ? " identity" : " identities")
                    + " of a key type pqssh cannot describe not listed: " + String.join(", ", skipped);
        }
        return new Result(List.copyOf(lines), warning);
    }

    /** The blob's type name for the warning, with control characters and overlong names cut down. */
    private static String typeName(byte[] blob) {
        String t;
        try {
            t = PublicKeyLine.blobKeyType(blob);
        } catch (KeyFileException e) {
            return "(malformed key blob)";
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < t.length() && b.length() < 64; i++) {
            char c = t.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return t.length() > 64 ? b + "..." : b.toString();
    }
}
