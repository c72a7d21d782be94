"""Ingest: validation, health, source weight, evidence gate, linking, orchestration."""
