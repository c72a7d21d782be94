"""The recall overlap helper: a step runs on an idle worker, inline when none is idle or there are
no workers, and its error reaches the caller."""

from __future__ import annotations

import threading

import pytest

from graphmem.retrieval.overlap import Overlap


def test_a_step_runs_on_a_worker_beside_the_caller():
    overlap = Overlap(1)
    started, release = threading.Event(), threading.Event()

    def step():
        started.set()
        release.wait(5)
        return threading.get_ident()

    result = overlap.start(step)
    assert started.wait(5)           # running already, while the caller goes on
    release.set()
    assert result() != threading.get_ident()
    overlap.close()


def test_no_idle_worker_means_the_step_runs_in_the_caller():
    overlap = Overlap(1)
    release = threading.Event()
    busy = overlap.start(lambda: release.wait(5))
    assert overlap.start(threading.get_ident)() == threading.get_ident()
    release.set()
    assert busy() is True
    assert overlap.start(threading.get_ident)() != threading.get_ident()   # the worker is idle again
    overlap.close()


def test_zero_workers_run_in_turn():
    overlap = Overlap(0)
    assert overlap.start(threading.get_ident)() == threading.get_ident()


def test_a_failing_step_raises_in_the_caller_and_frees_its_worker():
    overlap = Overlap(1)

    def fail():
        raise ValueError("store down")

    result = overlap.start(fail)
    with pytest.raises(ValueError, match="store down"):
        result()
    assert overlap.start(threading.get_ident)() != threading.get_ident()
    overlap.close()
