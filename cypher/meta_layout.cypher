// meta_layout.cypher: record that the database's data layout is current (after migrations).
// Parameters: $layout (int) - graphmem.stores.neo4j.store.LAYOUT.
// Returns: nothing.
MATCH (meta:Meta {key: 'graphmem'})
SET meta.layout = $layout;
