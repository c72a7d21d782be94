// meta_get.cypher: the embedding model recorded when the database was first used, and the
// data layout version (null before layout 2; see schema.cypher).
// Parameters: none.
// Returns: zero rows (fresh database) or one row {model_id, dimension, layout}.
MATCH (meta:Meta {key: 'graphmem'})
RETURN meta.model_id AS model_id, meta.dimension AS dimension, meta.layout AS layout;
