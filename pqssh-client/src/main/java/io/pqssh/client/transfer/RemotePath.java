package io.pqssh.client.transfer;

/**
 * An scp operand: {@code [user@]host:path} (remote) or a local path, as scp tells them apart: a colon before any
 * slash makes it remote ({@code ./a:b} and {@code /x:y} are local); {@code [v6]:path} works; an empty remote path is
 * the login directory.
 */
public record RemotePath(String destination, String path) {
    public static RemotePath parseOrNull(String operand) {
        int colon;
        if (operand.startsWith("[") || operand.matches("^[^/\\[]*@\\[.*")) {
            int close = operand.indexOf("]:");
            if (close < 0) {
                return null;
            }
            colon = close + 1;
        } else {
            colon = operand.indexOf(':');
        }
        int slash = operand.indexOf('/');
        if (colon <= 0 || (slash >= 0 && slash < colon)) {
            return null;
        }
        String dest = operand.substring(0, colon).replace("[", "").replace("]", "");
        String path = operand.substring(colon + 1);
        return new RemotePath(dest, path.isEmpty() ? "." : path);
    }
}
