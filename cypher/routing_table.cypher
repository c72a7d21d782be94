// routing_table.cypher: the servers the cluster routes this database to (server_info topology).
// Parameters: $database (the store's database name).
// Returns: one row per role {role: 'WRITE' | 'READ' | 'ROUTE', addresses: ['host:port', ...]}.
// A single server lists itself in every role; a cluster lists its leader under WRITE and its
// followers and read replicas under READ.
CALL dbms.routing.getRoutingTable({}, $database) YIELD servers
UNWIND servers AS server
RETURN server.role AS role, server.addresses AS addresses;
