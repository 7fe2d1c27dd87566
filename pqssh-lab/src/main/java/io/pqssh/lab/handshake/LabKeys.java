package io.pqssh.lab.handshake;

import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.pqssh.core.kem.KemAlgorithm;
import io.pqssh.core.kem.KemKeyPair;
import io.pqssh.core.kem.MlKem;
import io.pqssh.core.sig.SignatureKeyType;
import io.pqssh.core.sig.SshSigningKey;
import io.pqssh.mina.keys.PqKeyPairs;

/** Fresh keys per lab process, by label, generated once (before any measured connection). */
final class LabKeys {
    static final SecureRandom RANDOM = new SecureRandom();
    private static final Map<String, KeyPair> SIG = new ConcurrentHashMap<>();
    private static final Map<String, KemKeyPair> KEM = new ConcurrentHashMap<>();

    private LabKeys() {
    }

    static KeyPair signature(String label) {
        return SIG.computeIfAbsent(label, l -> {
            String type = HandshakeConfig.SIG_TYPES.get(l);
            if (type == null) {
                throw new IllegalArgumentException("no signature key type for '" + l + "'");
            }
            SignatureKeyType t = SignatureKeyType.forName(type)
                    .orElseThrow(() -> new IllegalArgumentException("pqssh has no key type " + type));
            return PqKeyPairs.keyPair(SshSigningKey.generate(t, RANDOM));
        });
    }

    static KemKeyPair kem(String label) {
        return KEM.computeIfAbsent(label, l -> {
            String alg = HandshakeConfig.KEM_TYPES.get(l);
            if (alg == null) {
                throw new IllegalArgumentException("no KEM algorithm for '" + l + "'");
            }
            return MlKem.generate(KemAlgorithm.valueOf(alg), RANDOM);
        });
    }
}
