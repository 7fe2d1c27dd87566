package io.pqssh.core.sig;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

import io.pqssh.core.wire.MalformedMessageException;
import io.pqssh.core.wire.SshReader;

/** Test helpers: resources under /sig and a hand decoder for unencrypted openssh-key-v1 files. */
final class TestFiles {
    private TestFiles() {
    }

    static byte[] bytes(String name) {
        try (InputStream in = TestFiles.class.getResourceAsStream("/sig/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource /sig/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String text(String name) {
        return new String(bytes(name), StandardCharsets.UTF_8);
    }

    /** The decoded private section of an unencrypted openssh-key-v1 file, with its header's public key. */
    record PrivateSection(byte[] publicBlob, int check1, int check2, String keyType, SshReader fields,
            byte[] section) {
    }

    /** Decodes by hand: armor, "openssh-key-v1\0", cipher none, kdf none, one key, then the private section. */
    static PrivateSection unencryptedPrivateSection(String pem) throws MalformedMessageException {
        String s = pem.strip();
        String begin = "-----BEGIN OPENSSH PRIVATE KEY-----";
        String end = "-----END OPENSSH PRIVATE KEY-----";
        if (!s.startsWith(begin) || !s.endsWith(end)) {
            throw new IllegalArgumentException("not an OpenSSH private key");
        }
        byte[] bin = Base64.getDecoder()
                .decode(s.substring(begin.length(), s.length() - end.length()).replaceAll("\\s+", ""));
        byte[] magic = "openssh-key-v1\0".getBytes(StandardCharsets.US_ASCII);
        if (!Arrays.equals(Arrays.copyOf(bin, magic.length), magic)) {
            throw new IllegalArgumentException("bad magic");
        }
        SshReader r = new SshReader(bin, magic.length, bin.length - magic.length);
        String cipher = r.getUtf8();
        String kdf = r.getUtf8();
        byte[] kdfOptions = r.getString();
        if (!cipher.equals("none") || !kdf.equals("none") || kdfOptions.length != 0) {
            throw new IllegalArgumentException("encrypted key: " + cipher + "/" + kdf);
        }
        if (r.getUint32() != 1) {
            throw new IllegalArgumentException("expected one key");
        }
        byte[] pub = r.getString();
        byte[] section = r.getString();
        r.expectEnd("key file");
        SshReader p = new SshReader(section);
        int c1 = (int) p.getUint32();
        int c2 = (int) p.getUint32();
        String type = p.getUtf8();
        return new PrivateSection(pub, c1, c2, type, p, section);
    }
}
