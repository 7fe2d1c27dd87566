package io.pqssh.cli.transfer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.SftpClientFactory;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code pqssh sftp}: sftp's prompt (ls, cd, pwd, lcd, lls, lpwd, get, put, mkdir, rmdir, rm, rename, exit, help)
 * over pqssh's login, or a batch file ({@code -b}): as sftp, a batch stops at the first failing command (exit 1)
 * unless the command starts with {@code -}.
 */
@Command(name = "sftp", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Interactive file transfer (like sftp) over pqssh's login; -b FILE runs commands from FILE",
                "('-' for stdin) and stops at the first error with exit status 1.",
                "Commands: ls [-l] [path], cd path, pwd, lcd path, lls [path], lpwd, get [-r] remote [local],",
                "put [-r] local [remote], mkdir path, rmdir path, rm path, rename old new, exit, help."})
public final class SftpCommand implements Callable<Integer> {
    @Option(names = "-b", paramLabel = "batchfile", description = "Batch mode: commands from this file.")
    String batch;

    @Option(names = "-r", description = "Recursive get/put by default.")
    boolean recursiveDefault;

    @Mixin
    SessionOptions session = new SessionOptions();

    @Parameters(index = "0", paramLabel = "destination", description = "[user@]host[:path]")
    String destination;

    private String cwd;
    private Path lcwd = Path.of("").toAbsolutePath();

    @Override
    public Integer call() throws Exception {
        List<String> lines = null;
        if (batch != null) {
            lines = batch.equals("-") ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                    .lines().toList() : Files.readAllLines(Path.of(batch));
        }
        String dest = destination;
        String startDir = null;
        RemotePath rp = RemotePath.parseOrNull(destination);
        if (rp != null) {
            dest = rp.destination();
            startDir = rp.path();
        }
        List<String> batchLines = lines;
        String start = startDir;
        return session.withSession(dest, s -> run(s, batchLines, start));
    }

    private int run(ClientSession s, List<String> batchLines, String startDir) throws IOException {
        PrintStream out = System.out;
        try (SftpClient sftp = SftpClientFactory.instance().createSftpClient(s)) {
            cwd = sftp.canonicalPath(".");
            if (startDir != null && !startDir.equals(".")) {
                cwd = sftp.canonicalPath(resolve(startDir));
            }
            if (batchLines != null) {
                for (String raw : batchLines) {
                    String line = raw.strip();
                    if (line.isEmpty() || line.startsWith("#")) {
                        continue;
                    }
                    boolean ignoreError = line.startsWith("-");
                    String cmd = ignoreError ? line.substring(1).strip() : line;
                    out.println("sftp> " + cmd);
                    Result r = execute(sftp, cmd);
                    if (r == Result.QUIT) {
                        return 0;
                    }
                    if (r == Result.ERROR && !ignoreError) {
                        return 1;
                    }
                }
                return 0;
            }
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            boolean prompt = System.console() != null;
            while (true) {
                if (prompt) {
                    out.print("sftp> ");
                    out.flush();
                }
                String line = in.readLine();
                if (line == null || execute(sftp, line.strip()) == Result.QUIT) {
                    return 0;
                }
            }
        }
    }

    private enum Result { OK, ERROR, QUIT }

    private Result execute(SftpClient sftp, String line) {
        List<String> a = words(line);
        if (a.isEmpty()) {
            return Result.OK;
        }
        String cmd = a.get(0);
        try {
            switch (cmd) {
                case "exit", "quit", "bye" -> {
                    return Result.QUIT;
                }
                case "help", "?" -> System.out.println("ls [-l] [path], cd path, pwd, lcd path, lls [path], lpwd,"
                        + " get [-r] remote [local], put [-r] local [remote], mkdir path, rmdir path, rm path,"
                        + " rename old new, exit");
                case "pwd" -> System.out.println("Remote working directory: " + cwd);
                case "lpwd" -> System.out.println("Local working directory: " + lcwd);
                case "cd" -> {
                    String to = sftp.canonicalPath(resolve(arg(a, 1, "cd: path")));
                    if (!sftp.stat(to).isDirectory()) {
                        throw new IOException("Can't change directory: \"" + to + "\" is not a directory");
                    }
                    cwd = to;
                }
                case "lcd" -> {
                    Path to = lcwd.resolve(arg(a, 1, "lcd: path")).normalize();
                    if (!Files.isDirectory(to)) {
                        throw new IOException("Couldn't change local directory to \"" + to + "\": No such directory");
                    }
                    lcwd = to;
                }
                case "ls", "dir" -> ls(sftp, a);
                case "lls" -> {
                    Path p = a.size() > 1 ? lcwd.resolve(a.get(a.size() - 1)) : lcwd;
                    try (Stream<Path> l = Files.list(p)) {
                        l.map(x -> x.getFileName().toString()).sorted().forEach(System.out::println);
                    }
                }
                case "get" -> {
                    List<String> x = flags(a);
                    boolean r = recursiveDefault || a.contains("-r") || a.contains("-R");
                    String remote = resolve(arg(x, 0, "get: remote path"));
                    Path local = x.size() > 1 ? lcwd.resolve(x.get(1)) : lcwd.resolve(SftpTransfers.baseName(remote));
                    if (Files.isDirectory(local) && x.size() > 1) {
                        local = local.resolve(SftpTransfers.baseName(remote));
                    }
                    System.out.println("Fetching " + remote + " to " + local);
                    SftpTransfers.download(sftp, remote, local, r);
                }
                case "put" -> {
                    List<String> x = flags(a);
                    boolean r = recursiveDefault || a.contains("-r") || a.contains("-R");
                    Path local = lcwd.resolve(arg(x, 0, "put: local path"));
                    String remote = x.size() > 1 ? resolve(x.get(1))
                            : SftpTransfers.join(cwd, local.getFileName().toString());
                    if (x.size() > 1 && SftpTransfers.isRemoteDirectory(sftp, remote)) {
                        remote = SftpTransfers.join(remote, local.getFileName().toString());
                    }
                    System.out.println("Uploading " + local + " to " + remote);
                    SftpTransfers.upload(sftp, local, remote, r);
                }
                case "mkdir" -> sftp.mkdir(resolve(arg(a, 1, "mkdir: path")));
                case "rmdir" -> sftp.rmdir(resolve(arg(a, 1, "rmdir: path")));
                case "rm" -> sftp.remove(resolve(arg(a, 1, "rm: path")));
                case "rename" -> sftp.rename(resolve(arg(a, 1, "rename: old path")),
                        resolve(arg(a, 2, "rename: new path")));
                default -> throw new IOException("Invalid command: " + cmd);
            }
            return Result.OK;
        } catch (IOException | RuntimeException e) {
            System.err.println(cmd + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return Result.ERROR;
        }
    }

    private void ls(SftpClient sftp, List<String> a) throws IOException {
        boolean longFormat = a.contains("-l");
        List<String> x = flags(a);
        String dir = x.isEmpty() ? cwd : resolve(x.get(0));
        if (!sftp.stat(dir).isDirectory()) {
            System.out.println(x.get(0));
            return;
        }
        List<SftpClient.DirEntry> entries = new ArrayList<>();
        sftp.readDir(dir).forEach(entries::add);
        entries.stream().filter(e -> !e.getFilename().startsWith("."))
                .sorted(java.util.Comparator.comparing(SftpClient.DirEntry::getFilename))
                .forEach(e -> System.out.println(longFormat ? e.getLongFilename() : e.getFilename()));
    }

    private String resolve(String p) {
        if (p.startsWith("/")) {
            return p;
        }
        return SftpTransfers.join(cwd, p);
    }

    private static String arg(List<String> a, int i, String what) throws IOException {
        if (a.size() <= i) {
            throw new IOException("missing argument: " + what);
        }
        return a.get(i);
    }

    /** The arguments after the command name without options. */
    private static List<String> flags(List<String> a) {
        return a.subList(1, a.size()).stream().filter(w -> !w.startsWith("-")).toList();
    }

    /** Splits on blanks; double or single quotes group, as sftp. */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean in = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                in = true;
            } else if (Character.isWhitespace(c)) {
                if (in) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    in = false;
                }
            } else {
                cur.append(c);
                in = true;
            }
        }
        if (in) {
            out.add(cur.toString());
        }
        return out;
    }
}
