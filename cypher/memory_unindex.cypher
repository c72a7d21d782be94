// memory_unindex.cypher: take existing memories out of the term statistics, category
// counts and tag index.
//
// First step of save_memory / save_batch (an update, or a memory another process wrote
// meanwhile) and delete_memory, inside the same transaction: per memory, decrements
// TermDF.df for each of its distinct terms and CategoryCount.n for its category (dropping
// entries that reach 0), decrements NamespaceStats, and deletes its TAGGED and MENTIONS links
// (an Entity no memory mentions any more goes too). The nodes
// and their relation edges stay (the save updates a node in place; delete detaches it next).
//
// Parameters: $namespace (string), $ids (list<string>, distinct).
// Returns: one row {id, old_tags: [string]} per memory that exists (its tags and topic labels).
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id}) USING INDEX SEEK m:Memory(namespace, id)
CALL (m) {
  UNWIND m.term_keys AS term
  MATCH (d:TermDF {namespace: $namespace, term: term})
  SET d.df = d.df - 1
  WITH d WHERE d.df <= 0
  DELETE d
}
CALL (m) {
  MATCH (c:CategoryCount {namespace: $namespace, category: m.category})
  SET c.n = c.n - 1
  WITH c WHERE c.n <= 0
  DELETE c
}
CALL (m) {
  MATCH (m)-[link:TAGGED]->(:Tag)
  DELETE link
}
CALL (m) {
  MATCH (m)-[mention:MENTIONS]->(e:Entity)
  DELETE mention
  WITH DISTINCT e WHERE NOT EXISTS { (e)<-[:MENTIONS]-() }
  DELETE e
}
MERGE (s:NamespaceStats {namespace: $namespace})
  ON CREATE SET s.n_docs = 0, s.total_length = 0
SET s.n_docs = s.n_docs - 1,
    s.total_length = s.total_length - m.doc_length
RETURN id, m.tags + coalesce(m.topic_labels, []) AS old_tags;
