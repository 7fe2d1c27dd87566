package io.pqssh.common.forward;

import org.apache.sshd.common.channel.exception.SshChannelOpenException;

/** A refused channel open ({@code SSH_MSG_CHANNEL_OPEN_FAILURE}) as ssh reports it. */
public final class OpenFailure {
    private OpenFailure() {
    }

    /** ssh's line for a refused channel open ({@code channel N: open failed: reason: text}), or null if none. */
    public static String line(Throwable e) {
        SshChannelOpenException refused = cause(e);
        return refused == null ? null : "channel " + refused.getChannelId() + ": open failed: "
                + reason(refused.getReasonCode()) + ": " + refused.getMessage();
    }

    /** The peer's reason code (RFC 4254 section 5.1), or 0 when {@code e} is not a refusal. */
    public static int reasonCode(Throwable e) {
        SshChannelOpenException refused = cause(e);
        return refused == null ? 0 : refused.getReasonCode();
    }

    private static SshChannelOpenException cause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SshChannelOpenException) {
                return (SshChannelOpenException) t;
            }
        }
        return null;
    }

    /** RFC 4254 section 5.1 reason codes, in OpenSSH's words. */
    private static String reason(int code) {
        switch (code) {
            case 1:
                return "administratively prohibited";
            case 2:
                return "connect failed";
            case 3:
                return "unknown channel type";
            case 4:
                return "resource shortage";
            default:
                return "unknown reason " + code;
        }
    }
}
