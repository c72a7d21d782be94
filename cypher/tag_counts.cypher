// tag_counts.cypher: how many memories carry each tag (tag rarity, router).
// Parameters: $namespace (string), $tags (list<string>, distinct).
// Returns: one row {tag, count} per requested tag (0 when no memory carries it).
// The pattern names no label on the far end so the planner reads the Tag node's stored
// relationship count (getDegree) instead of expanding every TAGGED edge: O(1), not O(df).
// Only Memory nodes have TAGGED relationships.
UNWIND $tags AS tag
OPTIONAL MATCH (t:Tag {namespace: $namespace, name: tag}) USING INDEX SEEK t:Tag(namespace, name)
RETURN tag, COUNT { (t)<-[:TAGGED]-() } AS count;
