// memory_upsert.cypher: write a memory node, link its tags, count its terms and category.
//
// Runs after memory_unindex.cypher in the same transaction, so the term statistics, the
// category count and the tag links are rebuilt from scratch. The node is updated in place
// (MERGE on the (namespace, id) key): its relation edges survive unless edges_clear.cypher
// ran. Each TAGGED link carries {namespace, tag, created_at, memory_id} for the ordered
// tagged_order index (tag_members.cypher).
//
// Parameters:
//   $namespace, $id (string)
//   $props (map)  every stored property (see schema.cypher); null values remove a property;
//                 $props.created_at goes on the TAGGED links, $props.category is counted
//   $tags (list<string>)  tag names (the Tag nodes are merged)
//   $term_keys (list<string>)  distinct terms: each adds 1 to its TermDF.df
//   $doc_length (int)  sum of the term counts, added to NamespaceStats.total_length
// Returns: nothing.
MERGE (m:Memory {namespace: $namespace, id: $id})
SET m += $props
WITH m
CALL (m) {
  UNWIND $tags AS name
  MERGE (t:Tag {namespace: $namespace, name: name})
  MERGE (m)-[link:TAGGED]->(t)
  SET link.namespace = $namespace, link.tag = name, link.created_at = $props.created_at,
      link.memory_id = $id
}
CALL () {
  UNWIND $term_keys AS term
  MERGE (d:TermDF {namespace: $namespace, term: term})
    ON CREATE SET d.df = 0
  SET d.df = d.df + 1
}
CALL () {
  UNWIND CASE WHEN $props.category IS NULL THEN [] ELSE [$props.category] END AS category
  MERGE (c:CategoryCount {namespace: $namespace, category: category})
    ON CREATE SET c.n = 0
  SET c.n = c.n + 1
}
MERGE (s:NamespaceStats {namespace: $namespace})
  ON CREATE SET s.n_docs = 0, s.total_length = 0
SET s.n_docs = s.n_docs + 1,
    s.total_length = s.total_length + $doc_length;
