"""The model the tests embed with: all-MiniLM-L6-v2, 384-d like the default e5-small-v2 at about half
its cost per text (6 layers, not 12). tests/conftest.py pins it for every path (fixtures, the CLI, child
processes) through GRAPHMEM_MODEL, so a store one test writes never meets the other model and the shared
Neo4j test database records one model; tests/embedding/test_embed_models.py runs e5-small-v2 and bge."""

TEST_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
