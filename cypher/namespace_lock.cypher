// namespace_lock.cypher: take the write lock of namespaces for the rest of the transaction.
//
// Every write transaction of a namespace runs this first, and so does a write session
// (Neo4jStore.write_session: an ingest's duplicate check, linking reads and save in one
// transaction) before its first read. Setting a property takes the node's exclusive lock, held
// until the transaction ends, so writers of one namespace take turns across every process on the
// database, as SQLite's BEGIN IMMEDIATE makes them take turns on a data dir. A context-window
// namespace ("~window:<ns>") is guarded by its user namespace's lock (the caller maps it). The
// node is merged under the namespace_lock_key constraint, so two first writers make one node.
// Locks are taken in the order given (sorted by the caller), so two transactions never wait on
// each other in a cycle.
//
// Parameters: $namespaces (list<string>, distinct, sorted).
// Returns: nothing.
UNWIND $namespaces AS ns
MERGE (l:NamespaceLock {namespace: ns})
SET l.at = timestamp();
