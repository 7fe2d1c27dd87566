package io.pqssh.inventory.scan;

import java.util.List;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;
import io.pqssh.core.wire.SshWriter;

/** An SSH_MSG_KEXINIT (RFC 4253 7.1): the ten name-lists a peer offers. */
public record KexInit(List<String> kex, List<String> hostKey, List<String> ciphersC2S, List<String> ciphersS2C,
        List<String> macsC2S, List<String> macsS2C, List<String> compC2S, List<String> compS2C,
        List<String> langC2S, List<String> langS2C, boolean firstKexPacketFollows) {
    public static final int SSH_MSG_KEXINIT = 20;
    /** No real name-list is near this; a longer one is a sign of garbage. */
    public static final int MAX_NAME_LIST = 16 * 1024;
    public static final int MAX_NAMES = 512;
    public static final int MAX_NAME = 64;

    /** Parses a KEXINIT payload (starting with the message number). Strict: bounded lists, no trailing bytes. */
    public static KexInit parse(byte[] payload) throws MalformedMessageException {
        SshReader r = new SshReader(payload);
        int type = r.getByte();
        if (type != SSH_MSG_KEXINIT) {
            throw new MalformedMessageException("expected SSH_MSG_KEXINIT (20), got message " + type);
        }
        r.getRaw(16); // cookie
        List<String> kex = nameList(r, "kex_algorithms");
        List<String> hk = nameList(r, "server_host_key_algorithms");
        List<String> c1 = nameList(r, "encryption_algorithms_client_to_server");
        List<String> c2 = nameList(r, "encryption_algorithms_server_to_client");
        List<String> m1 = nameList(r, "mac_algorithms_client_to_server");
        List<String> m2 = nameList(r, "mac_algorithms_server_to_client");
        List<String> z1 = nameList(r, "compression_algorithms_client_to_server");
        List<String> z2 = nameList(r, "compression_algorithms_server_to_client");
        List<String> l1 = nameList(r, "languages_client_to_server");
        List<String> l2 = nameList(r, "languages_server_to_client");
        boolean follows = r.getBoolean();
        long reserved = r.getUint32();
        if (reserved != 0) {
            throw new MalformedMessageException("KEXINIT reserved field is " + reserved + ", not 0");
        }
        r.expectEnd("KEXINIT");
        if (kex.isEmpty() || hk.isEmpty()) {
            throw new MalformedMessageException("KEXINIT with an empty kex or host key algorithm list");
        }
        return new KexInit(kex, hk, c1, c2, m1, m2, z1, z2, l1, l2, follows);
    }

    private static List<String> nameList(SshReader r, String field) throws MalformedMessageException {
        long len = r.getUint32();
        if (len > MAX_NAME_LIST || len > r.remaining()) {
            throw new MalformedMessageException(field + " length " + len + " exceeds the message or the "
                    + MAX_NAME_LIST + "-byte limit");
        }
        byte[] raw = r.getRaw((int) len);
        if (raw.length == 0) {
            return List.of();
        }
        String s = new String(raw, java.nio.charset.StandardCharsets.US_ASCII);
        String[] names = s.split(",", -1);
        if (names.length > MAX_NAMES) {
            throw new MalformedMessageException(field + " has " + names.length + " names (limit " + MAX_NAMES + ")");
        }
        for (String n : names) {
            if (n.isEmpty() || n.length() > MAX_NAME) {
                throw new MalformedMessageException(field + " has an empty or over-long name");
            }
            for (int i = 0; i < n.length(); i++) {
                char c = n.charAt(i);
                if (c <= ' ' || c >= 0x7f) {
                    throw new MalformedMessageException(field + " has a non-printable character");
                }
            }
        }
        return List.of(names);
    }

    /** The payload of this KEXINIT with the given cookie. */
    public byte[] encode(byte[] cookie) {
        SshWriter w = new SshWriter(1024).putByte(SSH_MSG_KEXINIT).putRaw(cookie);
        for (List<String> l : List.of(kex, hostKey, ciphersC2S, ciphersS2C, macsC2S, macsS2C, compC2S, compS2C,
                langC2S, langS2C)) {
            w.putString(String.join(",", l));
        }
        return w.putBoolean(firstKexPacketFollows).putUint32(0).toByteArray();
    }
}
