package io.pqssh.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshPublicKey;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.sig.sshsig.SshSig;

/** {@code pqssh keygen -Y sign|verify}, compatible with {@code ssh-keygen -Y} (PROTOCOL.sshsig). */
final class SshSigCommand {
    private SshSigCommand() {
    }

    /** Signs each file into FILE.sig, or stdin to stdout when no file is given. */
    static int sign(Path keyFile, String passphrase, String namespace, List<Path> files) throws Exception {
        requireNamespace(namespace);
        OpenSshPrivateKey k = KeygenCommand.readPrivate(keyFile, passphrase);
        try {
            if (!(k.key() instanceof SshSigningKey key)) {
                throw new IllegalArgumentException(keyFile + " is not a signature key (" + k.key().keyType() + ")");
            }
            if (files.isEmpty()) {
                System.out.print(SshSig.sign(key, namespace, System.in.readAllBytes()));
                return 0;
            }
            for (Path f : files) {
                Path sig = f.resolveSibling(f.getFileName() + ".sig");
                if (Files.exists(sig)) {
                    throw new IllegalArgumentException(sig + " already exists");
                }
                Files.writeString(sig, SshSig.sign(key, namespace, Files.readAllBytes(f)));
                System.err.println("Signing file " + f);
                System.err.println("Write signature to " + sig);
            }
            return 0;
        } finally {
            k.destroy();
        }
    }

    /** Verifies a signature of stdin against an allowed_signers file, as ssh-keygen -Y verify. */
    static int verify(Path allowedSigners, String identity, String namespace, Path signature, byte[] message)
            throws Exception {
        requireNamespace(namespace);
        if (identity == null || signature == null) {
            throw new IllegalArgumentException("-Y verify needs -f allowed_signers -I identity -n namespace -s sig");
        }
        SshSig.Parsed parsed = SshSig.parse(Files.readString(signature));
        SshPublicKey signer = parsed.publicKey();
        boolean allowed = false;
        for (String line : Files.readAllLines(allowedSigners)) {
            AllowedSigner a = AllowedSigner.parse(line);
            if (a != null && a.matches(identity, namespace) && a.key().equals(signer)) {
                allowed = true;
                break;
            }
        }
        if (allowed && parsed.verify(message, namespace)) {
            System.out.println("Good \"" + namespace + "\" signature for " + identity + " with "
                    + label(signer.type()) + " key " + signer.fingerprintSha256());
            return 0;
        }
        System.err.println("Could not verify signature.");
        return 255;
    }

    /**
     * {@code -Y find-principals -s sig -f allowed_signers}: the principals of the first allowed_signers line whose
     * key made the signature, one per line, as ssh-keygen (the signature itself is not verified, as there).
     */
    static int findPrincipals(Path allowedSigners, Path signature) throws Exception {
        if (signature == null) {
            throw new IllegalArgumentException("Too few arguments for find-principals: missing signature file (-s)");
        }
        SshPublicKey signer = SshSig.parse(Files.readString(signature)).publicKey();
        for (String line : Files.readAllLines(allowedSigners)) {
            AllowedSigner a = AllowedSigner.parse(line);
            if (a != null && a.key().equals(signer)) {
                for (String p : a.principals().split(",")) {
                    if (!p.isEmpty()) {
                        System.out.println(p);
                    }
                }
                return 0;
            }
        }
        System.err.println("No principal matched.");
        return 255;
    }

    /**
     * {@code -Y check-novalidate -n ns -s sig < message}: the signature is good for this message and namespace,
     * whoever made it (no allowed_signers), with ssh-keygen's output.
     */
    static int checkNovalidate(String namespace, Path signature, byte[] message) throws Exception {
        requireNamespace(namespace);
        if (signature == null) {
            throw new IllegalArgumentException("Too few arguments for check-novalidate: missing signature file (-s)");
        }
        SshSig.Parsed parsed = SshSig.parse(Files.readString(signature));
        if (parsed.verify(message, namespace)) {
            System.out.println("Good \"" + namespace + "\" signature with " + label(parsed.publicKey().type())
                    + " key " + parsed.publicKey().fingerprintSha256());
            return 0;
        }
        System.out.println("Could not verify signature.");
        return 255;
    }

    private static String label(SignatureKeyType t) {
        return io.pqssh.client.keys.KeyDescriptions.label(t.sshName());
    }

    private static void requireNamespace(String ns) {
        if (ns == null || ns.isEmpty()) {
            throw new IllegalArgumentException("-n namespace is required with -Y");
        }
    }

    /** One allowed_signers line: principals, optional options (namespaces="..."), key type, base64 key. */
    record AllowedSigner(String principals, String namespaces, SshPublicKey key) {
        static AllowedSigner parse(String line) throws Exception {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                return null;
            }
            String[] tok = l.split("\\s+");
            for (int i = 1; i + 1 < tok.length; i++) {
                if (SignatureKeyType.forName(tok[i]).isPresent()) {
                    String ns = null;
                    for (int j = 1; j < i; j++) {
                        String opt = tok[j];
                        if (opt.toLowerCase(Locale.ROOT).startsWith("namespaces=")) {
                            ns = opt.substring("namespaces=".length()).replace("\"", "");
                        }
                    }
                    return new AllowedSigner(tok[0], ns, SshPublicKey.parseOpenSsh(tok[i] + " " + tok[i + 1]));
                }
            }
            return null;
        }

        boolean matches(String identity, String namespace) {
            boolean who = false;
            for (String p : principals.split(",")) {
                if (glob(p, identity)) {
                    who = true;
                }
            }
            if (!who) {
                return false;
            }
            if (namespaces == null) {
                return true;
            }
            for (String n : namespaces.split(",")) {
                if (glob(n, namespace)) {
                    return true;
                }
            }
            return false;
        }

        private static boolean glob(String pattern, String s) {
            String re = pattern.replace(".", "\\.").replace("?", ".").replace("*", ".*");
            return s.matches(re);
        }
    }
}
