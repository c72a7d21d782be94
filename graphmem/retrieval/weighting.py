"""Health and source weighting: bounded multipliers, never filters.

health multiplier = floor + (1 - floor) * health  (in [floor, 1])
source multiplier = source weight                 (0.9 .. 1.0 by default)
"""

from __future__ import annotations

from graphmem.model import Memory


def health_multiplier(mem: Memory, floor: float) -> float:
    return floor + (1.0 - floor) * max(0.0, min(1.0, mem.health))


def health_why(mem: Memory, floor: float) -> dict:
    return {"score": round(mem.health, 4), "multiplier": round(health_multiplier(mem, floor), 4),
            "penalties": [p.to_dict() for p in mem.health_reasons], "applied": True}


def source_multiplier(mem: Memory) -> float:
    return mem.source_weight


def source_why(mem: Memory) -> dict:
    return {"source": mem.source, "weight": round(mem.source_weight, 4), "applied": True}
