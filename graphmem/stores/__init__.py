"""Storage backends behind one contract (``base.MemoryStore``)."""
