// category_counts.cypher: how many memories are in each category (router, every search).
//
// Reads the CategoryCount nodes that memory_upsert / memory_unindex keep in step (like
// TermDF): one unique-index seek per category instead of counting its members.
//
// Parameters: $namespace (string), $categories (list<string>, distinct).
// Returns: one row {category, count} per requested category (0 when it has no memory).
UNWIND $categories AS category
OPTIONAL MATCH (c:CategoryCount {namespace: $namespace, category: category})
  USING INDEX SEEK c:CategoryCount(namespace, category)
RETURN category, coalesce(c.n, 0) AS count;
