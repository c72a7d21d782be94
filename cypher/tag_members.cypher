// tag_members.cypher: memories carrying a tag, newest first (created_at desc, id desc).
// Parameters: $namespace (string), $tag (string), $limit (int),
//   $exclude_id (string; '' excludes nothing).
// Returns: up to $limit rows {id}.
MATCH (:Tag {namespace: $namespace, name: $tag})<-[:TAGGED]-(m:Memory)
WHERE m.id <> $exclude_id
RETURN m.id AS id
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit;
