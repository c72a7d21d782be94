"""A namespace's vector matrix saved beside its approximate index, so a new process reads one file
instead of every vector row of the database (at a million memories, 7-9 s of SQLite reads).

``<index base>.matrix.npz``: the rows in their precision, the ids in row order, the validity
columns, the ``vector_log`` sequence they reflect and the database they came from
(``meta.lexical_source``). One uncompressed zip, written to a temporary name and renamed, so a
reader never pairs one save's rows with another's ids; its CRC is checked as the rows are read.
A process uses it only when it is from this database and the change log still holds every change
after its sequence; those are replayed from SQLite (re-reads of the current rows), as the index's
are. Anything else, or any read error, falls back to reading the table.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

FORMAT = 1
READ_BLOCK = 65536          # rows read into the matrix at a time
COLUMN_TYPES = (np.int64, np.int64, np.int64, np.bool_)     # validity_mask.ValidityColumns' arrays


@dataclass
class SavedMatrix:
    """A saved matrix's rows, read into ``matrix[:len(ids)]`` of a matrix with room to grow."""

    seq: int
    ids: list[str]
    matrix: np.ndarray
    start: np.ndarray
    until: np.ndarray
    expires: np.ndarray
    superseded: np.ndarray


def path_of(base: Path) -> Path:
    return base.with_name(base.name + ".matrix.npz")


def save(base: Path, source: str, seq: int, ids: list[str], matrix: np.ndarray,
         columns: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> None:
    """Write rows ``matrix`` (ids ``ids``) and their validity ``columns`` as of ``seq``, from the
    database ``source`` (the caller holds the namespace's lock: the rows do not move meanwhile)."""
    final = path_of(base)
    tmp = final.with_name(final.name + f".tmp{os.getpid()}")
    start, until, expires, superseded = columns
    try:
        with open(os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600), "wb") as fh:
            np.savez(fh, format=np.array(FORMAT), seq=np.array(seq), source=np.array(source),
                     ids=np.array(ids, dtype=np.str_), start=start, until=until, expires=expires,
                     superseded=superseded, matrix=matrix)
        os.replace(tmp, final)
    except OSError:
        tmp.unlink(missing_ok=True)     # a full disk leaves no partial file behind
        raise


def load(base: Path, source: str, dim: int, precision: Callable[[int], type[np.floating]],
         headroom: int) -> SavedMatrix | None:
    """The saved matrix of this database, or None (absent, unreadable, another database's or
    format, another width, or not in the precision ``precision(rows)`` gives). The rows are read
    into a matrix with ``1 / headroom`` more room, block by block, never held twice."""
    path = path_of(base)
    if not path.exists():
        return None
    try:
        with zipfile.ZipFile(path) as z:
            def small(name: str) -> np.ndarray:
                with z.open(f"{name}.npy") as fh:
                    return np.lib.format.read_array(fh, allow_pickle=False)

            if int(small("format")) != FORMAT or str(small("source")) != source:
                return None
            ids = small("ids").tolist()
            columns = [small(name) for name in ("start", "until", "expires", "superseded")]
            if [(c.dtype, c.shape) for c in columns] != [(np.dtype(t), (len(ids),)) for t in COLUMN_TYPES]:
                return None
            with z.open("matrix.npy") as fh:
                matrix = _read_rows(cast(io.BufferedIOBase, fh), len(ids), dim, precision(len(ids)), headroom)
            seq = int(small("seq"))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if matrix is None or len(set(ids)) != len(ids):
        return None
    return SavedMatrix(seq, ids, matrix, *columns)


def _read_rows(fh: io.BufferedIOBase, rows: int, dim: int, want: type[np.floating],
               headroom: int) -> np.ndarray | None:
    fmt = np.lib.format
    header = fmt.read_array_header_1_0 if fmt.read_magic(fh) == (1, 0) else fmt.read_array_header_2_0
    shape, fortran, dtype = header(fh)
    if fortran or shape != (rows, dim) or dtype != want:
        return None
    out = np.zeros((rows + rows // max(headroom, 1), dim), dtype=dtype)
    for first in range(0, rows, READ_BLOCK):
        block = out[first:min(rows, first + READ_BLOCK)].reshape(-1).view(np.uint8)
        if fh.readinto(block.data) != block.nbytes:
            raise EOFError("the saved matrix ends early")
    if fh.read(1):
        raise ValueError("the saved matrix is longer than its header says")
    return out
