// Browser: an entity's memories. Every memory that mentions an entity, newest first, with the
// span it mentions it by (the MENTIONS link's quote); the graph view shows the Entity node with
// its memories around it. An entity's key is lower case with plurals and possessives folded,
// as the inspector (/ui) lists it under a memory ("dog", "agility class", "audrey").
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'
//   :param entity => 'dog'
//   :param limit => 100
MATCH (e:Entity {namespace: $namespace, key: $entity})<-[r:MENTIONS]-(m:Memory)
RETURN e, r, m, m.id AS id, r.quote AS quote, r.created_at AS created_at, m.content AS content
ORDER BY r.created_at DESC, m.id DESC
LIMIT $limit;
