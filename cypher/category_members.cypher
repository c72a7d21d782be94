// category_members.cypher: for each category, its memories, newest first (created_at desc,
// id desc).
//
// Per category, one backwards seek of memory_category_order (namespace, category,
// created_at, id) that stops after $limit rows: the index gives the order, so the cost does
// not grow with the category. ORDER BY names the equality-bound namespace and category too
// (a no-op for the result): the planner only uses an index's order when ORDER BY starts at
// its first property. The IS NOT NULL predicates let it seek on all four properties. A
// single lookup passes one category; batch ingest passes every category of its batch.
//
// Parameters: $namespace (string), $categories (list<string>, distinct), $limit (int),
//   $exclude_id (string; '' excludes nothing).
// Returns: up to $limit rows {category, id} per category, newest first.
UNWIND $categories AS category
CALL (category) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, category, created_at, id)
  WHERE m.namespace = $namespace AND m.category = category
    AND m.created_at IS NOT NULL AND m.id IS NOT NULL AND m.id <> $exclude_id
  RETURN m.id AS id
  ORDER BY m.namespace DESC, m.category DESC, m.created_at DESC, m.id DESC
  LIMIT $limit
}
RETURN category, id;
