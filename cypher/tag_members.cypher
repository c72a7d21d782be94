// tag_members.cypher: for each tag, the memories carrying it, newest first (created_at desc,
// id desc).
//
// Per tag, one backwards seek of the relationship index tagged_order (namespace, tag,
// created_at, memory_id) over the TAGGED links, which carry their memory's key and
// created_at, that stops after $limit rows: the cost does not grow with the number of
// memories carrying the tag (expanding the Tag node would read every link and sort them).
// ORDER BY names the equality-bound namespace and tag too (a no-op for the result): the
// planner only uses an index's order when ORDER BY starts at its first property. The IS NOT
// NULL predicates let it seek on all four properties. A single lookup passes one tag; batch
// ingest passes every tag of its batch (one round trip).
//
// Parameters: $namespace (string), $tags (list<string>, distinct), $limit (int),
//   $exclude_id (string; '' excludes nothing).
// Returns: up to $limit rows {tag, id} per tag, in tag order then newest first.
UNWIND $tags AS tag
CALL (tag) {
  MATCH ()-[r:TAGGED]->()
  USING INDEX SEEK r:TAGGED(namespace, tag, created_at, memory_id)
  WHERE r.namespace = $namespace AND r.tag = tag
    AND r.created_at IS NOT NULL AND r.memory_id IS NOT NULL AND r.memory_id <> $exclude_id
  RETURN r.memory_id AS id
  ORDER BY r.namespace DESC, r.tag DESC, r.created_at DESC, r.memory_id DESC
  LIMIT $limit
}
RETURN tag, id;
