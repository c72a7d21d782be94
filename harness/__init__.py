"""What the tests and the benches share: free ports and real server processes (``servers``), the
synthetic corpus (``corpus``), the percentile rule (``stats``), the labelled supersession pairs
(``supersede_pairs``) and the fault scenarios (``faults``): each scenario is a function a test
asserts on with a short run and a bench saves the figures of with a long one.

It imports ``graphmem`` and never ``bench`` or ``tests`` (``lint-imports`` checks it)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
