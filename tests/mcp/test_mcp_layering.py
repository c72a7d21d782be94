"""The MCP server must not load the HTTP API (Flask) just to serve stdio: layers point one way."""

import subprocess
import sys


def test_importing_the_mcp_server_does_not_load_flask() -> None:
    code = ("import sys, graphmem.mcp.server, graphmem.mcp.http; "
            "print(sorted(m for m in sys.modules if m == 'flask' or m.startswith(('flask.', 'graphmem.api'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout
