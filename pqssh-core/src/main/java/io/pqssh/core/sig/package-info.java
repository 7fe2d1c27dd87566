/**
 * SSH signature key types: Ed25519, ML-DSA-44/65/87, OpenSSH's ML-DSA-44+Ed25519 composite (both names), SLH-DSA-SHA2-128f/
 * 192f/256f and Falcon-512/1024.
 *
 * <p>Entry points: {@link io.pqssh.core.sig.SignatureKeyType} (the table), {@link io.pqssh.core.sig.Signatures}
 * ({@code decodePublicKey(blob)}, {@code verify(publicBlob, data, sigBlob)}), {@link io.pqssh.core.sig.SshSigningKey}
 * ({@code generate}, {@code sign(data) -> signature blob}, an {@link io.pqssh.core.keys.SshPrivateKey} for
 * {@code openssh-key-v1}), {@link io.pqssh.core.sig.SshPublicKey} and {@link io.pqssh.core.sig.sshsig.SshSig}.
 *
 * <p>{@code openssh-key-v1} private fields (after {@code string keyType}); every type is {@code string pk,
 * string secret}:
 * <table>
 * <caption>private fields</caption>
 * <tr><th>type</th><th>pk</th><th>secret</th><th>source</th></tr>
 * <tr><td>ssh-ed25519</td><td>32</td><td>seed || pk (64)</td><td>OpenSSH</td></tr>
 * <tr><td>ssh-mldsa44-ed25519@openssh.com</td><td>1312 + 32</td><td>ML-DSA seed || Ed25519 seed (64)</td>
 * <td>OpenSSH 10.5 (checked against its key file)</td></tr>
 * <tr><td>ssh-mldsa44-ed25519</td><td>1312 + 32</td><td>ML-DSA seed || Ed25519 seed (64)</td>
 * <td>OpenSSH 10.6 as reported (10.5's layout under the IETF name; no 10.6 key file was available)</td></tr>
 * <tr><td>ssh-mldsa-44/65/87</td><td>raw pk</td><td>seed ξ (32); an expanded FIPS 204 key is accepted on read</td>
 * <td>pqssh (no OpenSSH layout exists)</td></tr>
 * <tr><td>ssh-slhdsapuresha2*f</td><td>PK.seed || PK.root</td><td>FIPS 205 sk (4n)</td><td>liboqs/OQS</td></tr>
 * <tr><td>ssh-falcon512/1024</td><td>0x09/0x0a || h</td><td>0x59/0x5a || f || g || F</td><td>liboqs/OQS</td></tr>
 * </table>
 * Reading a private key always checks that its secret and public halves belong together.
 *
 * <p>The implementations ({@code Ed25519Scheme}, {@code MlDsaScheme}, ...) are package-private classes of this
 * package: the table names its schemes, and the schemes need the table's sizes and names, so keeping both in one
 * package is what avoids a package cycle (they were the public {@code io.pqssh.core.sig.impl} package, which the
 * table depended on and which depended back on the table). Use them through {@link
 * io.pqssh.core.sig.SignatureKeyType#scheme()}.
 */
package io.pqssh.core.sig;
