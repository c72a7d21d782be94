// meta_get.cypher: the embedding model recorded when the database was first used, the state
// of an unfinished `graphmem reindex` (JSON string, null or '' when none) and the data layout
// version (null before layout 2; see schema.cypher).
// Parameters: none.
// Returns: zero rows (fresh database) or one row {model_id, dimension, reindex, layout}.
MATCH (meta:Meta {key: 'graphmem'})
RETURN meta.model_id AS model_id, meta.dimension AS dimension, meta.reindex AS reindex, meta.layout AS layout;
