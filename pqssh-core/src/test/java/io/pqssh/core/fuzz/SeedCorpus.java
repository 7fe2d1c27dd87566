package io.pqssh.core.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pqssh.core.keys.PublicKeyLine;
import io.pqssh.core.keys.SshPrivateKey;
import io.pqssh.core.keys.kem.KemPublicKey;
import io.pqssh.core.keys.kem.MlKemSshKey;
import io.pqssh.core.keys.openssh.OpenSshCipher;
import io.pqssh.core.keys.openssh.OpenSshKeyV1;
import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.core.sig.sshsig.SshSig;
import io.pqssh.core.wire.SshWriter;

/**
 * Writes the seed corpora of the fuzz tests (Jazzer's layout: {@code <Class>Inputs/<method>/}) from the real files
 * in the test resources: the KEMUAuth vectors ({@code /vectors}), the OpenSSH 10.5 vectors ({@code /sig/openssh-10.5})
 * and the ssh-keygen key fixtures ({@code /keys}). Text inputs are copied verbatim; binary targets get the decoded
 * bytes. Encrypted key seeds are re-encrypted with 1 bcrypt round so that one input stays cheap.
 *
 * <pre>
 * mvn -o -q -pl pqssh-core test-compile
 * java -cp "pqssh-core/target/test-classes:pqssh-core/target/classes:$(cat cp.txt)" io.pqssh.core.fuzz.SeedCorpus \
 *     pqssh-core/src/test/resources/io/pqssh/core/fuzz
 * </pre>
 */
public final class SeedCorpus {
    private static final List<String> VECTORS = List.of("kemuauth-mlkem512.txt", "kemuauth-mlkem768.txt",
            "kemuauth-mlkem1024.txt", "kemuauth-mlkem768-and.txt", "kemuauth-ML-KEM-768.txt");
    private static final List<String> PLAIN_KEYS = List.of("/keys/ed25519_plain", "/sig/openssh-10.5/id_ed25519",
            "/sig/openssh-10.5/id_mldsa44_ed25519");
    private static final List<String> ENCRYPTED_KEYS = List.of("/keys/ed25519_aes256ctr", "/keys/ed25519_aes256gcm",
            "/keys/ed25519_aes128cbc");
    private static final List<String> PUB_FILES = List.of("/keys/ed25519_plain.pub", "/keys/ed25519_aes256ctr.pub",
            "/sig/openssh-10.5/id_ed25519.pub", "/sig/openssh-10.5/id_mldsa44_ed25519.pub");
    private static final List<String> SIG_FILES = List.of("/sig/openssh-10.5/message.txt.ed25519.sig",
            "/sig/openssh-10.5/message.txt.mldsa44-ed25519.sig",
            "/sig/openssh-10.5/message.txt.mldsa44-ed25519.tampered.sig");
    static final byte[] VERIFY_DATA = "pqssh fuzz seed".getBytes(StandardCharsets.US_ASCII);

    private final Path root;

    private SeedCorpus(Path root) {
        this.root = root;
    }

    public static void main(String[] args) throws Exception {
        new SeedCorpus(Path.of(args[0])).writeAll();
    }

    private void writeAll() throws Exception {
        SecureRandom random = new SecureRandom();
        for (String v : VECTORS) {
            Map<String, String> f = vector(v);
            String name = v.replace(".txt", "");
            write("KemMessageFuzzTest", "request", name, hex(f.get("request")));
            write("KemMessageFuzzTest", "challenge", name, hex(f.get("challenge")));
            write("KemMessageFuzzTest", "response", name, hex(f.get("response_msg")));
            KemAlgorithm alg = KemAlgorithm.require(new String(hex(f.get("alg")), StandardCharsets.UTF_8));
            write("SignatureBlobFuzzTest", "kemPublicKey", name, KemPublicKey.blob(alg, hex(f.get("pk"))));
            write("AuthorizedKeysFuzzTest", "authorizedKemKeys", name, (alg.sshName() + " "
                    + Base64.getEncoder().encodeToString(hex(f.get("pk"))) + " " + name + "\n")
                    .getBytes(StandardCharsets.US_ASCII));
            if (f.containsKey("sig_key_blob")) {
                write("SignatureBlobFuzzTest", "publicKey", name, hex(f.get("sig_key_blob")));
                write("SignatureBlobFuzzTest", "verify", name, new SshWriter(4096).putString(hex(f.get("sig_key_blob")))
                        .putString(hex(f.get("signature"))).putRaw(hex(f.get("signed_data"))).toByteArray());
            }
        }
        for (SignatureKeyType t : SignatureKeyType.values()) {
            SshSigningKey k = SshSigningKey.generate(t, random);
            write("SignatureBlobFuzzTest", "publicKey", t.sshName(), k.publicKeyBlob());
            write("SignatureBlobFuzzTest", "verify", t.sshName(), new SshWriter(80_000).putString(k.publicKeyBlob())
                    .putString(k.sign(VERIFY_DATA)).putRaw(VERIFY_DATA).toByteArray());
        }
        for (String p : PUB_FILES) {
            byte[] line = resource(p);
            String name = Path.of(p).getFileName().toString();
            write("AuthorizedKeysFuzzTest", "publicKeyLine", name, line);
            write("SignatureBlobFuzzTest", "publicKey", name,
                    PublicKeyLine.parse(new String(line, StandardCharsets.UTF_8)).blob());
        }
        write("AuthorizedKeysFuzzTest", "authorizedKeys", "options", authorizedKeysWithOptions());
        for (String p : PLAIN_KEYS) {
            String name = Path.of(p).getFileName().toString();
            String armored = new String(resource(p), StandardCharsets.UTF_8);
            write("KeyFileFuzzTest", "armored", name, resource(p));
            write("KeyFileFuzzTest", "binary", name, dearmor(armored));
            SshPrivateKey key = OpenSshKeyV1.read(armored, null).key();
            reencrypt(name, key, random);
        }
        for (String p : ENCRYPTED_KEYS) {
            String name = Path.of(p).getFileName().toString();
            write("KeyFileFuzzTest", "armored", name, resource(p));
            SshPrivateKey key = OpenSshKeyV1.read(new String(resource(p), StandardCharsets.UTF_8),
                    KeyFileFuzzTest.PASSPHRASE.toCharArray()).key();
            reencrypt(name, key, random);
        }
        MlKemSshKey kem = new MlKemSshKey(MlKem.generate(KemAlgorithm.MLKEM768, random));
        String kemPlain = OpenSshKeyV1.write(kem, "mlkem768-seed", null, random);
        write("KeyFileFuzzTest", "armored", "id_mlkem768", kemPlain.getBytes(StandardCharsets.US_ASCII));
        write("KeyFileFuzzTest", "binary", "id_mlkem768", dearmor(kemPlain));
        reencrypt("id_mlkem768", kem, random);
        for (String p : SIG_FILES) {
            String name = Path.of(p).getFileName().toString();
            write("SshSigFuzzTest", "armored", name, resource(p));
            write("SshSigFuzzTest", "blob", name, SshSig.dearmor(new String(resource(p), StandardCharsets.UTF_8)));
        }
    }

    private void reencrypt(String name, SshPrivateKey key, SecureRandom random) throws IOException {
        char[] pass = KeyFileFuzzTest.PASSPHRASE.toCharArray();
        for (OpenSshCipher c : List.of(OpenSshCipher.AES256_CTR, OpenSshCipher.AES128_CBC, OpenSshCipher.AES256_GCM)) {
            String armored = OpenSshKeyV1.write(key, name, pass, c, 1, random);
            write("KeyFileFuzzTest", "binary", name + "." + c.name().toLowerCase() + ".r1", dearmor(armored));
        }
    }

    private byte[] authorizedKeysWithOptions() throws IOException {
        StringBuilder sb = new StringBuilder("# authorized_keys seed: every option form the parser knows\n");
        String ed = new String(resource("/sig/openssh-10.5/id_ed25519.pub"), StandardCharsets.UTF_8).strip();
        String comp = new String(resource("/sig/openssh-10.5/id_mldsa44_ed25519.pub"), StandardCharsets.UTF_8).strip();
        Map<String, String> v = vector("kemuauth-mlkem768.txt");
        String kem = new KemPublicKey(KemAlgorithm.MLKEM768, hex(v.get("pk"))).toLine("kem@seed");
        sb.append(ed).append('\n');
        sb.append("from=\"127.0.0.1,::1,10.*,!10.1.*\",expiry-time=\"20991231\" ").append(comp).append('\n');
        sb.append("restrict,no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding ").append(kem).append('\n');
        sb.append("command=\"echo \\\"hi\\\"\",environment=\"A=b\" ").append(ed).append('\n');
        sb.append("expiry-time=\"202001010000Z\",from=\"*.example.com\" ").append(kem).append('\n');
        sb.append("\tbogus-option ").append(ed).append(" trailing comment\r\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void write(String cls, String method, String name, byte[] data) throws IOException {
        Path dir = root.resolve(cls + "Inputs").resolve(method);
        Files.createDirectories(dir);
        Files.write(dir.resolve(name), data);
    }

    static byte[] resource(String path) {
        try (InputStream in = SeedCorpus.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> vector(String name) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : new String(resource("/vectors/" + name), StandardCharsets.UTF_8).split("\n")) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0) {
                m.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        return m;
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    private static byte[] dearmor(String armored) {
        String[] lines = armored.strip().split("\n");
        StringBuilder b64 = new StringBuilder();
        for (int i = 1; i < lines.length - 1; i++) {
            b64.append(lines[i].strip());
        }
        return Base64.getDecoder().decode(b64.toString());
    }
}
