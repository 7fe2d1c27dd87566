package io.pqssh.lab.link;

import java.util.ArrayList;
import java.util.List;

/**
 * One TCP connection as the emulator saw it: the "one ruler". Times are {@link System#nanoTime()} values
 * (CLOCK_MONOTONIC, shared with child processes on this machine). "c2s" is the direction of the first SYN.
 */
public final class Connection {
    /** One packet delivered (or dropped) on this connection. */
    public record Event(long nanos, boolean c2s, int ipBytes, int payload, int flags, boolean dropped,
            boolean retransmission) {
    }

    private static final int MAX_EVENTS = 50_000;

    public final String client;
    public final String server;
    public final boolean clientOnSideB;
    private long firstSynNanos;
    private long synAckNanos;
    private long lastPayloadS2cNanos;
    private long lastPacketNanos;
    private long bytesC2s;
    private long bytesS2c;
    private long packetsC2s;
    private long packetsS2c;
    private long payloadC2s;
    private long payloadS2c;
    private long dropsC2s;
    private long dropsS2c;
    private long retransC2s;
    private long retransS2c;
    private int syns;
    private int roundTrips;
    private int lastPayloadDir; // 0 none, 1 c2s, 2 s2c
    private long maxSeqEndC2s = -1;
    private long maxSeqEndS2c = -1;
    private long seqBaseC2s = -1;
    private long seqBaseS2c = -1;
    private final List<Event> events = new ArrayList<>();
    private final Stream c2sStream = new Stream();
    private final Stream s2cStream = new Stream();

    /** The first bytes of one direction's TCP byte stream, in order (what an SSH dissector needs). */
    static final class Stream {
        static final int MAX = 512 * 1024;
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        private long base = -1;
        private boolean gap;

        void add(Packet p) {
            if (p.payload == 0 || gap) {
                return;
            }
            if (base < 0) {
                base = p.seq;
            }
            long rel = (p.seq - base) & 0xffffffffL;
            long have = bytes.size();
            if (rel > have) {
                gap = true; // an earlier segment was lost and not yet repeated: stop here
                return;
            }
            int skip = (int) (have - rel);
            int n = p.payload - skip;
            if (n > 0 && have + n <= MAX) {
                bytes.write(p.data, p.payloadOffset + skip, n);
            }
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }
    }

    Connection(String client, String server, boolean clientOnSideB, long synNanos) {
        this.client = client;
        this.server = server;
        this.clientOnSideB = clientOnSideB;
        this.firstSynNanos = synNanos;
        this.lastPacketNanos = synNanos;
    }

    /** Called when a packet arrives at the emulator: returns whether its payload was seen before. */
    synchronized boolean arrived(Packet p, boolean c2s) {
        if (p.isSyn() && c2s) {
            syns++;
            roundTrips = Math.max(roundTrips, 1);
        }
        boolean retrans = false;
        if (p.payload > 0) {
            long base = c2s ? seqBaseC2s : seqBaseS2c;
            if (base < 0) {
                base = p.seq;
                if (c2s) {
                    seqBaseC2s = base;
                } else {
                    seqBaseS2c = base;
                }
            }
            long rel = (p.seq - base) & 0xffffffffL;
            long end = rel + p.payload;
            long max = c2s ? maxSeqEndC2s : maxSeqEndS2c;
            if (end <= max) {
                retrans = true;
                if (c2s) {
                    retransC2s++;
                } else {
                    retransS2c++;
                }
            } else if (c2s) {
                maxSeqEndC2s = end;
            } else {
                maxSeqEndS2c = end;
            }
        }
        return retrans;
    }

    synchronized void dropped(Packet p, boolean c2s, boolean retrans) {
        if (c2s) {
            dropsC2s++;
        } else {
            dropsS2c++;
        }
        log(new Event(p.arrivalNanos, c2s, p.length, p.payload, p.flags, true, retrans));
    }

    synchronized void delivered(Packet p, boolean c2s, boolean retrans, long now) {
        lastPacketNanos = Math.max(lastPacketNanos, now);
        if (!c2s && synAckNanos == 0 && (p.flags & (Packet.SYN | Packet.ACK)) == (Packet.SYN | Packet.ACK)) {
            synAckNanos = now;
        }
        if (!c2s && p.payload > 0) {
            lastPayloadS2cNanos = now;
        }
        if (c2s) {
            bytesC2s += p.length;
            packetsC2s++;
            payloadC2s += p.payload;
        } else {
            bytesS2c += p.length;
            packetsS2c++;
            payloadS2c += p.payload;
        }
        if (p.payload > 0 && !retrans) {
            if (!c2s && lastPayloadDir == 1) {
                roundTrips++;
            }
            lastPayloadDir = c2s ? 1 : 2;
        }
        log(new Event(now, c2s, p.length, p.payload, p.flags, false, retrans));
        (c2s ? c2sStream : s2cStream).add(p);
    }

    /** The reassembled start of the client-to-server (true) or server-to-client byte stream. */
    public synchronized byte[] stream(boolean c2s) {
        return (c2s ? c2sStream : s2cStream).bytes();
    }

    /** TCP payload bytes delivered in one direction up to a time. */
    public synchronized long payloadUntil(boolean c2s, long nanos) {
        long n = 0;
        for (Event e : events) {
            if (!e.dropped() && !e.retransmission() && e.c2s() == c2s && e.nanos() <= nanos) {
                n += e.payload();
            }
        }
        return n;
    }

    private void log(Event e) {
        if (events.size() < MAX_EVENTS) {
            events.add(e);
        }
    }

    public synchronized long firstSynNanos() {
        return firstSynNanos;
    }

    public synchronized long lastPacketNanos() {
        return lastPacketNanos;
    }

    /** First SYN (arrival at the emulator) to the delivery of the last packet, in milliseconds. */
    public synchronized double durationMs() {
        return (lastPacketNanos - firstSynNanos) / 1e6;
    }

    /** First SYN to the delivery of the first SYN-ACK (the connect() time on the emulator's clock), or NaN. */
    public synchronized double connectMs() {
        return synAckNanos == 0 ? Double.NaN : (synAckNanos - firstSynNanos) / 1e6;
    }

    /** First SYN to the delivery of the last server-to-client segment carrying data, or NaN. */
    public synchronized double lastServerDataMs() {
        return lastPayloadS2cNanos == 0 ? Double.NaN : (lastPayloadS2cNanos - firstSynNanos) / 1e6;
    }

    public synchronized long bytesC2s() {
        return bytesC2s;
    }

    public synchronized long bytesS2c() {
        return bytesS2c;
    }

    public synchronized long packetsC2s() {
        return packetsC2s;
    }

    public synchronized long packetsS2c() {
        return packetsS2c;
    }

    public synchronized long payloadC2s() {
        return payloadC2s;
    }

    public synchronized long payloadS2c() {
        return payloadS2c;
    }

    public synchronized long drops() {
        return dropsC2s + dropsS2c;
    }

    /** Segments whose payload the emulator had already seen in that direction (TCP retransmissions). */
    public synchronized long retransmissions() {
        return retransC2s + retransS2c + Math.max(0, syns - 1);
    }

    /** The SYN exchange plus every change of the payload direction from client-to-server to server-to-client. */
    public synchronized int roundTrips() {
        return roundTrips;
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Bytes (IP) delivered in each direction up to a time: {c2s, s2c, packetsC2s, packetsS2c}. */
    public synchronized long[] countsUntil(long nanos) {
        long[] r = new long[4];
        for (Event e : events) {
            if (!e.dropped() && e.nanos() <= nanos) {
                r[e.c2s() ? 0 : 1] += e.ipBytes();
                r[e.c2s() ? 2 : 3]++;
            }
        }
        return r;
    }

    /** Round trips counted as in {@link #roundTrips()} up to a time. */
    public synchronized int roundTripsUntil(long nanos) {
        int rt = 1;
        int last = 0;
        for (Event e : events) {
            if (e.dropped() || e.retransmission() || e.payload() == 0 || e.nanos() > nanos) {
                continue;
            }
            if (!e.c2s() && last == 1) {
                rt++;
            }
            last = e.c2s() ? 1 : 2;
        }
        return rt;
    }

    @Override
    public synchronized String toString() {
        return client + " -> " + server + String.format(" %.3f ms, c2s %d B/%d pkts, s2c %d B/%d pkts, retx %d, rt %d",
                durationMs(), bytesC2s, packetsC2s, bytesS2c, packetsS2c, retransmissions(), roundTrips);
    }
}
