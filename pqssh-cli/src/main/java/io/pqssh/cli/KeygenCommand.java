package io.pqssh.cli;

import java.io.Console;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.keys.KeyFileException;
import io.pqssh.core.keys.KeyFingerprints;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pqssh keygen}: generate keys, print the public key of a private key, print fingerprints. */
@Command(name = "keygen", mixinStandardHelpOptions = true,
        description = {"Generate ML-KEM and signature keys in OpenSSH's file formats.",
                "Types: mlkem512 mlkem768 mlkem1024 ed25519 mldsa44 mldsa65 mldsa87 mldsa44-ed25519"
                        + " slhdsa128f slhdsa192f slhdsa256f falcon512 falcon1024 ed25519-mldsa65 ed25519-slhdsa192f"
                        + " (or full SSH names)."})
public final class KeygenCommand implements Callable<Integer> {
    @Option(names = "-t", description = "Key type to generate (default mlkem768).", defaultValue = "mlkem768")
    String type;

    @Option(names = "-f", description = "Key file (private; the public key goes to FILE.pub).")
    Path file;

    @Option(names = "-N", description = "New passphrase ('' for none). Encrypts with bcrypt-pbkdf + aes256-ctr.")
    String newPassphrase;

    @Option(names = "-P", description = "Passphrase of an existing key (for -y).")
    String passphrase;

    @Option(names = "-C", description = "Comment.")
    String comment;

    @Option(names = "-y", description = "Read a private key file and print its public key line.")
    boolean printPublic;

    @Option(names = "-l", description = "Show the SHA256 fingerprint of a key file.")
    boolean fingerprint;

    @Option(names = "-q", description = "Quiet.")
    boolean quiet;

    @Option(names = "-Y", description = "SSHSIG operation: sign (-f key -n ns FILE...) or verify"
            + " (-f allowed_signers -I identity -n ns -s sig < message).")
    String sigOperation;

    @Option(names = "-n", description = "SSHSIG namespace (with -Y).")
    String namespace;

    @Option(names = "-I", description = "Signer identity (with -Y verify).")
    String identity;

    @Option(names = "-s", description = "Signature file (with -Y verify).")
    Path signatureFile;

    @picocli.CommandLine.Parameters(paramLabel = "FILE", description = "Files to sign (with -Y sign).")
    java.util.List<Path> files = new java.util.ArrayList<>();

    @Option(names = "-e", description = "Export the key in another format (-m): from a private ML-KEM key the"
            + " research client's identity file, from a public key an authorized_kem_keys line.")
    boolean export;

    @Option(names = "-m", description = "Format for -e: kemuauth (the research implementation's formats).",
            defaultValue = "kemuauth")
    String format;

    @Override
    public Integer call() throws Exception {
        if (sigOperation != null) {
            if (file == null) {
                throw new IllegalArgumentException("-Y needs -f");
            }
            return switch (sigOperation) {
                case "sign" -> SshSigCommand.sign(file, passphrase, namespace, files);
                case "verify" -> SshSigCommand.verify(file, identity, namespace, signatureFile,
                        System.in.readAllBytes());
                default -> throw new IllegalArgumentException("-Y: expected sign or verify");
            };
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
            return printPublic ? printPublicKey() : printFingerprint();
        }
        if (file == null) {
            file = Path.of(System.getProperty("user.home"), ".ssh", "id_" + fileSuffix(type));
        }
        if (Files.exists(file)) {
            throw new IllegalArgumentException(file + " already exists; pqssh keygen does not overwrite keys");
        }
        SshPrivateKey key = generate(type, new SecureRandom());
        String c = comment != null ? comment
                : System.getProperty("user.name") + "@" + java.net.InetAddress.getLocalHost().getHostName();
        char[] pass = newPassphrase == null ? new char[0] : newPassphrase.toCharArray();
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            OpenSshKeyV1.writeFiles(file, key, c, pass.length == 0 ? null : pass, new SecureRandom());
            if (!quiet) {
                System.out.println("Your identification has been saved in " + file);
                System.out.println("Your public key has been saved in " + file + ".pub");
                System.out.println("The key fingerprint is:");
                System.out.println(KeyFingerprints.sha256(key.publicKeyBlob()) + " " + c);
            }
        } finally {
            Arrays.fill(pass, '\0');
            key.destroy();
        }
        return 0;
    }

    static SshPrivateKey generate(String type, SecureRandom random) {
        Optional<KemAlgorithm> kem = KemAlgorithm.fromName(type);
        if (kem.isPresent()) {
            return new MlKemSshKey(MlKem.generate(kem.get(), random));
        }
        return SshSigningKey.generate(signatureType(type), random);
    }

    static SignatureKeyType signatureType(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        String full = switch (t) {
            case "ed25519" -> "ssh-ed25519";
            case "mldsa44", "mldsa-44" -> "ssh-mldsa-44";
            case "mldsa65", "mldsa-65" -> "ssh-mldsa-65";
            case "mldsa87", "mldsa-87" -> "ssh-mldsa-87";
            case "mldsa44-ed25519" -> "ssh-mldsa44-ed25519@openssh.com";
            case "slhdsa128f" -> "ssh-slhdsapuresha2128f";
            case "slhdsa192f" -> "ssh-slhdsapuresha2192f";
            case "slhdsa256f" -> "ssh-slhdsapuresha2256f";
            case "falcon512" -> "ssh-falcon512";
            case "falcon1024" -> "ssh-falcon1024";
            // the KEMUAuth artifact's AND composites (publickey-hybrid-and), Ed25519 half first as in their names
            case "ed25519-mldsa65", "ed25519-mldsa-65" -> "ssh-ed25519-mldsa-65";
            case "ed25519-slhdsa192f" -> "ssh-ed25519-slhdsapuresha2192f";
            default -> t;
        };
        return SignatureKeyType.forName(full).orElseThrow(() -> new IllegalArgumentException(
                "unknown key type '" + type + "' (see pqssh keygen --help)"));
    }

    static String fileSuffix(String type) {
        return type.toLowerCase(Locale.ROOT).replace("ssh-", "").replace("@openssh.com", "").replace('-', '_');
    }

    private int exportKemuauth() throws Exception {
        String text = Files.readString(file).strip();
        if (text.startsWith(OpenSshKeyV1.BEGIN)) {
            OpenSshPrivateKey k = readPrivate(file, passphrase);
            try {
                if (!(k.key() instanceof MlKemSshKey kem)) {
                    throw new IllegalArgumentException(file + " is not an ML-KEM key");
                }
                System.out.print(io.pqssh.core.keys.kem.ResearchIdentityFile.format(kem.keyPair()));
            } finally {
                k.destroy();
            }
        } else {
            io.pqssh.core.keys.kem.KemPublicKey.Line line = io.pqssh.core.keys.kem.KemPublicKey.parseLine(text);
            System.out.println(io.pqssh.core.keys.authorized.AuthorizedKeys.formatKemKeyLine(line.key(),
                    line.comment()));
        }
        return 0;
    }

    private int printPublicKey() throws Exception {
        OpenSshPrivateKey k = readPrivate(file, passphrase);
        try {
            System.out.println(new PublicKeyLine(k.key().keyType(), k.key().publicKeyBlob(), k.comment()).format());
        } finally {
            k.destroy();
        }
        return 0;
    }

    private int printFingerprint() throws Exception {
        String text = Files.readString(file).strip();
        PublicKeyLine line;
        if (text.startsWith(OpenSshKeyV1.BEGIN)) {
            byte[] blob = OpenSshKeyV1.publicKeyBlob(text);
            Path pub = file.resolveSibling(file.getFileName() + ".pub");
            String c = Files.exists(pub) ? PublicKeyLine.parse(Files.readString(pub).strip()).comment() : "";
            line = PublicKeyLine.of(blob, c);
        } else {
            line = PublicKeyLine.parse(text.lines().findFirst().orElse(""));
        }
        System.out.println(bits(line.keyType()) + " " + line.fingerprint() + " "
                + (line.comment() == null || line.comment().isEmpty() ? "no comment" : line.comment())
                + " (" + label(line.keyType()) + ")");
        return 0;
    }

    private static int bits(String keyType) {
        Optional<KemAlgorithm> kem = KemAlgorithm.fromName(keyType);
        if (kem.isPresent()) {
            return Integer.parseInt(kem.get().sshName().substring("mlkem".length()));
        }
        return switch (keyType) {
            case "ssh-ed25519" -> 256;
            default -> 256;
        };
    }

    private static String label(String keyType) {
        return keyType.replace("ssh-", "").replace("@openssh.com", "").toUpperCase(Locale.ROOT);
    }

    static OpenSshPrivateKey readPrivate(Path file, String passphrase) throws Exception {
        String text = Files.readString(file);
        char[] pass = null;
        if (OpenSshKeyV1.isEncrypted(text)) {
            if (passphrase != null) {
                pass = passphrase.toCharArray();
            } else {
                Console console = System.console();
                if (console == null) {
                    throw new KeyFileException(file + " is encrypted: give the passphrase with -P");
                }
                pass = console.readPassword("Enter passphrase for %s: ", file);
            }
        }
        try {
            return OpenSshKeyV1.readFile(file, pass);
        } finally {
            if (pass != null) {
                Arrays.fill(pass, '\0');
            }
        }
    }
}
