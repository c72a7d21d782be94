// Browser: the weakest memories by health, with the reasons (penalties) behind the score.
//
// health is in [0, 1] (1 = no penalty); health_reasons is a JSON list of
// {rule, penalty, detail}; source_weight is the trust in the memory's source.
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'
//   :param limit => 25
MATCH (m:Memory)
WHERE m.namespace = $namespace
RETURN m.id AS id,
       m.health AS health,
       m.health_reasons AS health_reasons,
       m.source AS source,
       m.source_weight AS source_weight,
       m.created_at AS created_at,
       left(m.content, 120) AS content
ORDER BY health ASC, id ASC
LIMIT $limit;
