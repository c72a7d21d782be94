"""graphmem: a graph memory service for AI agents.

Retrieval returns the matching memory *and* the related skill, config note or rule
that lives in another record, through a small deterministic and explainable layer
after the first search.
"""

__version__ = "0.1.0"
