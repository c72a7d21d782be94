-- graphmem embedded store. Idempotent; applied at every open.
PRAGMA journal_mode = WAL;

CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS memories (
    rowid INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    tags_json TEXT NOT NULL,
    category TEXT,
    source TEXT NOT NULL,
    reason TEXT,
    metadata_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    valid_until TEXT,
    expires_at TEXT,
    embedding BLOB,
    health REAL NOT NULL,
    health_reasons_json TEXT NOT NULL,
    source_weight REAL NOT NULL,
    term_counts_json TEXT NOT NULL,
    doc_length INTEGER NOT NULL,
    near_duplicate_of TEXT,
    evidence_json TEXT,
    topics_json TEXT,               -- extracted topics [{topic, quote}] (their labels are in memory_tags)
    thread TEXT,                    -- the conversation it belongs to (NULL: none)
    seq INTEGER,                    -- its position there (NULL: created_at order)
    thread_pos TEXT,                -- model.thread_position: string order = thread order
    valid_from TEXT,                -- as given (NULL: since created_at)
    superseded_by TEXT,             -- the memory that replaced it (NULL: current)
    valid_start TEXT,               -- coalesce(valid_from, created_at), for as_of range seeks
    times_json TEXT,                -- resolved time phrases [{phrase, span, value, text}] (ingest/timeref.py)
    UNIQUE (namespace, id)
);
-- (namespace, content_hash) lookups are ordered by (created_at, id): the index covers the order,
-- so a duplicate check never walks the namespace. Replaces the older two-column index.
DROP INDEX IF EXISTS memories_hash;
CREATE INDEX IF NOT EXISTS memories_hash_created ON memories (namespace, content_hash, created_at, id);
CREATE INDEX IF NOT EXISTS memories_category ON memories (namespace, category, created_at, id);
CREATE INDEX IF NOT EXISTS memories_created ON memories (namespace, created_at, id);
-- Lets search ask "does anything here expire?" without scanning the namespace.
CREATE INDEX IF NOT EXISTS memories_expiring ON memories (namespace, expires_at) WHERE expires_at IS NOT NULL;

-- memories_valid_at / _valid_until / _superseded are created by validity.add_columns.
-- memories_thread (namespace, thread, thread_pos) is created by AdminMixin._add_thread_columns,
-- after the columns exist in a store written before threads.

CREATE TABLE IF NOT EXISTS memory_tags (
    namespace TEXT NOT NULL,
    tag TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (namespace, tag, memory_id)
);
CREATE INDEX IF NOT EXISTS memory_tags_recent ON memory_tags (namespace, tag, created_at, memory_id);
CREATE INDEX IF NOT EXISTS memory_tags_member ON memory_tags (namespace, memory_id);

-- Full-text candidates come from a tantivy index in graphmem.lexical/ beside this file, derived
-- from these rows and caught up from vector_log (stores/sqlite/lexical.py). Stores written with
-- the FTS5 table memory_fts drop it at open (AdminMixin._migrate_lexical).

CREATE TABLE IF NOT EXISTS term_df (
    namespace TEXT NOT NULL,
    term TEXT NOT NULL,
    df INTEGER NOT NULL,
    PRIMARY KEY (namespace, term)
) WITHOUT ROWID;

-- How many memories carry each tag / sit in each category (kind 'tag' | 'category'), kept in
-- step by every write so tag rarity and the router read one row instead of counting members.
CREATE TABLE IF NOT EXISTS label_counts (
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL,
    label TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (namespace, kind, label)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS namespace_stats (
    namespace TEXT PRIMARY KEY,
    n_docs INTEGER NOT NULL,
    total_length INTEGER NOT NULL
);

-- Undirected edges stored once with a < b.
CREATE TABLE IF NOT EXISTS edges (
    namespace TEXT NOT NULL,
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    type TEXT NOT NULL,
    weight REAL NOT NULL,
    reason_json TEXT NOT NULL,
    PRIMARY KEY (namespace, a, b, type)
);
CREATE INDEX IF NOT EXISTS edges_b ON edges (namespace, b, type);

-- Entity mentions (ingest/entities.py): one row per (entity, memory), derived from
-- memories.entities_json by the triggers of stores/sqlite/entities.py (created once the column
-- exists), so every write, update, delete and namespace drop keeps them exact. entity_counts
-- holds how many memories mention each entity (its frequency, which weighs it down).
CREATE TABLE IF NOT EXISTS memory_entities (
    namespace TEXT NOT NULL,
    entity TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    quote TEXT NOT NULL,
    PRIMARY KEY (namespace, entity, memory_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_entities_recent ON memory_entities (namespace, entity, created_at, memory_id);
CREATE INDEX IF NOT EXISTS memory_entities_member ON memory_entities (namespace, memory_id);
CREATE TABLE IF NOT EXISTS entity_counts (
    namespace TEXT NOT NULL,
    entity TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (namespace, entity)
) WITHOUT ROWID;
