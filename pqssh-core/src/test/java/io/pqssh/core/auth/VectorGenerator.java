package io.pqssh.core.auth;

import static io.pqssh.core.auth.TestVectors.HEX;
import static io.pqssh.core.auth.TestVectors.pattern;
import static io.pqssh.core.auth.TestVectors.utf8;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.bouncycastle.crypto.SecretWithEncapsulation;
import org.bouncycastle.crypto.kems.MLKEMGenerator;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.MLKEMParameters;
import org.bouncycastle.crypto.params.MLKEMPrivateKeyParameters;
import org.bouncycastle.crypto.params.MLKEMPublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

import io.pqssh.core.auth.TestVectors.Manual;

/**
 * Writes {@code src/test/resources/vectors/kemuauth-*.txt}. Run once by hand (the files are committed, the tests only
 * read them): {@code java -cp <test-classes>:<classes>:<bcprov> io.pqssh.core.auth.VectorGenerator <dir>}.
 * Uses only Bouncy Castle primitives, the hand assembler and the JDK's HMAC, never pqssh's encoders.
 */
public final class VectorGenerator {
    static final byte[] SEED = pattern(0x00, 64);
    static final byte[] M = pattern(0x40, 32);
    static final byte[] SID = pattern(0x80, 32);
    static final byte[] ED25519_SEED = pattern(0xc0, 32);
    static final String USER = "alice";
    static final String SERVICE = "ssh-connection";

    private VectorGenerator() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "pqssh-core/src/test/resources/vectors");
        Files.createDirectories(dir);
        write(dir, "kemuauth-mlkem512.txt", MLKEMParameters.ml_kem_512, "mlkem512", "publickey-kem");
        write(dir, "kemuauth-mlkem768.txt", MLKEMParameters.ml_kem_768, "mlkem768", "publickey-kem");
        write(dir, "kemuauth-mlkem1024.txt", MLKEMParameters.ml_kem_1024, "mlkem1024", "publickey-kem");
        write(dir, "kemuauth-ML-KEM-768.txt", MLKEMParameters.ml_kem_768, "ML-KEM-768", "publickey-kem");
        write(dir, "kemuauth-mlkem768-and.txt", MLKEMParameters.ml_kem_768, "mlkem768", "publickey-kem-and");
    }

    static void write(Path dir, String file, MLKEMParameters params, String alg, String method) throws IOException {
        Map<String, byte[]> v = new LinkedHashMap<>();
        byte[] pk = new MLKEMPrivateKeyParameters(params, SEED).getPublicKey();
        SecretWithEncapsulation enc = MLKEMGenerator.internalGenerateEncapsulated(
                new MLKEMPublicKeyParameters(params, pk), M);
        byte[] ct = enc.getEncapsulation();
        byte[] ss = enc.getSecret();
        v.put("seed", SEED);
        v.put("pk", pk);
        v.put("m", M);
        v.put("ct", ct);
        v.put("ss", ss);
        v.put("sid", SID);
        v.put("user", utf8(USER));
        v.put("service", utf8(SERVICE));
        v.put("method", utf8(method));
        v.put("alg", utf8(alg));
        Manual request = new Manual().b(50).s(USER).s(SERVICE).s(method);
        if (method.equals("publickey-kem-and")) {
            Ed25519PrivateKeyParameters edSk = new Ed25519PrivateKeyParameters(ED25519_SEED);
            byte[] sigKeyBlob = new Manual().s("ssh-ed25519").s(edSk.generatePublicKey().getEncoded()).bytes();
            byte[] signed = new Manual().s(SID).b(50).s(USER).s(SERVICE).s(method).b(1).s("ssh-ed25519")
                    .s(sigKeyBlob).s(alg).s(pk).bytes();
            Ed25519Signer signer = new Ed25519Signer();
            signer.init(true, edSk);
            signer.update(signed, 0, signed.length);
            byte[] sigBlob = new Manual().s("ssh-ed25519").s(signer.generateSignature()).bytes();
            v.put("sig_seed", ED25519_SEED);
            v.put("sig_alg", utf8("ssh-ed25519"));
            v.put("sig_key_blob", sigKeyBlob);
            v.put("signed_data", signed);
            v.put("signature", sigBlob);
            request.b(1).s("ssh-ed25519").s(sigKeyBlob).s(sigBlob);
        }
        request.s(alg).s(pk);
        byte[] ctx = TestVectors.manualCtx(USER, SERVICE, method, alg, pk, alg, pk, ct);
        byte[] response = TestVectors.jdkResponse(ss, SID, ctx);
        v.put("request", request.bytes());
        v.put("challenge", new Manual().b(60).s(alg).s(pk).s(ct).bytes());
        v.put("ctx", ctx);
        v.put("response", response);
        v.put("response_msg", new Manual().b(61).s(response).bytes());

        StringBuilder out = new StringBuilder();
        out.append("# KEMUAuth test vector: method \"").append(method).append("\", alg string \"").append(alg)
                .append("\"\n");
        out.append("# seed -> (pk, dk) by ML-KEM.KeyGen_internal(d = seed[0:32], z = seed[32:64]);\n");
        out.append("# (ss, ct) = ML-KEM.Encaps_internal(pk, m); ctx per the KEMUAuth transcript; sid raw;\n");
        out.append("# response = HMAC-SHA-256(ss, \"ssh-publickey-kem-client-auth\" || sid || ctx).\n");
        out.append("# Every value is hex. Text fields: user=\"").append(USER).append("\" service=\"").append(SERVICE)
                .append("\" method=\"").append(method).append("\" alg=\"").append(alg).append("\"\n");
        out.append("# request/challenge/response_msg are whole payloads starting with the message number.\n");
        out.append("# Generated by io.pqssh.core.auth.VectorGenerator; do not edit.\n");
        for (Map.Entry<String, byte[]> e : v.entrySet()) {
            out.append(e.getKey()).append('=').append(HEX.formatHex(e.getValue())).append('\n');
        }
        Files.writeString(dir.resolve(file), out, StandardCharsets.US_ASCII);
    }
}
