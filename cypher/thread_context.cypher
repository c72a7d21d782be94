// thread_context.cypher: for each position in a thread, the memories just before and just after it.
//
// Per key, two seeks of memory_thread_order (namespace, thread, thread_pos), one backwards and
// one forwards, each stopping after $before / $after rows: the cost follows the window, not the
// thread's length. thread_pos is model.thread_position (string order = thread order). ORDER BY
// names the equality-bound namespace and thread so the planner reads in index order. OPTIONAL: a key
// with nothing on one side (a thread's first or last position) still gets its row, with [] there.
//
// Parameters: $namespace (string), $keys (list<map {thread, pos}>), $before (int), $after (int).
// Returns: one row per key, in input order: {i, before: [id, nearest first], after: [id, nearest first]}.
UNWIND range(0, size($keys) - 1) AS i
WITH i, $keys[i] AS key
OPTIONAL CALL (key) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, thread, thread_pos)
  WHERE m.namespace = $namespace AND m.thread = key.thread AND m.thread_pos < key.pos
  RETURN m.id AS id
  ORDER BY m.namespace DESC, m.thread DESC, m.thread_pos DESC
  LIMIT $before
}
WITH i, key, collect(id) AS before
OPTIONAL CALL (key) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, thread, thread_pos)
  WHERE m.namespace = $namespace AND m.thread = key.thread AND m.thread_pos > key.pos
  RETURN m.id AS id
  ORDER BY m.namespace, m.thread, m.thread_pos
  LIMIT $after
}
RETURN i, before, collect(id) AS after
ORDER BY i;
