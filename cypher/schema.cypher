// schema.cypher: constraints and indexes of the graphmem Neo4j store (idempotent).
//
// Run statement by statement (the loader splits on ';' at end of line). Every statement
// is IF NOT EXISTS / IF EXISTS, so running it again is a no-op.
//
// Data model
//   (:Memory {namespace, id, content, content_hash, tags, category, source, reason,
//             metadata, created_at, updated_at, valid_until, expires_at, embedding, embedding_f32,
//             health, health_reasons, source_weight, term_counts, term_keys, doc_length,
//             terms, near_duplicate_of, evidence, topics, topic_labels, thread, seq, thread_pos,
//             valid_from, superseded_by, valid_start, times})
//       valid_start = valid_from, else created_at (what as_of compares); superseded_by = the memory
//       that replaced it, joined to it by a SUPERSEDES relationship.
//       thread / seq: the conversation and position (optional); thread_pos = model.thread_position,
//       one string whose order is the thread's order (thread_context.cypher seeks it).
//       A thread member's context window is a :Memory of the same id in the companion namespace
//       "~window:<namespace>" (model.window_namespace), so the same vector and full-text indexes
//       hold it; it has no tags' edges of its own.
//       embedding_f32 = the embedding as little-endian float32 bytes (what reads return: under half
//       the float list's Bolt size; the list is what the vector index holds);
//       metadata / health_reasons / term_counts / evidence / topics / times are JSON strings;
//       terms = graphmem's own tokens, space separated, repeated per term frequency;
//       term_keys = the distinct terms (to keep TermDF in step without parsing JSON).
//   (:Memory)-[:TAGGED {namespace, tag, created_at, memory_id}]->(:Tag {namespace, name})
//       the link repeats its memory's key, tag and created_at so tag_members is one
//       ordered index seek (tagged_order) instead of expanding every link of a tag.
//       Extracted topics are linked the same way, to Tag nodes named "Topic:<key>" (a caller's
//       tags are case-folded, so never collide); the memory lists them in topic_labels.
//   (:Memory)-[:MENTIONS {namespace, entity, created_at, memory_id, kind, quote}]->(:Entity {namespace, key})
//       one per entity the memory's content mentions (the memory's `entities`, ingest/entities.py);
//       the link repeats its memory's key and created_at so entity_members is one ordered seek
//       (mentions_order); an Entity's degree is how many memories mention it.
//   (:Memory)-[:SHARES_TAG|SAME_CATEGORY|OVERLAPS|RELATED {weight, reason}]->(:Memory)
//       stored once, from the smaller id to the larger; reason is a JSON string.
//   (:Memory)-[:FOLLOWS {weight, reason}]->(:Memory)
//       from a thread's earlier memory to the next one (at most one each way per memory).
//   (:Memory)-[:SUPERSEDES {weight, reason}]->(:Memory)
//       from a memory to the older one it replaces; reason (JSON) holds when, why and the older
//       memory's state before, which undoing the supersession restores.
//   (:TermDF {namespace, term, df})           document frequency per term
//   (:CategoryCount {namespace, category, n})   memories per category (router, O(1))
//   (:NamespaceStats {namespace, n_docs, total_length})
//   (:NamespaceLock {namespace, at})           the write lock of a namespace (namespace_lock.cypher)
//   (:Meta {key: 'graphmem', model_id, dimension, layout})
//       layout 2: TAGGED properties and CategoryCount exist (older databases are
//       migrated once by ensure_schema, see migrate_*.cypher).
//
// Index lookups carry `USING INDEX SEEK ...`: on a small or fresh database, or while the
// index samples are stale, the planner otherwise may seek the namespace index and filter
// on id, or even scan the whole index (seen on 2026.08 right after a namespace was
// dropped). Per-insert and per-search queries are served by an index keyed beyond the
// namespace, and the *_order indexes end in (created_at, id) so "newest / oldest first
// LIMIT n" reads n entries in index order (tests/stores/test_neo4j_plans.py checks the plans).
//
// Parameters: $dimension (int) - the embedding dimension of the vector index.

CREATE CONSTRAINT memory_key IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.namespace, m.id) IS UNIQUE;

CREATE CONSTRAINT tag_key IF NOT EXISTS
FOR (t:Tag) REQUIRE (t.namespace, t.name) IS UNIQUE;

CREATE CONSTRAINT entity_key IF NOT EXISTS
FOR (e:Entity) REQUIRE (e.namespace, e.key) IS UNIQUE;

CREATE CONSTRAINT term_df_key IF NOT EXISTS
FOR (d:TermDF) REQUIRE (d.namespace, d.term) IS UNIQUE;

CREATE CONSTRAINT namespace_stats_key IF NOT EXISTS
FOR (s:NamespaceStats) REQUIRE s.namespace IS UNIQUE;

CREATE CONSTRAINT meta_key IF NOT EXISTS
FOR (m:Meta) REQUIRE m.key IS UNIQUE;

CREATE CONSTRAINT category_count_key IF NOT EXISTS
FOR (c:CategoryCount) REQUIRE (c.namespace, c.category) IS UNIQUE;

// One lock node per namespace (namespace_lock.cypher): the constraint makes MERGE of a new one
// safe when two processes write a namespace's first memory at once.
CREATE CONSTRAINT namespace_lock_key IF NOT EXISTS
FOR (l:NamespaceLock) REQUIRE l.namespace IS UNIQUE;

CREATE RANGE INDEX memory_namespace IF NOT EXISTS FOR (m:Memory) ON (m.namespace);

// find_by_hash: the oldest memory with a hash = the first entry of (namespace, content_hash).
CREATE RANGE INDEX memory_hash_order IF NOT EXISTS
FOR (m:Memory) ON (m.namespace, m.content_hash, m.created_at, m.id);

// category_members: the newest members of a category = the last entries of (namespace, category).
CREATE RANGE INDEX memory_category_order IF NOT EXISTS
FOR (m:Memory) ON (m.namespace, m.category, m.created_at, m.id);

// list_memories / iter_memories: a page = the next entries of (namespace, created_at, id).
CREATE RANGE INDEX memory_created_order IF NOT EXISTS
FOR (m:Memory) ON (m.namespace, m.created_at, m.id);

// thread_context: the memories just before / after a position in a thread.
CREATE RANGE INDEX memory_thread_order IF NOT EXISTS
FOR (m:Memory) ON (m.namespace, m.thread, m.thread_pos);

// tag_members: the newest links of a tag = the last entries of (namespace, tag).
CREATE RANGE INDEX tagged_order IF NOT EXISTS
FOR ()-[r:TAGGED]-() ON (r.namespace, r.tag, r.created_at, r.memory_id);

// entity_members: the newest mentions of an entity = the last entries of (namespace, entity).
CREATE RANGE INDEX mentions_order IF NOT EXISTS
FOR ()-[r:MENTIONS]-() ON (r.namespace, r.entity, r.created_at, r.memory_id);

// Superseded by the *_order indexes above (no query seeks them; each one costs every insert).
DROP INDEX memory_content_hash IF EXISTS;

DROP INDEX memory_category IF EXISTS;

DROP INDEX memory_created_at IF EXISTS;

// Vector recall: namespace, created_at and health are filter properties of the index, so the
// SEARCH clause filters inside the index (vector_search.cypher; Neo4j 2026.01+, Cypher 25).
// Replaces memory_embedding (unfiltered: the namespace was filtered after the index).
DROP INDEX memory_embedding IF EXISTS;

CYPHER 25
CREATE VECTOR INDEX memory_vector IF NOT EXISTS
FOR (m:Memory) ON m.embedding
WITH [m.namespace, m.created_at, m.health]
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}};

// Full-text recall: each memory's terms and its namespace, so a query requires its namespace
// inside Lucene (lexical_search.cypher). Replaces memory_terms (terms only: the namespace was
// filtered after the index, so one tenant's cost grew with the others' data).
DROP INDEX memory_terms IF EXISTS;

CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.terms, m.namespace]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}};
