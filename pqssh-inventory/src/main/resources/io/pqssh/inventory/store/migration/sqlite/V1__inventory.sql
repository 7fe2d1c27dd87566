-- pqssh inventory store, schema 1 (SQLite). Times are ISO-8601 UTC text (they sort as times).
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('scan', 'audit')),
    started TEXT NOT NULL,
    finished TEXT,
    source TEXT,
    tool TEXT NOT NULL,
    total INTEGER,
    summary TEXT
);
-- one row per target per run; seq is the result's number in its run
CREATE TABLE targets (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    target TEXT NOT NULL,
    host TEXT NOT NULL,
    port INTEGER NOT NULL,
    category TEXT NOT NULL,
    status TEXT NOT NULL,
    evidence TEXT NOT NULL,
    software TEXT,
    error TEXT,
    openssh10_kex TEXT,
    pqssh_kex TEXT,
    pq_kex_offered TEXT,
    pq_host_keys_offered TEXT,
    strict_kex BOOLEAN,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX targets_by_name ON targets (run_id, target);
-- every public key seen, once
CREATE TABLE keys (
    fingerprint TEXT PRIMARY KEY,
    key_type TEXT NOT NULL,
    bits INTEGER
);
CREATE TABLE target_keys (
    run_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    fingerprint TEXT NOT NULL REFERENCES keys (fingerprint),
    algorithm TEXT NOT NULL,
    FOREIGN KEY (run_id, seq) REFERENCES targets (run_id, seq)
);
CREATE INDEX target_keys_by_target ON target_keys (run_id, seq);
-- weak and informational algorithms a target offers (scan findings)
CREATE TABLE target_flags (
    run_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    algorithm TEXT NOT NULL,
    severity TEXT NOT NULL,
    FOREIGN KEY (run_id, seq) REFERENCES targets (run_id, seq)
);
-- audit findings; key findings point at their key
CREATE TABLE findings (
    run_id INTEGER NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    rule TEXT NOT NULL,
    severity TEXT NOT NULL,
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    message TEXT NOT NULL,
    fingerprint TEXT REFERENCES keys (fingerprint),
    PRIMARY KEY (run_id, seq)
);
