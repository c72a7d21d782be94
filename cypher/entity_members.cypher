// entity_members.cypher: for each entity, the memories mentioning it, newest first (created_at
// desc, id desc): the multi-hop stage's bounded read (retrieval/multihop.py).
//
// Per entity, one backwards seek of the relationship index mentions_order (namespace, entity,
// created_at, memory_id) over the MENTIONS links, stopping after $limit rows (the cost does not
// grow with how many memories mention it). ORDER BY names the equality-bound keys so the planner
// uses the index's order (as tag_members.cypher does).
//
// Parameters: $namespace (string), $entities (list<string>, distinct), $limit (int).
// Returns: up to $limit rows {entity, id} per entity, in entity order then newest first.
UNWIND $entities AS entity
CALL (entity) {
  MATCH ()-[r:MENTIONS]->()
  USING INDEX SEEK r:MENTIONS(namespace, entity, created_at, memory_id)
  WHERE r.namespace = $namespace AND r.entity = entity
    AND r.created_at IS NOT NULL AND r.memory_id IS NOT NULL
  RETURN r.memory_id AS id
  ORDER BY r.namespace DESC, r.entity DESC, r.created_at DESC, r.memory_id DESC
  LIMIT $limit
}
RETURN entity, id;
