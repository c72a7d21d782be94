// health_update.cypher: batch rescoring of health, its reasons and the source weight.
// Parameters: $namespace (string),
//   $updates (list<map {id, health: float, health_reasons: JSON string, source_weight: float}>).
// Returns: nothing (ids that do not exist are ignored).
UNWIND $updates AS u
MATCH (m:Memory {namespace: $namespace, id: u.id}) USING INDEX SEEK m:Memory(namespace, id)
SET m.health = u.health,
    m.health_reasons = u.health_reasons,
    m.source_weight = u.source_weight;
