// category_counts.cypher: how many memories are in each category (router).
// Parameters: $namespace (string), $categories (list<string>, distinct).
// Returns: one row {category, count} per requested category.
UNWIND $categories AS category
RETURN category,
       COUNT { MATCH (m:Memory {category: category}) WHERE m.namespace = $namespace } AS count;
