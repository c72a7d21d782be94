"""A wall-clock alarm around a call that must end: a walk that loops forever fails the test instead of
blocking the run (the alarm interrupts pure-Python loops in the main thread)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

HANG_SECONDS = 20


class Hung(Exception):
    """The call did not finish within the alarm: a hang, not a refusal."""


@contextmanager
def no_hang(seconds: float = HANG_SECONDS) -> Iterator[None]:
    def fire(_signum: int, _frame: Any) -> None:
        raise Hung(f"the import ran past {seconds} s (a hang)")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
