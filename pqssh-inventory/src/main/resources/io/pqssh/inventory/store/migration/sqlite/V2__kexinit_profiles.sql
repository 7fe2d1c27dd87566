-- A server's offer (its KEXINIT) is shared by many targets: stored once as a profile, with its flagged algorithms,
-- instead of the flags once per target (which made most of the rows of a large scan).
CREATE TABLE profiles (
    id TEXT PRIMARY KEY,
    kex TEXT NOT NULL,
    host_keys TEXT NOT NULL,
    ciphers TEXT NOT NULL,
    macs TEXT NOT NULL
);
CREATE TABLE profile_flags (
    profile_id TEXT NOT NULL REFERENCES profiles (id),
    algorithm TEXT NOT NULL,
    severity TEXT NOT NULL,
    PRIMARY KEY (profile_id, algorithm)
);
ALTER TABLE targets ADD COLUMN profile_id TEXT REFERENCES profiles (id);
DROP TABLE target_flags;
