// entity_counts.cypher: how many memories mention each entity (its frequency, which weighs it down).
// Parameters: $namespace (string), $entities (list<string>, distinct).
// Returns: one row {entity, count} per requested entity (0 when no memory mentions it).
// The Entity node's stored relationship count (getDegree): O(1), not O(mentions).
UNWIND $entities AS entity
OPTIONAL MATCH (e:Entity {namespace: $namespace, key: entity}) USING INDEX SEEK e:Entity(namespace, key)
RETURN entity, COUNT { (e)<-[:MENTIONS]-() } AS count;
