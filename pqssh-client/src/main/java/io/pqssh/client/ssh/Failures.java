package io.pqssh.client.ssh;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.TimeoutException;

/**
 * One-line failure messages in ssh's words, without MINA's future descriptions ({@code DefaultConnectFuture[...]:
 * Failed (ConnectException) to execute: ...}) or repeated causes.
 */
public final class Failures {
    private Failures() {
    }

    /** "connect to host H port P: Connection refused" and friends; null when the failure is not a connect one. */
    public static String connect(Throwable t, String host, int port) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof UnknownHostException || c instanceof UnresolvedAddressException) {
                return "Could not resolve hostname " + host + ": Name or service not known";
            }
            if (c instanceof ConnectException) {
                String m = c.getMessage() == null ? "Connection refused" : strip(c.getMessage());
                if (m.toLowerCase(java.util.Locale.ROOT).contains("refused")) {
                    m = "Connection refused";
                }
                return "connect to host " + host + " port " + port + ": " + m;
            }
            if (c instanceof NoRouteToHostException) {
                return "connect to host " + host + " port " + port + ": No route to host";
            }
            if (c instanceof SocketTimeoutException) {
                return "connect to host " + host + " port " + port + ": Connection timed out";
            }
        }
        return null;
    }

    /** The message chain, each distinct message once, MINA's future prefixes removed. */
    public static String oneLine(Throwable t) {
        StringBuilder b = new StringBuilder();
        String last = null;
        int depth = 0;
        for (Throwable c = t; c != null && depth < 5; c = c.getCause(), depth++) {
            String m = c.getMessage();
            if (m == null) {
                if (c instanceof TimeoutException) {
                    m = "timed out";
                } else {
                    continue;
                }
            }
            m = strip(m);
            if (m.isEmpty() || (last != null && (last.contains(m) || m.contains(last)))) {
                if (last != null && m.contains(last) && !last.contains(m)) {
                    // a longer message that repeats the previous one: keep the longer
                    b.setLength(b.length() - last.length());
                    b.append(m);
                    last = m;
                }
                continue;
            }
            if (b.length() > 0) {
                b.append(": ");
            }
            b.append(m);
            last = m;
        }
        return b.length() == 0 ? t.getClass().getSimpleName() : b.toString();
    }

    /** Removes "DefaultXxxFuture[...]: Failed (XxxException) to execute: " and similar wrappers. */
    static String strip(String m) {
        String s = m;
        java.util.regex.Matcher f = java.util.regex.Pattern.compile("Default\\w*Future\\[.*\\]:\\s*(.*)$",
                java.util.regex.Pattern.DOTALL).matcher(s);
        if (f.find()) {
            s = s.substring(0, f.start()) + f.group(1);
        }
        s = s.replaceAll("Failed \\(\\w+\\) to execute:\\s*", "")
                .replaceAll("^Failed to get operation result within specified timeout: \\d+ msec", "timed out");
        return s.strip();
    }
}
