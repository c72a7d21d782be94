# graphmem developer tasks. Keep targets small; add yours below.
NEO4J_LOCAL := docker/neo4j-local/neo4j-local

.PHONY: neo4j-start neo4j-stop neo4j-status

# Starts (or reuses) the local Neo4j; prints `export GRAPHMEM_NEO4J_URI=...`.
# make cannot export into your shell: run `eval "$$($(NEO4J_LOCAL) env)"` afterwards.
neo4j-start:
	@$(NEO4J_LOCAL) start

neo4j-stop:
	@$(NEO4J_LOCAL) stop

neo4j-status:
	@$(NEO4J_LOCAL) status
