// schema.cypher: constraints and indexes of the graphmem Neo4j store (idempotent).
//
// Run statement by statement (the loader splits on ';' at end of line). Every statement
// is IF NOT EXISTS, so running it again is a no-op.
//
// Data model
//   (:Memory {namespace, id, content, content_hash, tags, category, source, reason,
//             metadata, created_at, updated_at, valid_until, expires_at, embedding,
//             health, health_reasons, source_weight, term_counts, term_keys, doc_length,
//             terms, near_duplicate_of, evidence})
//       metadata / health_reasons / term_counts / evidence are JSON strings;
//       terms = graphmem's own tokens, space separated, repeated per term frequency;
//       term_keys = the distinct terms (to keep TermDF in step without parsing JSON).
//   (:Memory)-[:TAGGED]->(:Tag {namespace, name})
//   (:Memory)-[:SHARES_TAG|SAME_CATEGORY|OVERLAPS|RELATED {weight, reason}]->(:Memory)
//       stored once, from the smaller id to the larger; reason is a JSON string.
//   (:TermDF {namespace, term, df})           document frequency per term
//   (:NamespaceStats {namespace, n_docs, total_length})
//   (:Meta {key: 'graphmem', model_id, dimension})
//
// Lookups by key carry `USING INDEX m:Memory(namespace, id)`: on a small or fresh database
// the planner otherwise may seek the namespace index and filter on id.
//
// Parameters: $dimension (int) - the embedding dimension of the vector index.

CREATE CONSTRAINT memory_key IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.namespace, m.id) IS UNIQUE;

CREATE CONSTRAINT tag_key IF NOT EXISTS
FOR (t:Tag) REQUIRE (t.namespace, t.name) IS UNIQUE;

CREATE CONSTRAINT term_df_key IF NOT EXISTS
FOR (d:TermDF) REQUIRE (d.namespace, d.term) IS UNIQUE;

CREATE CONSTRAINT namespace_stats_key IF NOT EXISTS
FOR (s:NamespaceStats) REQUIRE s.namespace IS UNIQUE;

CREATE CONSTRAINT meta_key IF NOT EXISTS
FOR (m:Meta) REQUIRE m.key IS UNIQUE;

CREATE RANGE INDEX memory_namespace IF NOT EXISTS FOR (m:Memory) ON (m.namespace);

CREATE RANGE INDEX memory_content_hash IF NOT EXISTS FOR (m:Memory) ON (m.content_hash);

CREATE RANGE INDEX memory_category IF NOT EXISTS FOR (m:Memory) ON (m.category);

CREATE RANGE INDEX memory_created_at IF NOT EXISTS FOR (m:Memory) ON (m.created_at);

CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON (m.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimension, `vector.similarity_function`: 'cosine'}};

CREATE FULLTEXT INDEX memory_terms IF NOT EXISTS
FOR (m:Memory) ON EACH [m.terms]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}};
