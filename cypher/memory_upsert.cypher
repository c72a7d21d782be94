// memory_upsert.cypher: write memory nodes, link their tags, count their terms and categories.
//
// Runs after memory_unindex.cypher in the same transaction, so the term statistics, the
// category counts and the tag links are rebuilt from scratch. Each node is updated in place
// (MERGE on the (namespace, id) key): its relation edges survive unless edges_clear.cypher
// ran. Each TAGGED link carries {namespace, tag, created_at, memory_id} for the ordered
// tagged_order index (tag_members.cypher). One memory (save_memory) or a whole batch
// (save_batch) per call: the counters are summed by the caller so each one is written once.
//
// Parameters:
//   $namespace (string)
//   $rows (list<map {id, props, tags}>)  props: every stored property (see schema.cypher),
//        null values remove a property; props.created_at goes on the TAGGED links;
//        tags: tag names (the Tag nodes are merged)
//        entities: list<map {entity, kind, quote}> its entity mentions: each a MENTIONS link
//        {namespace, entity, created_at, memory_id, kind, quote} to the merged Entity node
//        {namespace, key} (entity_members.cypher seeks them by the mentions_order index)
//   $term_df (list<map {term, n}>)  distinct terms, sorted (TermDF locks are taken in one
//        order): each adds n to its TermDF.df
//   $category_counts (list<map {category, n}>)  each adds n to its CategoryCount.n
//   $doc_length (int)  sum of the term counts, added to NamespaceStats.total_length
// Returns: nothing.
UNWIND $rows AS row
MERGE (m:Memory {namespace: $namespace, id: row.id})
SET m += row.props
WITH m, row
CALL (m, row) {
  UNWIND row.tags AS name
  MERGE (t:Tag {namespace: $namespace, name: name})
  MERGE (m)-[link:TAGGED]->(t)
  SET link.namespace = $namespace, link.tag = name, link.created_at = row.props.created_at,
      link.memory_id = row.id
}
CALL (m, row) {
  UNWIND row.entities AS mention
  MERGE (e:Entity {namespace: $namespace, key: mention.entity})
  MERGE (m)-[link:MENTIONS]->(e)
  SET link.namespace = $namespace, link.entity = mention.entity, link.created_at = row.props.created_at,
      link.memory_id = row.id, link.kind = mention.kind, link.quote = mention.quote
}
WITH count(*) AS written
CALL () {
  UNWIND $term_df AS entry
  MERGE (d:TermDF {namespace: $namespace, term: entry.term})
    ON CREATE SET d.df = 0
  SET d.df = d.df + entry.n
}
CALL () {
  UNWIND $category_counts AS entry
  MERGE (c:CategoryCount {namespace: $namespace, category: entry.category})
    ON CREATE SET c.n = 0
  SET c.n = c.n + entry.n
}
MERGE (s:NamespaceStats {namespace: $namespace})
  ON CREATE SET s.n_docs = 0, s.total_length = 0
SET s.n_docs = s.n_docs + size($rows),
    s.total_length = s.total_length + $doc_length;
