package io.pqssh.client.ssh;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.util.security.SecurityUtils;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemPrivateKey;
import io.pqssh.core.keys.KeyFilePermissions;
import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.kem.ResearchIdentityFile;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.keys.openssh.OpenSshPrivateKey;
import io.pqssh.core.keys.WrongPassphraseException;
import io.pqssh.mina.keys.PqKeyPairs;

/**
 * Loads the client's identity files: ML-KEM credentials (openssh-key-v1 or the research client's text file),
 * pqssh's post-quantum signature keys, and OpenSSH's classical keys (through MINA). An encrypted key's passphrase is
 * asked for on the terminal or through SSH_ASKPASS ({@link Prompter}), up to {@code NumberOfPasswordPrompts}
 * times; an empty answer skips the key, as in ssh. {@code PQSSH_PASSPHRASE} answers without asking (scripts).
 */
public final class Identities {
    /**
     * What was loaded; the caller destroys the KEM keys. {@code perFile} holds each file's signature keys and the
     * user certificate found beside it ({@code FILE-cert.pub}, when asked for).
     */
    public record Loaded(List<KemPrivateKey> kemKeys, List<KeyPair> signatureKeys,
            List<UserCertificates.FileKeys> perFile) {
    }

    private final Prompter prompter;
    private final ClientLog log;
    private final int tries;
    private final String envPassphrase;

    public Identities(Prompter prompter, ClientLog log, int tries, String envPassphrase) {
        this.prompter = prompter;
        this.log = log;
        this.tries = tries;
        this.envPassphrase = envPassphrase;
    }

    /**
     * Loads each file; {@code purpose} names what the files are for in messages ("Identity file",
     * "KEM identity file (IdentityKEMFile)"). A missing explicitly configured file is a warning naming its path, as
     * in ssh ("not accessible"); a missing default file is skipped silently.
     */
    public Loaded load(List<Path> files, boolean explicit, String purpose) throws Exception {
        return load(files, explicit, purpose, false);
    }

    /**
     * As {@link #load(List, boolean, String)}; with {@code certificates} the {@code FILE-cert.pub} beside each file
     * is read too (ssh does so unless {@code CertificateFile} is configured) and paired with the file's key.
     */
    public Loaded load(List<Path> files, boolean explicit, String purpose, boolean certificates) throws Exception {
        List<KemPrivateKey> kem = new ArrayList<>();
        List<KeyPair> sig = new ArrayList<>();
        List<UserCertificates.FileKeys> perFile = new ArrayList<>();
        for (Path f : files) {
            int before = sig.size();
            loadFile(f, explicit, purpose, kem, sig);
            List<KeyPair> mine = List.copyOf(sig.subList(before, sig.size()));
            KeyPair cert = null;
            Path certFile = UserCertificates.besides(f);
            if (certificates && !mine.isEmpty() && Files.exists(certFile)) {
                cert = UserCertificates.read(certFile, log).map(c -> {
                    log.debug1(purpose + " " + f + "-cert type " + UserCertificates.describe(c));
                    return c;
                }).flatMap(c -> UserCertificates.pair(c, mine).or(() -> {
                    log.debug1("Not using certificate " + certFile + ": it certifies a key other than " + f + "'s");
                    return java.util.Optional.empty();
                })).orElse(null);
            }
            perFile.add(new UserCertificates.FileKeys(f, mine, cert));
        }
        return new Loaded(kem, sig, perFile);
    }

    private void loadFile(Path f, boolean explicit, String purpose, List<KemPrivateKey> kem, List<KeyPair> sig)
            throws Exception {
        if (!Files.exists(f)) {
            if (explicit) {
                log.error("Warning: " + purpose + " " + f + " not accessible: No such file or directory.");
            } else {
                log.debug1("Will not use " + f + ": not present");
            }
            return;
        }
        log.debug1(purpose + " " + f + " type " + describe(f));
        try {
            loadOne(f, kem, sig);
        } catch (NoSuchFileException e) {
            log.error("Warning: " + purpose + " " + f + " not accessible: No such file or directory.");
        } catch (SkippedKey e) {
            if (e.loud) {
                log.error("Not using " + f + ": " + e.getMessage());
            } else {
                log.debug1("Not using " + f + ": " + e.getMessage());
            }
        } catch (Exception e) {
            throw new IllegalArgumentException(purpose + " " + f + ": " + io.pqssh.client.ssh.Failures.oneLine(e),
                    e);
        }
    }

    private static String describe(Path f) {
        try {
            String text = Files.readString(f);
            if (text.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----")) {
                return PublicKeyLine.blobKeyType(OpenSshKeyV1.publicKeyBlob(text));
            }
            return isResearchIdentity(text) ? "research KEM identity" : "PEM";
        } catch (Exception e) {
            return "unknown";
        }
    }

    private void loadOne(Path f, List<KemPrivateKey> kem, List<KeyPair> sig) throws Exception {
        KeyFilePermissions.checkPrivateKeyFile(f);
        String text = Files.readString(f);
        if (text.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----")) {
            String type = PublicKeyLine.blobKeyType(OpenSshKeyV1.publicKeyBlob(text));
            if (KemAlgorithm.fromName(type).isPresent()) {
                kem.add(((MlKemSshKey) readPqssh(f, text).key()).kemPrivateKey());
                return;
            }
            if (PqKeyPairs.isPqSignatureKeyFile(text)) {
                sig.add(PqKeyPairs.keyPair((io.pqssh.core.sig.SshSigningKey) readPqssh(f, text).key()));
                return;
            }
        } else if (isResearchIdentity(text)) {
            kem.add(ResearchIdentityFile.parse(text));
            return;
        }
        sig.addAll(readMina(f, text));
    }

    private OpenSshPrivateKey readPqssh(Path f, String text) throws Exception {
        if (!OpenSshKeyV1.isEncrypted(text)) {
            return OpenSshKeyV1.read(text, null);
        }
        for (int attempt = 0; attempt < tries; attempt++) {
            char[] pass = passphrase(f);
            try {
                return OpenSshKeyV1.read(text, pass);
            } catch (WrongPassphraseException e) {
                if (envPassphrase != null) {
                    throw e;
                }
                log.debug2("bad passphrase given, try again...");
            } finally {
                Arrays.fill(pass, '\0');
            }
        }
        throw new SkippedKey("no correct passphrase after " + tries + " tries");
    }

    private List<KeyPair> readMina(Path f, String text) throws Exception {
        boolean encrypted = text.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----") ? OpenSshKeyV1.isEncrypted(text)
                : text.contains("ENCRYPTED");
        int rounds = encrypted ? tries : 1;
        Exception last = null;
        for (int attempt = 0; attempt < rounds; attempt++) {
            char[] pass = encrypted ? passphrase(f) : null;
            String p = pass == null ? null : new String(pass);
            try {
                List<KeyPair> out = new ArrayList<>();
                Iterable<KeyPair> ids = SecurityUtils.loadKeyPairIdentities(null, NamedResource.ofName(f.toString()),
                        new ByteArrayInputStream(Files.readAllBytes(f)), (session, resource, retry) -> p);
                if (ids != null) {
                    ids.forEach(out::add);
                }
                if (out.isEmpty()) {
                    throw new IllegalArgumentException("no usable key found");
                }
                return out;
            } catch (Exception e) {
                if (!encrypted || envPassphrase != null) {
                    throw e;
                }
                last = e;
                log.debug2("bad passphrase given, try again...");
            } finally {
                if (pass != null) {
                    Arrays.fill(pass, '\0');
                }
            }
        }
        throw new SkippedKey("no correct passphrase after " + tries + " tries"
                + (last == null ? "" : " (" + Failures.oneLine(last) + ")"));
    }

    private char[] passphrase(Path f) throws SkippedKey {
        if (envPassphrase != null) {
            return envPassphrase.toCharArray();
        }
        if (prompter.batchMode()) {
            throw new SkippedKey("the key is encrypted and BatchMode is set: not asking for its passphrase", false);
        }
        char[] p = prompter.secret("Enter passphrase for key '" + f + "': ");
        if (p == null) {
            throw new SkippedKey("the key is encrypted and there is no terminal or SSH_ASKPASS to ask for its"
                    + " passphrase");
        }
        if (p.length == 0) {
            throw new SkippedKey("empty passphrase given: key skipped", false);
        }
        return p;
    }

    static boolean isResearchIdentity(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst()
                .map(l -> l.toLowerCase(Locale.ROOT).startsWith("algorithm")).orElse(false);
    }

    /** A key not used, for a reason ssh would only mention at debug level or as a one-line warning. */
    static final class SkippedKey extends Exception {
        private static final long serialVersionUID = 1L;

        final boolean loud;

        SkippedKey(String m) {
            this(m, true);
        }

        SkippedKey(String m, boolean loud) {
            super(m);
            this.loud = loud;
        }
    }
}
