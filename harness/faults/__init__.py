"""Fault scenarios on real processes: a soak of mixed traffic, a hung and a stopped Neo4j, slow
clients, and two processes racing on one store (embedded and Neo4j).
"""
