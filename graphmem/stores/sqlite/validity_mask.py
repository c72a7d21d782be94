"""Validity in time beside the in-process vector matrix: one int64 (microseconds) per row for
``valid_start``, ``valid_until`` and ``expires_at``, one bool for ``superseded_by``, kept in the
matrix's row order, so ``as_of`` / ``current_only`` / expiry are a vector mask over the scores
instead of a SQL listing of the ids they keep (or drop).

A row's validity is written with its vector (every save rewrites the whole memory row, and the
vector log replays it in other processes), so the arrays change exactly when the rows do."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphmem.model import Memory, normalize_timestamp

NEVER = np.iinfo(np.int64).max          # no valid_until / expires_at
ALWAYS = np.iinfo(np.int64).min         # a row added without validity (benches): valid from the start

# (valid_start, valid_until, expires_at, superseded_by), the store's column values
RowValidity = tuple[str | None, str | None, str | None, str | None]
VALIDITY_COLUMNS = "valid_start, valid_until, expires_at, superseded_by"


def memory_validity(mem: Memory) -> RowValidity:
    return mem.effective_valid_from, mem.valid_until, mem.expires_at, mem.superseded_by


def micros(ts: str | None, missing: int) -> int:
    """A fixed-width UTC timestamp as microseconds since the epoch: the same order as the strings."""
    if ts is None:
        return missing
    try:
        return int(np.datetime64(ts.rstrip("Z"), "us").astype(np.int64))
    except ValueError:
        return int(np.datetime64(normalize_timestamp(ts).rstrip("Z"), "us").astype(np.int64))


def micros_many(values: tuple[str | None, ...], missing: int) -> np.ndarray:
    """``micros`` of many timestamps at once (NaT, from None, becomes ``missing``)."""
    try:
        out = np.array([v.rstrip("Z") if v is not None else "NaT" for v in values],
                       dtype="datetime64[us]").astype(np.int64)
    except ValueError:                  # a timestamp not in the fixed-width form: one by one
        return np.array([micros(v, missing) for v in values], dtype=np.int64)
    out[out == np.iinfo(np.int64).min] = missing
    return out


@dataclass(frozen=True)
class ValidityFilter:
    """What a search keeps: memories valid at ``as_of``, not superseded, not expired at ``now``
    (None: not asked)."""

    as_of: int | None = None
    current_only: bool = False
    now: int | None = None

    @classmethod
    def of(cls, as_of: str | None, current_only: bool, now_iso: str | None) -> ValidityFilter:
        return cls(None if as_of is None else micros(as_of, 0), current_only,
                   micros(now_iso, 0) if now_iso else None)

    def is_empty(self) -> bool:
        return self.as_of is None and not self.current_only and self.now is None


class ValidityColumns:
    """The arrays, grown and swap-removed in step with the matrix rows (the caller's lock held).

    A slot past the last row holds the defaults (valid always, never expiring, current), and two
    counts say how many rows expire and how many are superseded: a filter that can drop nothing
    (``drops_nothing``) is then answered without a pass over every row."""

    def __init__(self, capacity: int = 64):
        self.start = np.full(capacity, ALWAYS, dtype=np.int64)
        self.until = np.full(capacity, NEVER, dtype=np.int64)
        self.expires = np.full(capacity, NEVER, dtype=np.int64)
        self.superseded = np.zeros(capacity, dtype=bool)
        self.expiring = 0               # rows with an expires_at
        self.superseded_rows = 0        # rows with a superseded_by

    def reserve(self, capacity: int) -> None:
        if capacity <= len(self.start):
            return
        for name, fill in (("start", ALWAYS), ("until", NEVER), ("expires", NEVER), ("superseded", False)):
            old = getattr(self, name)
            grown = np.full(capacity, fill, dtype=old.dtype)
            grown[:len(old)] = old
            setattr(self, name, grown)

    @classmethod
    def from_saved(cls, n: int, capacity: int, *columns: np.ndarray) -> ValidityColumns:
        """Room for ``capacity`` rows, the first ``n`` from saved columns (start, until, expires,
        superseded), counted."""
        out = cls(capacity)
        out.start[:n], out.until[:n], out.expires[:n], out.superseded[:n] = columns
        out._count(slice(0, n), 1)
        return out

    def saved(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The first ``n`` rows' columns, as ``from_saved`` takes them."""
        return self.start[:n], self.until[:n], self.expires[:n], self.superseded[:n]

    def _count(self, rows: int | slice, sign: int) -> None:
        self.expiring += sign * int(np.count_nonzero(self.expires[rows] != NEVER))
        self.superseded_rows += sign * int(np.count_nonzero(self.superseded[rows]))

    def set(self, row: int, validity: RowValidity | None) -> None:
        start, until, expires, superseded_by = validity or (None, None, None, None)
        self._count(row, -1)
        self.start[row] = micros(start, ALWAYS)
        self.until[row] = micros(until, NEVER)
        self.expires[row] = micros(expires, NEVER)
        self.superseded[row] = superseded_by is not None
        self._count(row, 1)

    def set_many(self, first: int, validity: list[RowValidity] | None, count: int) -> None:
        """Rows ``first..first+count`` (a bulk load): one vectorised parse per column."""
        rows = slice(first, first + count)
        self._count(rows, -1)
        try:
            self._set_many(rows, validity)
        finally:
            self._count(rows, 1)

    def _set_many(self, rows: slice, validity: list[RowValidity] | None) -> None:
        if validity is None:
            self.start[rows], self.until[rows], self.expires[rows] = ALWAYS, NEVER, NEVER
            self.superseded[rows] = False
            return
        starts, untils, expiries, superseded = zip(*validity, strict=True) if validity else ((), (), (), ())
        self.start[rows] = micros_many(starts, ALWAYS)
        self.until[rows] = micros_many(untils, NEVER)
        self.expires[rows] = micros_many(expiries, NEVER)
        self.superseded[rows] = [s is not None for s in superseded]

    def move(self, source: int, target: int) -> None:
        """The row at ``source`` now lives at ``target`` (whose row is gone); ``source`` is vacated."""
        self._count(target, -1)
        for arr in (self.start, self.until, self.expires, self.superseded):
            arr[target] = arr[source]
        self._reset(source)

    def vacate(self, row: int) -> None:
        """The row is gone (the last one, removed): its slot back to the defaults."""
        self._count(row, -1)
        self._reset(row)

    def _reset(self, row: int) -> None:
        self.start[row], self.until[row], self.expires[row], self.superseded[row] = ALWAYS, NEVER, NEVER, False

    def drops_nothing(self, flt: ValidityFilter) -> bool:
        """Whether ``flt`` keeps every row, known from the counts alone (``as_of`` always needs the pass)."""
        return (flt.as_of is None and (flt.now is None or not self.expiring)
                and (not flt.current_only or not self.superseded_rows))

    def mask(self, flt: ValidityFilter, n: int) -> np.ndarray:
        """True for the first ``n`` rows the filter keeps (``MemoryFilter.matches`` for these fields)."""
        return self._keep(flt, slice(0, n), n)

    def mask_at(self, flt: ValidityFilter, rows: np.ndarray) -> np.ndarray:
        """The same for the given rows, in their order."""
        return self._keep(flt, rows, len(rows))

    def _keep(self, flt: ValidityFilter, rows: slice | np.ndarray, n: int) -> np.ndarray:
        keep = np.ones(n, dtype=bool)
        if flt.now is not None:
            keep &= self.expires[rows] > flt.now
        if flt.current_only:
            keep &= ~self.superseded[rows]
        if flt.as_of is not None:
            keep &= (self.start[rows] <= flt.as_of) & (self.until[rows] > flt.as_of)
        return keep
