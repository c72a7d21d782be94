// category_members.cypher: memories in a category, newest first (created_at desc, id desc).
// Parameters: $namespace (string), $category (string), $limit (int),
//   $exclude_id (string; '' excludes nothing).
// Returns: up to $limit rows {id}.
MATCH (m:Memory {category: $category})
WHERE m.namespace = $namespace AND m.id <> $exclude_id
RETURN m.id AS id
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit;
