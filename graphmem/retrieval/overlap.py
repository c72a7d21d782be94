"""Runs one step of a search beside the caller: full-text recall needs no query vector, so its
store round trips can proceed while the query is embedded (ONNX Runtime and both stores' drivers
release the GIL). Results and their order are the same as in turn; only the wall time changes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Overlap:
    """A small pool of workers. A step goes to an idle worker, or runs at once in the caller when
    none is idle (so a busy server never queues a search behind another's step)."""

    def __init__(self, workers: int) -> None:
        self.workers = max(workers, 0)
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="graphmem-recall") if workers > 0 else None
        self._idle = threading.Semaphore(max(workers, 0))

    def start(self, step: Callable[[], T]) -> Callable[[], T]:
        """Begins ``step``; the returned call waits for its result (or raises its error)."""
        if self._pool is None or not self._idle.acquire(blocking=False):
            result = step()
            return lambda: result
        try:
            future = self._pool.submit(self._run, step)
        except RuntimeError:            # shut down meanwhile: run it here
            self._idle.release()
            result = step()
            return lambda: result
        return future.result

    def _run(self, step: Callable[[], T]) -> T:
        try:
            return step()
        finally:
            self._idle.release()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
