// meta_get.cypher: the embedding model recorded when the database was first used.
// Parameters: none.
// Returns: zero rows (fresh database) or one row {model_id, dimension}.
MATCH (meta:Meta {key: 'graphmem'})
RETURN meta.model_id AS model_id, meta.dimension AS dimension;
