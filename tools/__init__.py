"""Project tools that are not benchmarks: generators of the docs site's pages from saved results and code.

Run them as modules from the repository root, e.g. ``python -m tools.docs_speed``.
"""
