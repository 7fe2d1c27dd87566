package io.pqssh.common.cipher;

import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.cipher.CipherFactory;

import io.pqssh.mina.internal.kex.KexInitDefaults;

/**
 * The transport ciphers pqssh's client and server register with MINA: {@link KexInitDefaults#CIPHERS} (OpenSSH's
 * list), with {@code chacha20-poly1305@openssh.com} served by {@link JdkChaCha20Poly1305}. MINA's AES-CTR and
 * AES-GCM already come from SunJCE (with the JDK's AES/GHASH intrinsics) and stay as they are.
 */
public final class TransportCiphers {
    /** {@code chacha20-poly1305@openssh.com} on the JDK's ChaCha20. */
    public static final CipherFactory CHACHA20_POLY1305 = new CipherFactory() {
        @Override
        public String getName() {
            return BuiltinCiphers.cc20p1305_openssh.getName();
        }

        @Override
        public Cipher create() {
            try {
                return new JdkChaCha20Poly1305();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("the JDK's ChaCha20 cipher is not available", e);
            }
        }

        @Override
        public boolean isSupported() {
            return BuiltinCiphers.cc20p1305_openssh.isSupported();
        }

        @Override
        public String getAlgorithm() {
            return "ChaCha20";
        }

        @Override
        public int getKeySize() {
            return BuiltinCiphers.cc20p1305_openssh.getKeySize();
        }

        @Override
        public String getTransformation() {
            return "ChaCha20";
        }

        @Override
        public int getIVSize() {
            return BuiltinCiphers.cc20p1305_openssh.getIVSize();
        }

        @Override
        public int getAuthenticationTagSize() {
            return BuiltinCiphers.cc20p1305_openssh.getAuthenticationTagSize();
        }

        @Override
        public int getCipherBlockSize() {
            return BuiltinCiphers.cc20p1305_openssh.getCipherBlockSize();
        }

        @Override
        public int getKdfSize() {
            return BuiltinCiphers.cc20p1305_openssh.getKdfSize();
        }

        @Override
        public String toString() {
            return getName() + " (JDK ChaCha20)";
        }
    };

    private TransportCiphers() {
    }

    /** OpenSSH's default cipher list, in its order, with the faster implementations. */
    public static List<NamedFactory<Cipher>> defaults() {
        List<NamedFactory<Cipher>> out = new ArrayList<>();
        for (BuiltinCiphers c : KexInitDefaults.CIPHERS) {
            out.add(byName(c.getName()));
        }
        return List.copyOf(out);
    }

    /** The factory pqssh uses for a cipher name; null for a name MINA does not know. */
    public static NamedFactory<Cipher> byName(String name) {
        if (CHACHA20_POLY1305.getName().equals(name)) {
            return CHACHA20_POLY1305;
        }
        return BuiltinCiphers.fromFactoryName(name);
    }
}
