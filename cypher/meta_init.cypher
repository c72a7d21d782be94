// meta_init.cypher: record model id and dimension on first use; never overwrite them.
// Parameters: $model_id (string), $dimension (int).
// Returns: the stored {model_id, dimension} (the existing ones if already recorded).
MERGE (meta:Meta {key: 'graphmem'})
  ON CREATE SET meta.model_id = $model_id, meta.dimension = $dimension
RETURN meta.model_id AS model_id, meta.dimension AS dimension;
