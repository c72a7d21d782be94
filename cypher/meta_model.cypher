// meta_model.cypher: record the database's embedding model and reindex state (`graphmem reindex`).
// Parameters: $model_id (string), $dimension (int), $reindex (JSON string, '' when none).
// Returns: nothing.
MERGE (meta:Meta {key: 'graphmem'})
SET meta.model_id = $model_id, meta.dimension = $dimension, meta.reindex = $reindex;
