// server_version.cypher: the Neo4j kernel version and edition (checked by ensure_schema).
// Parameters: none.
// Returns: one row {version: '2026.08.1' | '5.26.0' ..., edition: 'community' | 'enterprise'}.
CALL dbms.components() YIELD name, versions, edition
WHERE name = 'Neo4j Kernel'
RETURN versions[0] AS version, edition;
