// vector_index_info.cypher: dimension and state of the memory_vector vector index.
// Parameters: none.
// Returns: zero rows or one row {dimension, state}.
SHOW VECTOR INDEXES YIELD name, options, state
WHERE name = 'memory_vector'
RETURN options.indexConfig.`vector.dimensions` AS dimension, state;
