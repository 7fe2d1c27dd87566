package io.pqssh.inventory.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * The scan history: an embedded SQLite file, or PostgreSQL for a {@code jdbc:postgresql:} URL. The schema is
 * versioned by Flyway migrations (io/pqssh/inventory/store/migration/{sqlite,postgresql}); opening a store migrates
 * it to the current version. One connection, used by one thread at a time.
 */
public final class Store implements AutoCloseable {
    /** Records per transaction while a run is written. */
    static final int BATCH = 2_000;

    public enum Kind {
        SQLITE, POSTGRESQL
    }

    private final Connection connection;
    private final Kind kind;
    private final String display;

    private Store(Connection connection, Kind kind, String display) {
        this.connection = connection;
        this.kind = kind;
        this.display = display;
    }

    /**
     * Opens (and creates or migrates) the store named by {@code spec}: a {@code jdbc:postgresql:} URL, a
     * {@code jdbc:sqlite:} URL, or a file path (SQLite).
     */
    public static Store open(String spec) throws StoreException {
        String url;
        Kind kind;
        String display;
        if (spec.startsWith("jdbc:postgresql:")) {
            url = spec;
            kind = Kind.POSTGRESQL;
            display = spec.replaceAll("(?i)password=[^&]*", "password=***");
        } else if (spec.startsWith("jdbc:sqlite:")) {
            url = spec;
            kind = Kind.SQLITE;
            display = spec.substring("jdbc:sqlite:".length());
        } else if (spec.startsWith("jdbc:")) {
            throw new StoreException("unsupported store URL " + spec.substring(0, Math.min(spec.length(), 40))
                    + ": give a file path (SQLite) or a jdbc:postgresql: URL");
        } else {
            Path p = Path.of(spec).toAbsolutePath();
            if (p.getParent() != null && !Files.isDirectory(p.getParent())) {
                throw new StoreException("store " + spec + ": directory " + p.getParent() + " does not exist");
            }
            if (Files.isDirectory(p)) {
                throw new StoreException("store " + spec + " is a directory, not a database file");
            }
            url = "jdbc:sqlite:" + p;
            kind = Kind.SQLITE;
            display = spec;
        }
        try {
            Flyway.configure().dataSource(url, null, null)
                    .locations("classpath:io/pqssh/inventory/store/migration/" + kind.name().toLowerCase(
                            java.util.Locale.ROOT))
                    .loggers("slf4j").load().migrate();
        } catch (FlywayException e) {
            throw new StoreException("store " + display + ": " + firstLine(e.getMessage()), e);
        }
        try {
            Connection c = DriverManager.getConnection(url);
            if (kind == Kind.SQLITE) {
                try (Statement s = c.createStatement()) {
                    // WAL: readers (inventory diff) do not block a scan writing; NORMAL is durable at each commit
                    // point of a WAL database except for the last transactions before a power loss
                    s.execute("PRAGMA journal_mode=WAL");
                    s.execute("PRAGMA synchronous=NORMAL");
                    s.execute("PRAGMA busy_timeout=10000");
                }
            }
            c.setAutoCommit(false);
            return new Store(c, kind, display);
        } catch (SQLException e) {
            throw new StoreException("store " + display + ": " + firstLine(e.getMessage()), e);
        }
    }

    static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }

    public Kind kind() {
        return kind;
    }

    /** The store as shown in messages (passwords masked). */
    public String display() {
        return display;
    }

    Connection connection() {
        return connection;
    }

    /** Inserts a run row and returns its id. */
    long beginRun(String kind, String source) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(
                "INSERT INTO runs (kind, started, source, tool) VALUES (?, ?, ?, ?) RETURNING id")) {
            p.setString(1, kind);
            p.setString(2, Instant.now().toString());
            p.setString(3, source);
            p.setString(4, "pqssh " + io.pqssh.inventory.cbom.CbomWriter.TOOL_VERSION);
            long id;
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                id = rs.getLong(1);
            }
            p.close(); // SQLite commits only once no statement is in progress
            connection.commit();
            return id;
        }
    }

    void endRun(long run, long total, String summary) throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(
                "UPDATE runs SET finished = ?, total = ?, summary = ? WHERE id = ?")) {
            p.setString(1, Instant.now().toString());
            p.setLong(2, total);
            p.setString(3, summary);
            p.setLong(4, run);
            p.executeUpdate();
        }
        connection.commit();
    }

    @Override
    public void close() throws StoreException {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new StoreException("store " + display + ": " + firstLine(e.getMessage()), e);
        }
    }

    /** The store cannot be opened, migrated, written or read. */
    public static final class StoreException extends Exception {
        private static final long serialVersionUID = 1L;

        public StoreException(String message) {
            super(message);
        }

        public StoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
