package io.pqssh.mina.keys;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;

import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;

import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.server.FileKeyAuthorizers;
import io.pqssh.server.PqsshServer;

/** Shared pieces of the PQ key login tests: keys on disk, file-based authorization, a session watch. */
final class PqLogins {
    static final SecureRandom RANDOM = new SecureRandom();
    static final Path VECTORS = Path.of("..", "pqssh-core", "src", "test", "resources", "sig", "openssh-10.5")
            .toAbsolutePath().normalize();
    static final String VECTOR_PASSPHRASE = "correct horse battery staple";
    static final String VECTOR_FINGERPRINT = "SHA256:XKiBPIEcInULeoUBOG+Hx5IDPgsNx6b5TPRZNzx9YMM";

    private PqLogins() {
    }

    /** Writes a fresh key of the type as {@code dir/name} (openssh-key-v1, 0600) and returns the path. */
    static Path keyFile(Path dir, String name, SignatureKeyType type) throws IOException {
        SshSigningKey k = SshSigningKey.generate(type, RANDOM);
        Path f = dir.resolve(name);
        KeyFilePermissions.writePrivateKeyFile(f, OpenSshKeyV1.write(k, name, null, RANDOM));
        k.destroy();
        return f;
    }

    /** Copies an OpenSSH 10.5 vector file into {@code dir} with mode 0600 (the repository copy may be 0644). */
    static Path vector(Path dir, String name) throws IOException {
        Path src = VECTORS.resolve(name);
        if (!Files.isRegularFile(src)) {
            throw new IllegalStateException("OpenSSH 10.5 vector missing: " + src);
        }
        Path dst = dir.resolve(name);
        KeyFilePermissions.writePrivateKeyFile(dst, Files.readString(src));
        return dst;
    }

    /** An authorized_keys file for the public keys, used through {@link FileKeyAuthorizers} as pqssh server does. */
    static FileKeyAuthorizers authorizedKeys(Path file, PublicKey... keys) throws IOException {
        StringBuilder b = new StringBuilder("# test\n");
        for (PublicKey k : keys) {
            // PQ lines as pqssh keygen writes them (so matching is on the exact OpenSSH blob), others through MINA
            b.append(k instanceof PqPublicKey pq ? pq.sshPublicKey().toOpenSsh("user@test")
                    : org.apache.sshd.common.config.keys.PublicKeyEntry.toString(k) + " user@test").append('\n');
        }
        Files.writeString(file, b);
        return new FileKeyAuthorizers(file.toAbsolutePath().toString(), "none");
    }

    static NamedFactory<Signature> factory(String name) {
        NamedFactory<Signature> f = PqSignatureFactories.byName().get(name);
        if (f == null) {
            f = BuiltinSignatures.fromFactoryName(name);
        }
        if (f == null) {
            throw new IllegalArgumentException("no signature factory " + name);
        }
        return f;
    }

    static String type(KeyPair kp) {
        return KeyUtils.getKeyType(kp.getPublic());
    }

    static PqsshServer.Builder server() {
        return PqsshServer.builder().systemShell().host("127.0.0.1").port(0).sftp(false);
    }

    static String causes(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" | ");
        }
        return b.toString();
    }
}
