package io.pqssh.mina.internal.auth;

import java.util.Arrays;

import org.apache.sshd.common.util.buffer.Buffer;

import io.pqssh.core.wire.SshReader;

/** Hands the unread part of a MINA buffer to the MINA-free protocol core. */
public final class MinaBuffers {
    private MinaBuffers() {
    }

    public static SshReader remaining(Buffer buffer) {
        byte[] rest = Arrays.copyOfRange(buffer.array(), buffer.rpos(), buffer.wpos());
        buffer.rpos(buffer.wpos());
        return new SshReader(rest);
    }
}
