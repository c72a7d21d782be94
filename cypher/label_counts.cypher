// label_counts.cypher: the router's lookup in one round trip, how many memories carry each tag
// and how many are in each category (every search). The two halves are tag_counts.cypher and
// category_counts.cypher (which ingest and `graphmem check` use alone); keep them in step.
//
// Parameters: $namespace (string), $tags (list<string>, distinct), $categories (list<string>, distinct).
// Returns: one row {tags: list<[tag, count]>, categories: list<[category, count]>}, a pair per
// requested label (count 0 when it has no memory). An empty list gives an empty list: an
// aggregation without grouping keys still returns its one row.
CALL (*) {
  UNWIND $tags AS tag
  OPTIONAL MATCH (t:Tag {namespace: $namespace, name: tag}) USING INDEX SEEK t:Tag(namespace, name)
  RETURN collect([tag, COUNT { (t)<-[:TAGGED]-() }]) AS tags
}
CALL (*) {
  UNWIND $categories AS category
  OPTIONAL MATCH (c:CategoryCount {namespace: $namespace, category: category})
    USING INDEX SEEK c:CategoryCount(namespace, category)
  RETURN collect([category, coalesce(c.n, 0)]) AS categories
}
RETURN tags, categories;
