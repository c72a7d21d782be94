// Browser: walk a conversation - the memories of one thread in order, along their FOLLOWS edges.
//
// Renders as a chain (earlier -> later). Each FOLLOWS edge's reason names the thread. The thread
// is the `thread` field a memory was written with (chat imports: "chatgpt:<conversation id>", ...).
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'     // the thread's namespace
//   :param thread => 'session-1'      // the thread
//   :param limit => 50                // at most this many memories, from the start of the thread
MATCH (m:Memory {namespace: $namespace, thread: $thread})
WITH m ORDER BY m.thread_pos LIMIT $limit
WITH collect(m) AS turns
UNWIND turns AS m
OPTIONAL MATCH (m)-[f:FOLLOWS]->(next:Memory)
  WHERE next IN turns
RETURN turns, collect(f) AS follows;
