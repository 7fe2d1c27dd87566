package io.pqssh.cli;

import io.pqssh.client.ssh.Progress;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import io.pqssh.client.keys.FingerprintHash;
import io.pqssh.client.keys.HostKeySet;
import io.pqssh.client.keys.KeyDescriptions;
import io.pqssh.client.keys.KeyFiles;
import io.pqssh.client.keys.KeyTypes;
import io.pqssh.client.keys.KnownHosts;
import io.pqssh.client.keys.PassphrasePrompt;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.WrongPassphraseException;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code pqssh keygen}: ssh-keygen's key generation and key/known_hosts/SSHSIG operations (docs/keygen.md). */
@Command(name = "keygen",
        description = {"Generate and manage keys in OpenSSH's file formats, as ssh-keygen.",
                "Types: rsa ecdsa ed25519 mldsa44-ed25519 (OpenSSH 10.6's name; mldsa44-ed25519@openssh.com: 10.4/10.5's)"
                        + " mlkem512 mlkem768 mlkem1024 mldsa44 mldsa65 mldsa87"
                        + " slhdsa128f slhdsa192f slhdsa256f falcon512 falcon1024 ed25519-mldsa65 ed25519-slhdsa192f"
                        + " (or full SSH names). See docs/keygen.md."})
public final class KeygenCommand implements Callable<Integer> {
    // no mixinStandardHelpOptions: ssh-keygen's -h (host certificate) and -V (validity) take its -h/-V
    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Option(names = "-t", description = "Key type to generate (default mlkem768).", defaultValue = "mlkem768")
    String type;

    @Option(names = "-b", description = "Bits: rsa 1024..16384 (default 3072), ecdsa 256|384|521 (default 256);"
            + " other types have a fixed size.")
    Integer bits;

    @Option(names = "-f", description = "Key file (private; public in FILE.pub); known_hosts file with -F/-R/-H;"
            + " path prefix with -A; allowed_signers with -Y verify|find-principals.")
    Path file;

    @Option(names = "-N", description = "New passphrase ('' for none); asked on the terminal when omitted.")
    String newPassphrase;

    @Option(names = "-P", description = "Old passphrase of an existing key (-y, -p, -e, -Y sign).")
    String passphrase;

    @Option(names = "-C", description = "Comment.")
    String comment;

    @Option(names = "-p", description = "Change the passphrase of the key in -f (-P old, -N new, or asked).")
    boolean changePassphrase;

    @Option(names = "-y", description = "Read a private key (or research identity) file and print its public key.")
    boolean printPublic;

    @Option(names = "-l", description = "Print the fingerprint of a key file (or of -F's matches).")
    boolean fingerprint;

    @Option(names = "-E", description = "Fingerprint hash: sha256 (default) or md5.", defaultValue = "sha256")
    String fingerprintHash;

    @Option(names = "-F", paramLabel = "HOST", description = "Find HOST in known_hosts (-f, default"
            + " ~/.ssh/known_hosts).")
    String findHost;

    @Option(names = "-R", paramLabel = "HOST", description = "Remove HOST from known_hosts (old file kept as .old).")
    String removeHost;

    @Option(names = "-H", description = "Hash the host names of known_hosts (or of -F's output).")
    boolean hashHosts;

    @Option(names = "-A", description = "Generate every missing host key type OpenSSH 10.5 generates, in"
            + " PREFIX/etc/ssh (-f PREFIX, default none: /etc/ssh).")
    boolean allHostKeys;

    @Option(names = "-q", description = "Quiet.")
    boolean quiet;

    @Option(names = "-Y", description = "SSHSIG: sign (-f key -n ns FILE...), verify (-f allowed_signers -I id"
            + " -n ns -s sig < msg), find-principals (-f allowed_signers -s sig), check-novalidate (-n ns -s sig"
            + " < msg).")
    String sigOperation;

    @Option(names = "-n", description = "SSHSIG namespace (with -Y); comma-separated principals (with -s CA).")
    String namespace;

    @Option(names = "-I", description = "Signer identity (with -Y verify); certificate key id (with -s CA).")
    String identity;

    @Option(names = "-s", description = "Signature file (with -Y verify|find-principals|check-novalidate);"
            + " otherwise the CA private key that certifies the public keys given (writes KEY-cert.pub).")
    Path signatureFile;

    @Option(names = "-h", description = "With -s: a host certificate (default: user).")
    boolean hostCertificate;

    @Option(names = "-U", description = "With -s: the CA key is held by the agent at SSH_AUTH_SOCK (pqssh agent or"
            + " OpenSSH's ssh-agent); -s names its public key, as ssh-keygen -U.")
    boolean caInAgent;

    @Option(names = "-V", paramLabel = "INTERVAL", description = "With -s: validity from:to ([+-]time, YYYYMMDD[HHMM[SS]][Z],"
            + " 0xSECONDS, always, forever) or +time (default: forever).")
    String validity;

    @Option(names = "-z", paramLabel = "SERIAL", description = "With -s: the certificate serial number (default 0; +N: N, N+1, ... for the keys given);"
            + " with -k: the KRL version.")
    String serial;

    @Option(names = "-O", paramLabel = "OPTION", description = "With -s: clear, force-command=CMD,"
            + " source-address=LIST, verify-required, no-/permit-{agent-forwarding,port-forwarding,pty,user-rc,"
            + "x11-forwarding}, critical:NAME[=V], extension:NAME[=V] (repeatable).")
    List<String> certOptions = new ArrayList<>();

    @Option(names = "-L", description = "Print the certificate(s) in -f FILE as ssh-keygen -L.")
    boolean listCertificate;

    @Option(names = "-k", description = "Write a KRL to -f KRL_FILE revoking the keys, certificates and KRL"
            + " specification lines (serial:, id:, key:, sha1:, sha256:, hash:) of the FILEs; -s CA_PUBLIC (or none)"
            + " for serial:/id:, -z version, -C comment, -u update the existing KRL.")
    boolean generateKrl;

    @Option(names = "-u", description = "With -k: add to the existing KRL instead of replacing it.")
    boolean updateKrl;

    @Option(names = "-Q", description = "Test the public keys in FILE... against the KRL in -f (exit 1 when one is"
            + " revoked); with -l print the KRL first.")
    boolean checkKrl;

    @Parameters(paramLabel = "FILE", description = "Files to sign (with -Y sign); public keys to certify (with -s);"
            + " KRL inputs (with -k) or keys to test (with -Q).")
    List<Path> files = new ArrayList<>();

    @Option(names = "--convert-to", paramLabel = "TYPE", description = "Rewrite the ML-DSA-44+Ed25519 key in -f"
            + " under the composite's other name (mldsa44-ed25519: OpenSSH 10.6's; mldsa44-ed25519@openssh.com:"
            + " 10.4/10.5's) into the FILE given (-P old, -N new passphrase; default: the old one).")
    String convertTo;

    @Option(names = "-e", description = "Export in the research implementation's formats: from a private ML-KEM"
            + " key its identity file, from a public key or identity file an authorized_kem_keys line.")
    boolean export;

    @Option(names = "-m", description = "Format for -e: kemuauth (the research implementation's formats).",
            defaultValue = "kemuauth")
    String format;

    /** Where passphrases are asked; tests replace it, the command uses the terminal. */
    Supplier<PassphrasePrompt> prompt = () -> PassphrasePrompt.terminal("-N/-P");

    @Override
    public Integer call() throws Exception {
        FingerprintHash hash = FingerprintHash.parse(fingerprintHash);
        if (sigOperation != null) {
            return signatureOperation();
        }
        if (checkKrl) {
            return KeygenKrl.check(file, fingerprint, files, System.out);
        }
        if (generateKrl) {
            return KeygenKrl.generate(new KeygenKrl.Request(file, updateKrl,
                    signatureFile == null ? null : signatureFile.toString(), serial, comment, quiet, files),
                    System.out);
        }
        if (listCertificate) {
            requireFile("-L needs -f FILE");
            return KeygenCertificates.list(file, System.out, System.err);
        }
        if (signatureFile != null) {
            return KeygenCertificates.sign(new KeygenCertificates.Request(signatureFile, caInAgent, passphrase,
                    identity, hostCertificate, namespace, validity, serial, certOptions, files), System.err);
        }
        if (allHostKeys) {
            HostKeySet.generateMissing(HostKeySet.directory(file == null ? null : file.toString()),
                    defaultComment(), System.out);
            return 0;
        }
        if (findHost != null || removeHost != null || hashHosts) {
            Path kh = file != null ? file : Path.of(System.getProperty("user.home"), ".ssh", "known_hosts");
            KnownHosts k = new KnownHosts(kh, System.out, System.err, new SecureRandom());
            if (findHost != null) {
                return k.find(findHost, hashHosts, fingerprint ? hash : null);
            }
            return removeHost != null ? k.remove(removeHost) : k.hashAll();
        }
        if (changePassphrase) {
            return changePassphrase();
        }
        if (convertTo != null) {
            return convertComposite(hash);
        }
        if (export) {
            if (file == null || !"kemuauth".equalsIgnoreCase(format)) {
                throw new IllegalArgumentException("-e needs -f FILE and -m kemuauth");
            }
            return exportKemuauth();
        }
        if (printPublic || fingerprint) {
            if (file == null) {
                throw new IllegalArgumentException("-f FILE is required with " + (printPublic ? "-y" : "-l"));
            }
            if (printPublic) {
                return printPublicKey();
            }
            String text = Files.readString(file);
            if (KeyFiles.kind(text) == KeyFiles.Kind.PUBLIC_LINE) {
                // .pub, authorized_keys or known_hosts: every key in it, as ssh-keygen -l
                List<PublicKeyLine> keys = KeyFiles.publicKeyLines(text);
                if (keys.isEmpty()) {
                    throw new IllegalArgumentException(file + " is not a public key file.");
                }
                for (PublicKeyLine k : keys) {
                    System.out.println(KeyDescriptions.fingerprintLine(k.blob(), k.comment(), hash));
                }
                return 0;
            }
            PublicKeyLine line = KeyFiles.publicKey(file);
            System.out.println(KeyDescriptions.fingerprintLine(line.blob(), line.comment(), hash));
            return 0;
        }
        return generate(hash);
    }

    private int generate(FingerprintHash hash) throws Exception {
        String name = KeyTypes.sshName(type);
        if (file == null) {
            Path sshDir = Path.of(System.getProperty("user.home"), ".ssh");
            file = sshDir.resolve("id_" + KeyTypes.fileSuffix(type));
            if (!Files.exists(sshDir)) {
                // ssh-keygen creates ~/.ssh (0700) for its default path only; an explicit -f directory must exist
                Files.createDirectory(sshDir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
                System.out.println("Created directory '" + sshDir + "'.");
            }
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("Saving key \"" + file + "\" failed: directory " + dir
                    + " does not exist (pqssh keygen does not create it)");
        }
        if (Files.exists(file)) {
            throw new IllegalArgumentException(file + " already exists; pqssh keygen does not overwrite keys");
        }
        if (!quiet) {
            System.out.println("Generating public/private " + type + " key pair.");
        }
        SshPrivateKey key;
        Progress generating = Progress.start("pqssh keygen: generating a " + type + " key ...");
        try {
            key = KeyTypes.generate(name.equals("ecdsa") ? "ecdsa" : type, bits, new SecureRandom());
        } finally {
            Progress.close(generating);
        }
        char[] pass = null;
        try {
            pass = newPassphrase != null ? newPassphrase.toCharArray()
                    : prompt.get().readNew("Enter passphrase for \"" + file + "\" (empty for no passphrase): ",
                            "Enter same passphrase again: ");
            String c = comment != null ? comment : defaultComment();
            KeyFiles.writeNew(file, key, c, pass.length == 0 ? null : pass);
            if (!quiet) {
                System.out.println("Your identification has been saved in " + file);
                System.out.println("Your public key has been saved in " + file + ".pub");
                System.out.println("The key fingerprint is:");
                System.out.println(hash.format(key.publicKeyBlob()) + " " + c);
            }
        } finally {
            PassphrasePrompt.wipe(pass);
            key.destroy();
        }
        return 0;
    }

    /** {@code -p}: re-encrypts the key under a new passphrase (empty: unencrypted), keeping type and comment. */
    private int changePassphrase() throws Exception {
        if (file == null) {
            throw new IllegalArgumentException("-p needs -f FILE");
        }
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(file + ": No such file or directory");
        }
        KeyFilePermissions.checkPrivateKeyFile(file);
        String text = Files.readString(file);
        if (KeyFiles.kind(text) != KeyFiles.Kind.OPENSSH_PRIVATE) {
            throw new IllegalArgumentException(file + " is not an OpenSSH private key (openssh-key-v1)");
        }
        KeyFiles.requireReadable(PublicKeyLine.blobKeyType(OpenSshKeyV1.publicKeyBlob(text)));
        OpenSshPrivateKey k;
        if (OpenSshKeyV1.isEncrypted(text)) {
            char[] old = passphrase != null ? passphrase.toCharArray() : prompt.get().read("Enter old passphrase: ");
            try {
                k = KeyFiles.readPrivate(text, old);
            } catch (WrongPassphraseException e) {
                throw new IllegalArgumentException("Failed to load key " + file
                        + ": incorrect passphrase supplied to decrypt private key");
            } finally {
                PassphrasePrompt.wipe(old);
            }
        } else {
            k = KeyFiles.readPrivate(text, null);
        }
        char[] fresh = null;
        try {
            if (newPassphrase != null) {
                fresh = newPassphrase.toCharArray();
            } else {
                PassphrasePrompt p = prompt.get();
                fresh = p.read("Enter new passphrase (empty for no passphrase): ");
                char[] again = p.read("Enter same passphrase again: ");
                boolean same = fresh != null && again != null && java.security.MessageDigest.isEqual(
                        new String(fresh).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        new String(again).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                PassphrasePrompt.wipe(again);
                if (!same) {
                    throw new IllegalArgumentException("Pass phrases do not match.  Try again.");
                }
            }
            KeyFiles.replacePrivate(file, OpenSshKeyV1.write(k.key(), k.comment(),
                    fresh.length == 0 ? null : fresh, new SecureRandom()));
            System.out.println("Your identification has been saved with the new passphrase.");
        } finally {
            PassphrasePrompt.wipe(fresh);
            k.destroy();
        }
        return 0;
    }

    /** {@code --convert-to}: the same seeds under the other composite name, into a new file (docs/keygen.md). */
    private int convertComposite(FingerprintHash hash) throws Exception {
        io.pqssh.core.sig.SignatureKeyType target = io.pqssh.client.keys.CompositeKeyConversion.target(convertTo);
        if (file == null || files.size() != 1) {
            throw new IllegalArgumentException("--convert-to needs -f KEY and the new key's FILE");
        }
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(file + ": No such file or directory");
        }
        Path out = files.get(0);
        char[] old = null;
        char[] fresh = null;
        try {
            String text = Files.readString(file);
            if (KeyFiles.kind(text) == KeyFiles.Kind.OPENSSH_PRIVATE && OpenSshKeyV1.isEncrypted(text)) {
                old = passphrase != null ? passphrase.toCharArray()
                        : prompt.get().read("Enter passphrase for \"" + file + "\": ");
            }
            fresh = newPassphrase != null ? newPassphrase.toCharArray() : old == null ? null : old.clone();
            try {
                io.pqssh.client.keys.CompositeKeyConversion.convert(file, out, target, old,
                        fresh == null || fresh.length == 0 ? null : fresh);
            } catch (WrongPassphraseException e) {
                throw new IllegalArgumentException("Failed to load key " + file
                        + ": incorrect passphrase supplied to decrypt private key");
            }
        } finally {
            PassphrasePrompt.wipe(old);
            PassphrasePrompt.wipe(fresh);
        }
        if (!quiet) {
            PublicKeyLine line = KeyFiles.publicKey(out);
            System.out.println("Your " + target.sshName() + " key has been saved in " + out + " and " + out + ".pub");
            System.out.println("The key fingerprint is:");
            System.out.println(hash.format(line.blob()) + " " + line.comment());
        }
        return 0;
    }

    private int signatureOperation() throws Exception {
        return switch (sigOperation) {
            case "sign" -> {
                requireFile("-Y sign needs -f KEY");
                yield SshSigCommand.sign(file, passphrase, namespace, files);
            }
            case "verify" -> {
                requireFile("-Y verify needs -f allowed_signers");
                yield SshSigCommand.verify(file, identity, namespace, signatureFile, System.in.readAllBytes());
            }
            case "find-principals" -> {
                requireFile("Too few arguments for find-principals: missing allowed keys file (-f)");
                yield SshSigCommand.findPrincipals(file, signatureFile);
            }
            case "check-novalidate" -> SshSigCommand.checkNovalidate(namespace, signatureFile,
                    System.in.readAllBytes());
            default -> throw new IllegalArgumentException(
                    "-Y: expected sign, verify, find-principals or check-novalidate");
        };
    }

    private void requireFile(String message) {
        if (file == null) {
            throw new IllegalArgumentException(message);
        }
    }

    private static String defaultComment() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = "localhost";
        }
        return System.getProperty("user.name") + "@" + host;
    }

    private int exportKemuauth() throws Exception {
        String text = Files.readString(file).strip();
        switch (KeyFiles.kind(text)) {
            case OPENSSH_PRIVATE -> {
                OpenSshPrivateKey k = readPrivate(file, passphrase);
                try {
                    if (!(k.key() instanceof MlKemSshKey kem)) {
                        throw new IllegalArgumentException(file + " is not an ML-KEM key");
                    }
                    System.out.print(io.pqssh.core.keys.kem.ResearchIdentityFile.format(kem.keyPair()));
                } finally {
                    k.destroy();
                }
            }
            case RESEARCH_IDENTITY -> System.out.println(io.pqssh.core.keys.authorized.AuthorizedKeys
                    .formatKemKeyLine(KeyFiles.researchPublicKey(text), ""));
            default -> {
                KemPublicKey.Line line = KemPublicKey.parseLine(text);
                System.out.println(io.pqssh.core.keys.authorized.AuthorizedKeys.formatKemKeyLine(line.key(),
                        line.comment()));
            }
        }
        return 0;
    }

    private int printPublicKey() throws Exception {
        String text = Files.readString(file);
        if (KeyFiles.kind(text) == KeyFiles.Kind.RESEARCH_IDENTITY) {
            KeyFilePermissions.checkPrivateKeyFile(file);
            System.out.println(KeyFiles.researchPublicKey(text).toPublicKeyLine("").format());
            return 0;
        }
        OpenSshPrivateKey k = readPrivate(file, passphrase);
        try {
            System.out.println(new PublicKeyLine(k.key().keyType(), k.key().publicKeyBlob(), k.comment()).format());
        } finally {
            k.destroy();
        }
        return 0;
    }

    /**
     * Reads an openssh-key-v1 private key of any supported type (checking its mode first), asking for the
     * passphrase on the terminal when it is encrypted and none was given.
     */
    static OpenSshPrivateKey readPrivate(Path file, String passphrase) throws Exception {
        KeyFilePermissions.checkPrivateKeyFile(file);
        String text = Files.readString(file);
        char[] pass = null;
        if (OpenSshKeyV1.isEncrypted(text)) {
            if (passphrase != null) {
                pass = passphrase.toCharArray();
            } else {
                pass = PassphrasePrompt.terminal("-P (" + file + " is encrypted)")
                        .read("Enter passphrase for \"" + file + "\": ");
                if (pass == null) {
                    throw new KeyFileException(file + " is encrypted: give the passphrase with -P");
                }
            }
        }
        try {
            return KeyFiles.readPrivate(text, pass);
        } finally {
            PassphrasePrompt.wipe(pass);
        }
    }
}
