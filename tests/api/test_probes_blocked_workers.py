"""The probes hold while every worker is blocked: ``run_server`` (waitress with
``graphmem.cli.http_guard``) in a real process, over a WSGI app whose ``/block`` holds its worker.
``/healthz`` is answered without a worker and ``/readyz`` on a probe thread, while an ordinary
request waits for a free worker (which shows the workers really were all taken)."""

from __future__ import annotations

import sys
import textwrap
import threading
import time

from harness.servers import call, child_env, free_port, process

APP = textwrap.dedent("""
    import sys, time
    from graphmem.cli.serve_cmd import run_server

    def app(environ, start_response):
        path = environ["PATH_INFO"]
        if path == "/block":
            time.sleep(4.0)
        body = ('{"path": "%s"}' % path).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    run_server(app, "127.0.0.1", int(sys.argv[1]), threads=2)
""")


def test_probes_answer_while_all_workers_block(tmp_path):
    port = free_port()
    script = tmp_path / "app.py"
    script.write_text(APP)
    with process([sys.executable, str(script), str(port)], port, child_env(), tmp_path / "app.log") as proc:
        blockers = [threading.Thread(target=call, args=(port, "GET", "/block")) for _ in range(2)]
        for thread in blockers:
            thread.start()
        time.sleep(0.5)                                  # both workers are now inside /block
        health = [call(port, "GET", "/healthz", timeout=5) for _ in range(5)]
        ready = call(port, "GET", "/readyz", timeout=5)
        blocked_meanwhile = all(thread.is_alive() for thread in blockers)   # both /block calls still held
        ordinary = call(port, "GET", "/other", timeout=10)
        for thread in blockers:
            thread.join()
        assert proc.poll() is None
    assert [h["status"] for h in health] == [200] * 5 and all(h["body"] == {"status": "ok"} for h in health)
    assert ready["status"] == 200 and ready["body"] == {"path": "/readyz"}, ready
    assert blocked_meanwhile, "a /block call ended before the probes were answered: no proof they need no worker"
    assert ordinary["status"] == 200 and ordinary["seconds"] > 2.0, ordinary   # waited for a worker

