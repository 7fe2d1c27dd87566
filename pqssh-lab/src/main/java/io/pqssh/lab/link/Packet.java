package io.pqssh.lab.link;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** One IP packet in flight through the emulator, with the IPv4/TCP header fields the ruler needs. */
final class Packet {
    static final int FIN = 0x01;
    static final int SYN = 0x02;
    static final int RST = 0x04;
    static final int ACK = 0x10;

    final byte[] data;
    final int length;
    final long arrivalNanos;
    long departNanos;
    long deliverNanos;
    // parsed (tcp == false when not IPv4/TCP)
    boolean ipv4;
    boolean tcp;
    int srcIp;
    int dstIp;
    int srcPort;
    int dstPort;
    int flags;
    long seq;
    int payload;
    int payloadOffset;
    boolean retrans;

    Packet(byte[] data, int length, long arrivalNanos) {
        this.data = data;
        this.length = length;
        this.arrivalNanos = arrivalNanos;
        parse();
    }

    static Packet copyOf(MemorySegment buf, int n, long now) {
        byte[] b = new byte[n];
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, b, 0, n);
        return new Packet(b, n, now);
    }

    private int u8(int i) {
        return data[i] & 0xff;
    }

    private int u16(int i) {
        return (u8(i) << 8) | u8(i + 1);
    }

    private int s32(int i) {
        return (u8(i) << 24) | (u8(i + 1) << 16) | (u8(i + 2) << 8) | u8(i + 3);
    }

    private void parse() {
        if (length < 20 || (u8(0) >> 4) != 4) {
            return;
        }
        ipv4 = true;
        int ihl = (u8(0) & 0x0f) * 4;
        int total = Math.min(u16(2), length);
        int proto = u8(9);
        srcIp = s32(12);
        dstIp = s32(16);
        int fragOff = u16(6) & 0x1fff;
        if (proto != 6 || fragOff != 0 || total < ihl + 20) {
            return;
        }
        int t = ihl;
        srcPort = u16(t);
        dstPort = u16(t + 2);
        seq = s32(t + 4) & 0xffffffffL;
        int doff = (u8(t + 12) >> 4) * 4;
        flags = u8(t + 13);
        payload = Math.max(0, total - ihl - doff);
        payloadOffset = ihl + doff;
        tcp = true;
    }

    boolean isSyn() {
        return tcp && (flags & SYN) != 0 && (flags & ACK) == 0;
    }

    static String ip(int a) {
        return ((a >>> 24) & 0xff) + "." + ((a >>> 16) & 0xff) + "." + ((a >>> 8) & 0xff) + "." + (a & 0xff);
    }
}
