package io.pqssh.client.transfer;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.extensions.CopyDataExtension;
import org.apache.sshd.sftp.client.extensions.openssh.OpenSSHStatExtensionInfo;
import org.apache.sshd.sftp.client.extensions.openssh.OpenSSHStatPathExtension;
import org.apache.sshd.sftp.common.SftpConstants;
import org.apache.sshd.sftp.common.SftpException;

import io.pqssh.client.config.Patterns;

/**
 * The commands of OpenSSH 9.2's sftp that a day of work uses, with its messages (docs/client.md "sftp"): a remote
 * and a local working directory, {@code *}/{@code ?} globs in the last path component of get, put, rm and ls, and
 * sftp's column listing. Errors go to stderr with sftp's text; {@link #execute} says whether the command failed.
 */
public final class SftpShell {
    /** What a command line did. */
    public enum Outcome { OK, ERROR, QUIT }

    /** A failed command, with the message sftp prints for it. */
    private static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message, null, false, false);
        }
    }

    private static final String HELP = String.join("\n",
            "Available commands:",
            row("bye", "Quit sftp"),
            row("cd path", "Change remote directory to 'path'"),
            row("chgrp [-h] grp path", "Change group of file 'path' to 'grp'"),
            row("chmod [-h] mode path", "Change permissions of file 'path' to 'mode'"),
            row("chown [-h] own path", "Change owner of file 'path' to 'own'"),
            row("copy oldpath newpath", "Copy remote file"),
            row("cp oldpath newpath", "Copy remote file"),
            row("df [-hi] [path]", "Display statistics for current directory or"),
            row("", "filesystem containing 'path'"),
            row("exit", "Quit sftp"),
            row("get [-afpR] remote [local]", "Download file"),
            row("help", "Display this help text"),
            row("lcd path", "Change local directory to 'path'"),
            row("lls [ls-options [path]]", "Display local directory listing"),
            row("lmkdir path", "Create local directory"),
            row("ln [-s] oldpath newpath", "Link remote file (-s for symlink)"),
            row("lpwd", "Print local working directory"),
            row("ls [-1al] [path]", "Display remote directory listing"),
            row("lumask umask", "Set local umask to 'umask'"),
            row("mkdir path", "Create remote directory"),
            row("progress", "Toggle display of progress meter"),
            row("put [-afpR] local [remote]", "Upload file"),
            row("pwd", "Display remote working directory"),
            row("quit", "Quit sftp"),
            row("reget [-fpR] remote [local]", "Resume download file"),
            row("rename oldpath newpath", "Rename remote file"),
            row("reput [-fpR] local [remote]", "Resume upload file"),
            row("rm path", "Delete remote file"),
            row("rmdir path", "Remove remote directory"),
            row("symlink oldpath newpath", "Symlink remote file"),
            row("version", "Show SFTP version"),
            row("!command", "Execute 'command' in local shell"),
            row("!", "Escape to local shell"),
            row("?", "Synonym for help"));

    /**
     * How the shell was started: {@code batch} (-b: no "Fetching"/"Uploading"/"Changing" lines, no meter),
     * {@code quiet} (-q: the same, and no informational lines), whether the meter starts on (sftp: unless -b, -q or
     * stderr is no terminal; the {@code progress} command toggles it), the terminal width for listings (-1 without
     * one), and the stdout terminal's width for the meter (-1: stdout is no terminal, never a meter).
     */
    public record Mode(boolean recursiveDefault, boolean batch, boolean quiet, boolean progress, IntSupplier terminalColumns,
            IntSupplier meterColumns) {
    }

    private final SftpClient sftp;
    private final SftpRequests requests;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean recursiveDefault;
    private final boolean quiet;
    private final boolean informational;
    private final IntSupplier terminalColumns;
    private final IntSupplier meterColumns;
    private final String home;
    private final AtomicBoolean interrupted = new AtomicBoolean();
    private volatile boolean busy;
    private String cwd;
    private Path lcwd = Path.of("").toAbsolutePath();
    private int umask = LocalUmask.current();
    private boolean progress;

    public SftpShell(SftpClient sftp, PrintStream out, PrintStream err, Mode mode) throws IOException {
        this.sftp = sftp;
        this.requests = new SftpRequests(sftp);
        this.out = out;
        this.err = err;
        this.recursiveDefault = mode.recursiveDefault();
        this.quiet = mode.batch() || mode.quiet();
        this.informational = !mode.quiet();
        this.terminalColumns = mode.terminalColumns();
        this.meterColumns = mode.meterColumns();
        this.progress = mode.progress();
        this.home = sftp.canonicalPath(".");
        this.cwd = home;
    }

    /**
     * Ctrl-C (SIGINT) during a command: sftp's {@code Interrupt} on stderr, and the running transfer stops at its next
     * block. False when no command runs (the caller decides: a fresh prompt, or the end as sftp's pipe mode).
     */
    public boolean interrupt() {
        if (!busy) {
            return false;
        }
        err.print("\rInterrupt  \n");
        err.flush();
        interrupted.set(true);
        return true;
    }

    /** Changes to the directory of {@code user@host:dir}; false (message printed) when it is not one. */
    public boolean startIn(String dir) {
        return dir == null || dir.isEmpty() || dir.equals(".") || execute("cd " + quote(dir)) == Outcome.OK;
    }

    public Outcome execute(String line) {
        interrupted.set(false);
        busy = true;
        try {
            return run(line);
        } finally {
            busy = false;
        }
    }

    private Outcome run(String line) {
        String trimmed = line.strip();
        if (trimmed.startsWith("!")) {
            return shell(trimmed.substring(1).strip());
        }
        List<String> a = words(trimmed);
        if (a.isEmpty()) {
            return Outcome.OK;
        }
        String cmd = a.get(0);
        List<String> flags = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (String w : a.subList(1, a.size())) {
            (w.startsWith("-") && w.length() > 1 && args.isEmpty() ? flags : args).add(w);
        }
        try {
            switch (cmd) {
                case "bye", "exit", "quit" -> {
                    return Outcome.QUIT;
                }
                case "help", "?" -> out.println(HELP);
                case "version" -> out.println("SFTP protocol version " + sftp.getVersion());
                case "pwd" -> out.println("Remote working directory: " + cwd);
                case "lpwd" -> out.println("Local working directory: " + lcwd);
                case "cd" -> cd(args.isEmpty() ? home : resolve(args.get(0)));
                case "lcd" -> lcd(args.isEmpty() ? System.getProperty("user.home") : args.get(0));
                case "lmkdir" -> lmkdir(need(args, 1, cmd));
                case "ls", "dir" -> ls(flags, args);
                case "lls" -> localShell("ls" + (trimmed.length() > 3 ? trimmed.substring(3) : ""));
                case "get", "reget" -> get(ShellArgs.parse(a, "afPpRr"), cmd.equals("reget"));
                case "put", "reput" -> put(ShellArgs.parse(a, "afPpRr"), cmd.equals("reput"));
                case "mkdir" -> remote("remote mkdir \"%s\"", resolve(need(args, 1, cmd)), sftp::mkdir);
                case "rmdir" -> remote("remote rmdir \"%s\"", resolve(need(args, 1, cmd)), sftp::rmdir);
                case "rm" -> rm(need(args, 1, cmd));
                case "rename" -> rename(resolve(need(args, 2, cmd)), resolve(args.get(1)));
                case "chmod", "chown", "chgrp" -> change(cmd, ShellArgs.parse(a, "h"));
                case "ln", "symlink" -> link(cmd, ShellArgs.parse(a, cmd.equals("ln") ? "s" : ""));
                case "copy", "cp" -> copy(cmd, ShellArgs.parse(a, ""));
                case "df" -> df(ShellArgs.parse(a, "hi"));
                case "lumask" -> lumask(ShellArgs.parse(a, ""));
                case "progress" -> {
                    ShellArgs.parse(a, "");
                    progress = !progress;
                    out.println(progress ? "Progress meter enabled" : "Progress meter disabled");
                }
                default -> throw new Failure("Invalid command.");
            }
            return Outcome.OK;
        } catch (Failure | ShellArgs.BadFlag f) {
            err.println(f.getMessage());
        } catch (SftpTransfers.Interrupted e) {
            // "Interrupt" was printed when Ctrl-C came
        } catch (IOException | RuntimeException e) {
            err.println(cmd + ": " + text(e));
        }
        return Outcome.ERROR;
    }

    private static String need(List<String> args, int n, String cmd) throws Failure {
        if (args.size() < n) {
            throw new Failure("You must specify " + (n == 1 ? "a path" : "two paths") + " after a " + cmd
                    + " command.");
        }
        return args.get(0);
    }

    private interface RemoteOp {
        void run(String path) throws IOException;
    }

    private void remote(String what, String path, RemoteOp op) throws Failure {
        try {
            op.run(path);
        } catch (IOException e) {
            throw new Failure(String.format(what, path) + ": " + text(e));
        }
    }

    private void cd(String path) throws Failure {
        String to;
        SftpClient.Attributes a;
        try {
            to = sftp.canonicalPath(path);
            a = sftp.stat(to);
        } catch (IOException e) {
            throw new Failure("stat remote: " + text(e));
        }
        if (!a.isDirectory()) {
            throw new Failure("Can't change directory: \"" + to + "\" is not a directory");
        }
        cwd = to;
    }

    private void lcd(String arg) throws Failure {
        Path to = lcwd.resolve(arg).normalize();
        if (!Files.isDirectory(to)) {
            throw new Failure("Couldn't change local directory to \"" + arg + "\": "
                    + (Files.exists(to) ? "Not a directory" : "No such file or directory"));
        }
        lcwd = to;
    }

    private void lmkdir(String arg) throws Failure {
        try {
            Path made = Files.createDirectory(lcwd.resolve(arg));
            SftpTransfers.setMode(made, 0777 & ~umask);
        } catch (IOException e) {
            throw new Failure("Couldn't create local directory \"" + arg + "\": "
                    + (Files.exists(lcwd.resolve(arg)) ? "File exists" : text(e)));
        }
    }

    private void ls(List<String> flags, List<String> args) throws IOException, Failure {
        String opts = String.join("", flags).replace("-", "");
        boolean longView = opts.contains("l");
        boolean oneColumn = opts.contains("1");
        boolean all = opts.contains("a");
        List<String> shown = new ArrayList<>();
        List<String> longNames = new ArrayList<>();
        // names not read from a directory (a file, glob matches): sftp builds their long lines from the attributes
        List<String> statNames = new ArrayList<>();
        List<SftpClient.Attributes> statAttrs = new ArrayList<>();
        String arg = args.isEmpty() ? null : args.get(0);
        String path = arg == null ? cwd : resolve(arg);
        List<String> matches = hasGlob(path) ? glob(path) : null;
        if (matches != null && matches.isEmpty()) {
            throw new Failure("Can't ls: \"" + path + "\" not found");
        }
        if (matches != null && matches.size() == 1 && isDirectory(matches.get(0))) {
            // as sftp: a glob that names one directory lists that directory
            String m = matches.get(0);
            arg = arg.contains("/") ? arg.substring(0, arg.lastIndexOf('/') + 1) + baseName(m) : baseName(m);
            path = m;
            matches = null;
        }
        if (matches != null) {
            for (String m : matches) {
                String name = arg.contains("/") ? arg.substring(0, arg.lastIndexOf('/') + 1) + baseName(m)
                        : baseName(m);
                shown.add(name);
                if (longView) {
                    // glob(3)'s GLOB_MARK, as sftp: a directory's name ends with '/'
                    SftpClient.Attributes a = sftp.lstat(m);
                    statNames.add(a.isDirectory() ? name + "/" : name);
                    statAttrs.add(a);
                }
            }
        } else {
            SftpClient.Attributes a;
            try {
                a = sftp.stat(path);
            } catch (IOException e) {
                throw new Failure("Can't ls: \"" + path + "\" not found");
            }
            if (!a.isDirectory()) {
                shown.add(arg);
                statNames.add(arg);
                statAttrs.add(a);
            } else {
                String prefix = arg == null ? "" : (arg.endsWith("/") ? arg : arg + "/");
                // sftp 9.2 builds every long line itself when the server can name owners and groups
                boolean ownLines = SftpLongList.serverNamesIds(sftp);
                List<SftpClient.DirEntry> entries = new ArrayList<>();
                SftpTransfers.readDir(sftp, path, err).forEach(entries::add);
                entries.sort(java.util.Comparator.comparing(SftpClient.DirEntry::getFilename));
                for (SftpClient.DirEntry e : entries) {
                    String n = e.getFilename();
                    if (n.startsWith(".") && !all) {
                        continue;
                    }
                    shown.add(prefix + n);
                    if (longView && ownLines) {
                        statNames.add(prefix + n);
                        statAttrs.add(e.getAttributes());
                        continue;
                    }
                    String l = e.getLongFilename();
                    longNames.add(l != null && l.endsWith(n) ? l.substring(0, l.length() - n.length()) + prefix + n
                            : prefix + n);
                }
            }
        }
        if (longView) {
            longNames.addAll(SftpLongList.lines(sftp, statNames, statAttrs));
            longNames.forEach(out::println);
        } else if (oneColumn) {
            shown.forEach(out::println);
        } else {
            columns(shown);
        }
    }

    private boolean isDirectory(String remotePath) {
        try {
            return sftp.stat(remotePath).isDirectory();
        } catch (IOException e) {
            return false;
        }
    }

    /** sftp's short listing: as many columns of equal width as fit the terminal (80 without one). */
    private void columns(List<String> names) {
        int width = terminalColumns.getAsInt() > 0 ? terminalColumns.getAsInt() : 80;
        int m = names.stream().mapToInt(String::length).max().orElse(0);
        int columns = Math.max(width / (m + 2), 1);
        int colspace = Math.min(width / columns, width);
        StringBuilder b = new StringBuilder();
        int c = 1;
        for (String n : names) {
            b.append(n);
            b.append(" ".repeat(Math.max(0, colspace - n.length())));
            if (c >= columns) {
                b.append('\n');
                c = 1;
            } else {
                c++;
            }
        }
        if (c != 1) {
            b.append('\n');
        }
        out.print(b);
        out.flush();
    }

    private SftpTransfers.Options options(ShellArgs p, boolean resume) {
        ProgressMeter.Factory meter = progress && meterColumns.getAsInt() > 0 ? ProgressMeter.on(out, meterColumns)
                : ProgressMeter.Factory.NONE;
        return new SftpTransfers.Options(recursiveDefault || p.has('r') || p.has('R'), resume || p.has('a'),
                p.has('p') || p.has('P'), p.has('f'), umask, meter, interrupted::get);
    }

    private void get(ShellArgs p, boolean reget) throws IOException, Failure {
        if (p.operands().isEmpty()) {
            throw new Failure("You must specify at least one path after a " + (reget ? "reget" : "get") + " command.");
        }
        SftpTransfers.Options o = options(p, reget);
        String localArg = p.operands().size() > 1 ? p.operands().get(1) : null;
        String remote = resolve(p.operands().get(0));
        List<String> sources = hasGlob(remote) ? glob(remote) : List.of(remote);
        if (sources.isEmpty()) {
            throw new Failure("File \"" + remote + "\" not found.");
        }
        for (String src : sources) {
            SftpClient.Attributes a;
            try {
                a = sftp.stat(src);
            } catch (IOException e) {
                throw new Failure("File \"" + src + "\" not found.");
            }
            if (a.isDirectory() && !o.recursive()) {
                throw new Failure("download " + src + "/: not a regular file");
            }
            String shownLocal;
            if (localArg == null) {
                shownLocal = baseName(src);
            } else if (Files.isDirectory(lcwd.resolve(localArg)) || sources.size() > 1) {
                shownLocal = (localArg.endsWith("/") ? localArg : localArg + "/") + baseName(src);
            } else {
                shownLocal = localArg;
            }
            if (!quiet) {
                out.println((o.resume() ? "Resuming " : "Fetching ") + src + (a.isDirectory() ? "/" : "") + " to "
                        + shownLocal);
            }
            if (!a.isDirectory() && !a.isRegularFile()) {
                throw new Failure("download " + src + ": not a regular file");
            }
            long written;
            try {
                written = SftpTransfers.download(sftp, src, lcwd.resolve(shownLocal), o);
            } catch (SftpTransfers.TransferException e) {
                throw new Failure(e.message(shownLocal));
            }
            if (o.resume() && written == 0 && !a.isDirectory() && informational) {
                err.println("File \"" + shownLocal + "\" was not modified");
            }
        }
    }

    private void put(ShellArgs p, boolean reput) throws IOException, Failure {
        if (p.operands().isEmpty()) {
            throw new Failure("You must specify at least one path after a " + (reput ? "reput" : "put") + " command.");
        }
        SftpTransfers.Options o = options(p, reput);
        String localArg = p.operands().get(0);
        String remoteArg = p.operands().size() > 1 ? p.operands().get(1) : null;
        List<String> sources = localGlob(localArg);
        if (sources.isEmpty()) {
            throw new Failure("stat " + localArg + ": No such file or directory");
        }
        for (String src : sources) {
            Path local = lcwd.resolve(src);
            if (!Files.exists(local)) {
                throw new Failure("stat " + src + ": No such file or directory");
            }
            if (Files.isDirectory(local) && !o.recursive()) {
                throw new Failure("local \"" + (src.endsWith("/") ? src : src + "/") + "\" is not a regular file");
            }
            String name = local.normalize().getFileName().toString();
            String remote;
            if (remoteArg == null) {
                remote = SftpTransfers.join(cwd, name);
            } else {
                remote = resolve(remoteArg);
                if (sources.size() > 1 || SftpTransfers.isRemoteDirectory(sftp, remote)) {
                    remote = SftpTransfers.join(remote, name);
                }
            }
            if (!quiet) {
                out.println((o.resume() ? "Resuming upload of " : "Uploading ") + src
                        + (Files.isDirectory(local) ? "/" : "") + " to " + remote);
            }
            try {
                SftpTransfers.upload(sftp, local, remote, o);
            } catch (SftpTransfers.TransferException e) {
                throw new Failure(e.message(src));
            }
        }
    }

    /** chmod (octal mode), chown and chgrp (numeric ids) on every match of a glob; -h: the link, not its target. */
    private void change(String cmd, ShellArgs p) throws IOException, Failure {
        long n = number(cmd, p.operands(), cmd.equals("chmod") ? 8 : 10);
        if (p.operands().size() < 2) {
            throw new Failure("You must specify a path after a " + cmd + " command.");
        }
        boolean follow = !p.has('h');
        if (!follow && !requests.offers(SftpRequests.LSETSTAT)) {
            throw new Failure("Server does not support " + SftpRequests.LSETSTAT + " extension");
        }
        String path = resolve(p.operands().get(1));
        List<String> targets = hasGlob(path) ? glob(path) : List.of();
        for (String t : targets.isEmpty() ? List.of(path) : targets) {
            SftpRequests.Change change;
            if (cmd.equals("chmod")) {
                change = SftpRequests.Change.permissions((int) n);
            } else {
                SftpClient.Attributes a;
                try {
                    a = follow ? sftp.stat(t) : sftp.lstat(t);
                } catch (IOException e) {
                    throw new Failure("stat remote: " + text(e));
                }
                change = cmd.equals("chown") ? SftpRequests.Change.owner((int) n, a.getGroupId())
                        : SftpRequests.Change.owner(a.getUserId(), (int) n);
            }
            if (!quiet) {
                out.println("Changing " + switch (cmd) {
                    case "chmod" -> "mode";
                    case "chown" -> "owner";
                    default -> "group";
                } + " on " + t);
            }
            try {
                requests.setstat(t, change, follow);
            } catch (IOException e) {
                throw new Failure("remote " + (follow ? "setstat" : "lsetstat") + " \"" + t + "\": " + text(e));
            }
        }
    }

    /** sftp's numeric argument: a whole number from 0 to 2^32-1 in {@code base}. */
    private static long number(String cmd, List<String> operands, int base) throws Failure {
        try {
            long n = Long.parseLong(operands.get(0).strip(), base);
            if (n >= 0 && n <= 0xffffffffL) {
                return n;
            }
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            // the message below
        }
        throw new Failure("You must supply a numeric argument to the " + cmd + " command.");
    }

    private void link(String cmd, ShellArgs p) throws Failure {
        if (p.operands().size() < 2) {
            throw new Failure("You must specify two paths after a " + cmd + " command.");
        }
        boolean symbolic = cmd.equals("symlink") || p.has('s');
        // as sftp: a symbolic link's target is stored as typed (it may be relative to the link's directory)
        String target = symbolic ? p.operands().get(0) : resolve(p.operands().get(0));
        String link = resolve(p.operands().get(1));
        try {
            if (symbolic) {
                requests.symlink(target, link);
            } else if (!requests.offers(SftpRequests.HARDLINK)) {
                throw new Failure("Server does not support " + SftpRequests.HARDLINK + " extension");
            } else {
                requests.hardlink(target, link);
            }
        } catch (IOException e) {
            throw new Failure("remote " + (symbolic ? "symlink file" : "link") + " \"" + target + "\" to \"" + link
                    + "\": " + text(e));
        }
    }

    /** copy/cp: a server-side copy with the {@code copy-data} extension (no bytes cross the network). */
    private void copy(String cmd, ShellArgs p) throws Failure {
        if (p.operands().size() < 2) {
            throw new Failure("You must specify two paths after a " + cmd + " command.");
        }
        String from = resolve(p.operands().get(0));
        String to = resolve(p.operands().get(1));
        CopyDataExtension copyData = sftp.getExtension(CopyDataExtension.class);
        if (!requests.offers(SftpRequests.COPY_DATA)) {
            throw new Failure("Server does not support copy-data extension");
        }
        SftpClient.Attributes a;
        try {
            a = sftp.stat(from);
        } catch (IOException e) {
            throw new Failure("stat remote: " + text(e));
        }
        if (!a.isRegularFile()) {
            throw new Failure("Cannot copy non-regular file: " + from);
        }
        // as sftp: the copy is created with the source's permission bits (no set-id bits), under the server's umask
        try (SftpClient.CloseableHandle in = open(from, SftpConstants.SSH_FXF_READ, SftpRequests.Change.NONE);
                SftpClient.CloseableHandle out = open(to, SftpConstants.SSH_FXF_WRITE | SftpConstants.SSH_FXF_CREAT
                        | SftpConstants.SSH_FXF_TRUNC, SftpRequests.Change.permissions(a.getPermissions() & 0777))) {
            copyData.copyData(in, 0, 0, out, 0);
        } catch (IOException e) {
            throw new Failure("Couldn't copy file \"" + from + "\" to \"" + to + "\": " + text(e));
        }
    }

    private SftpClient.CloseableHandle open(String path, int pflags, SftpRequests.Change attrs) throws Failure {
        try {
            return requests.open(path, pflags, attrs);
        } catch (IOException e) {
            throw new Failure("remote open(\"" + path + "\"): " + text(e));
        }
    }

    private void df(ShellArgs p) throws Failure {
        String path = p.operands().isEmpty() ? cwd : resolve(p.operands().get(0));
        OpenSSHStatPathExtension statvfs = sftp.getExtension(OpenSSHStatPathExtension.class);
        if (!statvfs.isSupported()) {
            throw new Failure("Server does not support " + SftpRequests.STATVFS + " extension");
        }
        OpenSSHStatExtensionInfo st;
        try {
            st = statvfs.stat(path);
        } catch (IOException e) {
            // sftp prints nothing here (do_statvfs quietly); the reason is more use to a person
            throw new Failure("remote statvfs: " + text(e));
        }
        out.print(DiskFree.table(st, p.has('h'), p.has('i')));
        out.flush();
    }

    /** lumask: the mask for files that get creates (and lmkdir), as sftp's umask(2) of its own process. */
    private void lumask(ShellArgs p) throws Failure {
        long n = number("lumask", p.operands(), 8);
        umask = (int) (n & 0777);
        out.println(String.format("Local umask: %03o", n));
    }

    private void rm(String arg) throws IOException, Failure {
        String path = resolve(arg);
        List<String> targets = hasGlob(path) ? glob(path) : List.of(path);
        if (targets.isEmpty()) {
            targets = List.of(path); // as sftp: the pattern itself, which the server then does not find
        }
        for (String t : targets) {
            if (!quiet) {
                out.println("Removing " + t);
            }
            remote("remote delete %s", t, sftp::remove);
        }
    }

    private void rename(String from, String to) throws Failure {
        try {
            sftp.rename(from, to);
        } catch (IOException e) {
            throw new Failure("remote rename \"" + from + "\" to \"" + to + "\": " + text(e));
        }
    }

    private Outcome shell(String command) {
        String sh = System.getenv().getOrDefault("SHELL", "/bin/sh");
        try {
            return localShell(command.isEmpty() ? null : command, sh);
        } catch (IOException e) {
            err.println("Couldn't execute \"" + sh + "\": " + text(e));
            return Outcome.ERROR;
        }
    }

    private void localShell(String command) throws IOException {
        localShell(command, "/bin/sh");
    }

    /** Runs {@code command} with {@code shell -c} in the local working directory (an interactive shell if null). */
    private Outcome localShell(String command, String shell) throws IOException {
        out.flush();
        List<String> argv = command == null ? List.of(shell) : List.of(shell, "-c", command);
        Process p = new ProcessBuilder(argv).directory(lcwd.toFile()).inheritIO().start();
        try {
            int rc = p.waitFor();
            if (rc != 0 && command != null) {
                err.println("Shell exited with status " + rc);
            }
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
        }
        return Outcome.OK;
    }

    /** Remote paths matching a glob in their last component, sorted. */
    private List<String> glob(String path) throws IOException {
        int slash = path.lastIndexOf('/');
        String dir = slash <= 0 ? "/" : path.substring(0, slash);
        String pattern = path.substring(slash + 1);
        List<String> out = new ArrayList<>();
        try {
            for (SftpClient.DirEntry e : SftpTransfers.readDir(sftp, dir, err)) {
                String n = e.getFilename();
                if (!n.equals(".") && !n.equals("..") && !(n.startsWith(".") && !pattern.startsWith("."))
                        && Patterns.glob(n, pattern)) {
                    out.add(SftpTransfers.join(dir, n));
                }
            }
        } catch (SftpException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    /** Local arguments matching a glob in their last component, as typed (relative stays relative), sorted. */
    private List<String> localGlob(String arg) throws IOException {
        if (!hasGlob(arg)) {
            return Files.exists(lcwd.resolve(arg)) ? List.of(arg) : List.of();
        }
        int slash = arg.lastIndexOf('/');
        String dirPart = slash < 0 ? "" : arg.substring(0, slash + 1);
        String pattern = arg.substring(slash + 1);
        Path dir = lcwd.resolve(dirPart.isEmpty() ? "." : dirPart);
        List<String> out = new ArrayList<>();
        File[] files = dir.toFile().listFiles();
        if (files != null) {
            for (File f : files) {
                if (!(f.getName().startsWith(".") && !pattern.startsWith(".")) && Patterns.glob(f.getName(), pattern)) {
                    out.add(dirPart + f.getName());
                }
            }
        }
        out.sort(null);
        return out;
    }

    private static boolean hasGlob(String path) {
        String last = path.substring(path.lastIndexOf('/') + 1);
        return last.indexOf('*') >= 0 || last.indexOf('?') >= 0;
    }

    private String resolve(String p) {
        if (p.startsWith("/")) {
            return p;
        }
        if (p.equals("~") || p.startsWith("~/")) {
            return p.length() == 1 ? home : SftpTransfers.join(home, p.substring(2));
        }
        return SftpTransfers.join(cwd, p);
    }

    private static String baseName(String p) {
        return SftpTransfers.baseName(p);
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    private static String row(String command, String what) {
        return String.format("%-35s%s", command, what);
    }

    /** sftp's text for an SFTP status (fx2txt), or the exception's message. */
    static String text(Exception e) {
        if (e instanceof SftpException s) {
            return switch (s.getStatus()) {
                case SftpConstants.SSH_FX_EOF -> "End of file";
                case SftpConstants.SSH_FX_NO_SUCH_FILE -> "No such file or directory";
                case SftpConstants.SSH_FX_PERMISSION_DENIED -> "Permission denied";
                case SftpConstants.SSH_FX_FAILURE -> "Failure";
                case SftpConstants.SSH_FX_BAD_MESSAGE -> "Bad message";
                case SftpConstants.SSH_FX_NO_CONNECTION -> "No connection";
                case SftpConstants.SSH_FX_CONNECTION_LOST -> "Connection lost";
                case SftpConstants.SSH_FX_OP_UNSUPPORTED -> "Operation unsupported";
                default -> "Unknown status";
            };
        }
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
    /** Splits on blanks; double or single quotes group, as sftp. */
    public static List<String> words(String line) {
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
