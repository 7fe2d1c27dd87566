package io.pqssh.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pqssh ssh -G} against Debian's OpenSSH 9.2 {@code ssh -G} on the same files: the same lines, in the same
 * order, except those docs/client.md lists as intended differences — the algorithm lists and identity files where the
 * configuration leaves pqssh's own defaults in place, and pqssh's (and OpenSSH 10's) keywords after ssh's lines.
 */
class SshGCompareTest {
    /** Lines that differ only while the configuration leaves the default in place (docs/client.md, "-G"). */
    private static final Set<String> DEFAULTS_DIFFER = Set.of("kexalgorithms", "ciphers", "macs", "hostkeyalgorithms",
            "pubkeyacceptedalgorithms", "hostbasedacceptedalgorithms", "casignaturealgorithms", "identityfile");
    /** Keywords ssh 9.2 does not have, printed after its lines. */
    private static final Set<String> PQSSH_ONLY = Set.of("tag", "channeltimeout", "obscurekeystroketiming",
            "refuseconnection", "warnweakcrypto", "requirepostquantumkex", "kemauthentication", "identitykemfile",
            "kemauthalgorithms", "noneprobe", "pubkeysigndirectly", "guesskex", "kexguesscache", "earlychannelopen");

    @TempDir
    Path dir;

    private Path config() throws Exception {
        Path inc = dir.resolve("conf.d");
        Files.createDirectories(inc);
        Files.writeString(inc.resolve("extra.conf"), "Host web*\n  SetEnv FROM_INCLUDE=1\n");
        Path cfg = dir.resolve("config");
        Files.writeString(cfg, String.join("\n",
                "# a day-to-day ~/.ssh/config",
                "Include " + inc + "/*.conf",
                "",
                "Host web web.example.org !bad",
                "  HostName %h.internal.example.org",
                "  User deploy",
                "  Port 2222",
                "  IdentityFile ~/.ssh/id_%r@%h",
                "  IdentityFile /keys/web_ed25519",
                "  IdentitiesOnly yes",
                "  LocalForward 8080 localhost:80",
                "  LocalForward 127.0.0.1:8443 [::1]:443",
                "  RemoteForward 9000 localhost:22",
                "  RemoteForward 127.0.0.1:9001 /run/app.sock",
                "  DynamicForward 1080",
                "  DynamicForward [::1]:1081",
                "  ForwardAgent yes",
                "  ServerAliveInterval 1m",
                "  ServerAliveCountMax 5",
                "",
                "Host db",
                "  HostName 10.0.0.5",
                "  ProxyJump bastion,admin@bastion2:2200",
                "  UserKnownHostsFile ~/.ssh/known_hosts.d/%h %d/.ssh/kh2",
                "  StrictHostKeyChecking accept-new",
                "  RequestTTY force",
                "  EscapeChar ^]",
                "  RemoteCommand tmux new -A -s \"main session\"",
                "",
                "Host legacy",
                "  HostName old.example.net",
                "  ProxyCommand ssh -W %h:%p bastion",
                "  ProxyJump ignored-after-proxycommand",
                "  KexAlgorithms curve25519-sha256,diffie-hellman-group14-sha256",
                "  Ciphers aes256-ctr,aes128-ctr",
                "  MACs hmac-sha2-256,hmac-sha2-512",
                "  HostKeyAlgorithms ssh-ed25519,rsa-sha2-256",
                "  PubkeyAcceptedAlgorithms ssh-ed25519",
                "  CASignatureAlgorithms ssh-ed25519",
                "  HostbasedAcceptedAlgorithms ssh-ed25519",
                "  ConnectTimeout 7",
                "  StrictHostKeyChecking yes",
                "  PubkeyAuthentication host-bound",
                "  ClearAllForwardings yes",
                "  LocalForward 1 a:2",
                "",
                "Match host *.internal.example.org user deploy",
                "  Compression yes",
                "  SendEnv LANG LC_*",
                "  RekeyLimit 1G 1h",
                "",
                "Match originalhost db",
                "  User dbadmin",
                "  IdentityFile ~/.ssh/db_key",
                "",
                "Host *",
                "  AddKeysToAgent confirm 1h",
                "  ControlMaster auto",
                "  ControlPath ~/.ssh/cm-%C-%r@%h:%p",
                "  ControlPersist 10m",
                "  ForwardX11 no",
                "  HashKnownHosts yes",
                "  ServerAliveInterval 30",
                "  ConnectTimeout 1m30s",
                "  LogLevel VERBOSE",
                "  TCPKeepAlive no",
                "  PasswordAuthentication no",
                "  PreferredAuthentications publickey,keyboard-interactive",
                "  IdentityFile ~/.ssh/id_ed25519",
                "  SendEnv -LC_ALL",
                "  SetEnv EDITOR=vi",
                "  StreamLocalBindMask 0077",
                "  IPQoS af21",
                ""));
        return cfg;
    }

    private List<String> openssh(String... args) throws Exception {
        CliHarness.requireBinary(CliHarness.SSH, "openssh-client");
        List<String> cmd = new ArrayList<>(List.of(CliHarness.SSH.toString()));
        cmd.addAll(List.of(args));
        CliHarness.Result r = CliHarness.exec(dir, cmd);
        assertEquals(0, r.rc(), r.all());
        return r.out().lines().toList();
    }

    private List<String> pqssh(String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("ssh"));
        a.addAll(List.of(args));
        CliHarness.Result r = CliHarness.pqssh(a.toArray(String[]::new));
        assertEquals(0, r.rc(), r.all());
        return r.out().lines().toList();
    }

    private static String key(String line) {
        int sp = line.indexOf(' ');
        return sp < 0 ? line : line.substring(0, sp);
    }

    /** ssh's lines must come out unchanged and in order, then only pqssh's own keywords. */
    private static void sameAsOpenSsh(List<String> ssh, List<String> pq, Set<String> mayDiffer, String what) {
        List<String> s = ssh.stream().filter(l -> !mayDiffer.contains(key(l))).toList();
        List<String> p = pq.stream().filter(l -> !mayDiffer.contains(key(l))).toList();
        assertTrue(p.size() >= s.size(), what + ": pqssh printed fewer lines\nssh:\n" + String.join("\n", ssh)
                + "\npqssh:\n" + String.join("\n", pq));
        assertEquals(String.join("\n", s), String.join("\n", p.subList(0, s.size())), what);
        for (String extra : p.subList(s.size(), p.size())) {
            assertTrue(PQSSH_ONLY.contains(key(extra)), what + ": unexpected line after ssh's: " + extra);
        }
        for (String k : mayDiffer) {
            assertEquals(ssh.stream().anyMatch(l -> key(l).equals(k)), pq.stream().anyMatch(l -> key(l).equals(k)),
                    what + ": " + k + " printed by one side only");
        }
    }

    @Test
    void sameLinesAsOpenSshForEveryDestinationOfARealConfig() throws Exception {
        Path cfg = config();
        // ssh -G leaves out an -i file that does not exist; a real one is listed first
        Path cliKey = Files.writeString(dir.resolve("cli_key"), "");
        for (String dest : List.of("web", "bob@web", "db", "other.example.com", "ssh://carol@web:2200")) {
            for (List<String> extra : List.of(List.<String>of(), List.of("-p", "23", "-l", "root", "-o",
                    "ServerAliveCountMax=9", "-L", "5000:db:5432", "-D", "1090", "-i", cliKey.toString()))) {
                List<String> args = new ArrayList<>(List.of("-F", cfg.toString(), "-G"));
                args.addAll(extra);
                args.add(dest);
                String[] a = args.toArray(String[]::new);
                // every identity file is configured: only the algorithm lists keep pqssh's defaults
                Set<String> mayDiffer = Set.of("kexalgorithms", "ciphers", "macs", "hostkeyalgorithms",
                        "pubkeyacceptedalgorithms", "hostbasedacceptedalgorithms", "casignaturealgorithms");
                sameAsOpenSsh(openssh(a), pqssh(a), mayDiffer, String.join(" ", args));
            }
        }
        // a host whose configuration sets every algorithm list: no line may differ
        String[] legacy = {"-F", cfg.toString(), "-G", "legacy"};
        List<String> pq = pqssh(legacy);
        sameAsOpenSsh(openssh(legacy), pq, Set.of(), "legacy");
        assertTrue(pq.contains("proxycommand ssh -W %h:%p bastion"), String.join("\n", pq));
    }

    @Test
    void noConfigurationDiffersOnlyInPqsshsDefaults() throws Exception {
        String[] a = {"-F", "none", "-G", "example.com"};
        sameAsOpenSsh(openssh(a), pqssh(a), DEFAULTS_DIFFER, "-F none");
    }
}
