// tags_prune.cypher: delete Tag nodes that no memory carries any more.
// Parameters: $namespace (string), $tags (list<string>) - the tags to check.
// Returns: nothing.
UNWIND $tags AS name
MATCH (t:Tag {namespace: $namespace, name: name})
WHERE NOT EXISTS { (t)<-[:TAGGED]-(:Memory) }
DELETE t;
