package io.pqssh.server.sftp;

import java.io.FileInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.List;

/**
 * {@code sftp-server} as a program: {@link SftpFileServer} on standard input and output with sftp-server's command
 * line (no jail). The user is {@code user.name}, the home directory {@code user.home}. For {@code sftp -D} and tests:
 * <pre>sftp -D "java -cp CLASSES io.pqssh.server.sftp.SftpFileServerMain [flags]"</pre>
 * sftp -D splits its argument on blanks (no quoting), so a class path with blanks needs a wrapper script. The tests
 * run the JVM with {@code -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto --enable-native-access=ALL-UNNAMED}
 * (the last for statvfs and umask through FFM, which otherwise print the JDK's restricted-method warning once).
 */
public final class SftpFileServerMain {
    private SftpFileServerMain() { }

    public static void main(String[] args) throws IOException {
        SftpServerOptions o;
        try {
            // sftp-server starts in the directory it is started in (sshd made it the home directory), unless -d
            o = SftpServerOptions.parse(List.of(args), System.getProperty("user.name"), System.getProperty("user.home"),
                    System.getProperty("user.dir"));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(e.getMessage().startsWith("usage:") || e.getMessage().startsWith("Invalid query") ? 1 : 255);
            return;
        }
        if (o.query() != null) {
            System.out.print(SftpFileServer.query(o.query()));
            System.out.flush();
            System.exit(0);
        }
        int rc = new SftpFileServer(o).serve(new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out));
        System.exit(rc);
    }
}
