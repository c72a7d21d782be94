// Browser: hub memories - the memories with the most relation edges, per type.
//
// graphmem caps each memory's degree per edge type (edges.max_degree_* in the config); a
// memory sitting at the cap for a type is listed in at_cap_types (caps passed in $caps).
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'
//   :param limit => 25
//   :param caps => {SHARES_TAG: 12, SAME_CATEGORY: 8, OVERLAPS: 8, RELATED: 32}
MATCH (m:Memory)
WHERE m.namespace = $namespace
WITH m,
     COUNT { (m)-[:SHARES_TAG]-(:Memory) } AS shares_tag,
     COUNT { (m)-[:SAME_CATEGORY]-(:Memory) } AS same_category,
     COUNT { (m)-[:OVERLAPS]-(:Memory) } AS overlaps,
     COUNT { (m)-[:RELATED]-(:Memory) } AS related
WITH m, shares_tag, same_category, overlaps, related,
     shares_tag + same_category + overlaps + related AS degree,
     {SHARES_TAG: shares_tag, SAME_CATEGORY: same_category, OVERLAPS: overlaps, RELATED: related} AS per_type
WHERE degree > 0
RETURN m.id AS id,
       degree,
       per_type,
       COLLECT { UNWIND keys($caps) AS t WITH t WHERE per_type[t] >= $caps[t] RETURN t ORDER BY t }
         AS at_cap_types,
       left(m.content, 80) AS content
ORDER BY degree DESC, id ASC
LIMIT $limit;
