// index_states.cypher: every index that is not ONLINE (graphmem check: a failed or still
// populating index makes vector or full-text recall miss memories without an error).
// Parameters: none.
// Returns: rows {name, state, type}.
SHOW INDEXES YIELD name, state, type
WHERE state <> 'ONLINE'
RETURN name, state, type
ORDER BY name;
