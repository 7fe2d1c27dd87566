package io.pqssh.client.mux;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.kex.KexProposalOption;

import io.pqssh.client.config.Tokens;
import io.pqssh.client.ssh.OpenChannels;

/**
 * What a master answers to OpenSSH 10.3's "info" extension (MUX_C_EXT_INFO, {@code ssh -O conninfo} and {@code ssh
 * -O channels}): text with CR LF line ends, in the layout of ssh's {@code connection_info_message} and
 * {@code channel_open_message}. Of ssh's connection lines, pqssh has no counterpart for {@code rekey} and
 * {@code traffic} (MINA keeps no packet and block counts to report); they are left out.
 */
final class MuxInfo {
    private MuxInfo() {
    }

    static String connection(ClientSession session, long startedNanos) {
        StringBuilder b = new StringBuilder();
        b.append("Connection information for ").append(Tokens.localHostName()).append(" pid ")
                .append(ProcessHandle.current().pid()).append("\r\n");
        SocketAddress local = session.getIoSession().getLocalAddress();
        SocketAddress remote = session.getIoSession().getRemoteAddress();
        if (local instanceof InetSocketAddress l && remote instanceof InetSocketAddress r) {
            b.append("  tcp ").append(l.getAddress().getHostAddress()).append(':').append(l.getPort())
                    .append(" -> ").append(r.getAddress().getHostAddress()).append(':').append(r.getPort())
                    .append("\r\n");
        }
        b.append("  duration ").append(timeframe((System.nanoTime() - startedNanos) / 1_000_000_000L)).append("\r\n");
        b.append("  kexalgorithm ").append(session.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS))
                .append("\r\n");
        b.append("  hostkeyalgorithm ").append(session.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS))
                .append("\r\n");
        String in = session.getNegotiatedKexParameter(KexProposalOption.S2CENC);
        String out = session.getNegotiatedKexParameter(KexProposalOption.C2SENC);
        b.append("  cipher ").append(pair(in, out)).append("\r\n");
        b.append("  mac ").append(pair(mac(in, session.getNegotiatedKexParameter(KexProposalOption.S2CMAC)),
                mac(out, session.getNegotiatedKexParameter(KexProposalOption.C2SMAC)))).append("\r\n");
        b.append("  compression ").append(pair(session.getNegotiatedKexParameter(KexProposalOption.S2CCOMP),
                session.getNegotiatedKexParameter(KexProposalOption.C2SCOMP))).append("\r\n");
        return b.toString();
    }

    /** ssh's listing of open channels, then the channels relayed for proxy-mode clients. */
    static String channels(ClientSession session, MuxProxy proxy) {
        return OpenChannels.message(session) + proxy.channelLines();
    }

    /** One name when both directions agree, else "IN in, OUT out" (ssh's dedupe_alg_names). */
    private static String pair(String in, String out) {
        String i = in == null ? "<implicit>" : in;
        String o = out == null ? "<implicit>" : out;
        return i.equals(o) ? i : i + " in, " + o + " out";
    }

    /** AEAD ciphers carry their own integrity: ssh shows their MAC as implicit. */
    private static String mac(String cipher, String mac) {
        return cipher != null && (cipher.contains("gcm") || cipher.contains("chacha")) ? null : mac;
    }

    /** ssh's time frame: {@code hh:mm:ss} under a day, {@code DdHHhMMm} under a week, then {@code WWwDdHHh}. */
    static String timeframe(long seconds) {
        long t = Math.max(0, seconds);
        long sec = t % 60;
        t /= 60;
        long min = t % 60;
        t /= 60;
        long hrs = t % 24;
        t /= 24;
        long day = t % 7;
        long week = t / 7;
        if (week > 0) {
            return String.format("%02dw%01dd%02dh", week, day, hrs);
        }
        if (day > 0) {
            return String.format("%01dd%02dh%02dm", day, hrs, min);
        }
        return String.format("%02d:%02d:%02d", hrs, min, sec);
    }
}
