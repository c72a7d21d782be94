// tag_counts.cypher: how many memories carry each tag (tag rarity, router).
// Parameters: $namespace (string), $tags (list<string>, distinct).
// Returns: one row {tag, count} per requested tag (0 when no memory carries it).
UNWIND $tags AS tag
OPTIONAL MATCH (t:Tag {namespace: $namespace, name: tag})
RETURN tag, COUNT { (t)<-[:TAGGED]-(:Memory) } AS count;
