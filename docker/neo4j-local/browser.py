"""Neo4j Browser without Docker, beside the local server (standard library only).

The Browser's static app comes from Maven Central (org.neo4j.client:neo4j-browser, resolved once
into the launcher's cache) and is served here over HTTP; the page talks Bolt over WebSocket to the
local server's Bolt port (no HTTP connector needed). ``/graphmem-guide.html`` is a ``:play``
guide built from graphmem's saved queries (cypher/browser/*.cypher): each becomes a card with its
explanation, its ``:param`` lines and its query, all runnable.

    neo4j-local browser [--port N]      # after `neo4j-local start`; Ctrl-C stops serving
"""

from __future__ import annotations

import functools
import html
import subprocess
import sys
import zipfile
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BROWSER_VERSION = "5.24.0"
ARTIFACT = f"org.neo4j.client:neo4j-browser:{BROWSER_VERSION}"
GUIDE = "graphmem-guide.html"
QUERIES = Path(__file__).resolve().parents[2] / "cypher" / "browser"
CAPTIONS = ":style node.Memory { caption: '{id}'; } node.Tag { caption: '{name}'; }"  # grass syntax


def fetch(m2: Path, cache: Path) -> Path:
    """The Browser's files, unpacked once under ``cache`` (the jar is fetched into ``m2``)."""
    root = cache / "browser" / BROWSER_VERSION
    if (root / "index.html").is_file():
        return root
    jar = m2 / "org/neo4j/client/neo4j-browser" / BROWSER_VERSION / f"neo4j-browser-{BROWSER_VERSION}.jar"
    if not jar.is_file():
        print(f"neo4j-local: fetching {ARTIFACT} from Maven Central ...", file=sys.stderr)
        done = subprocess.run(["mvn", "-B", "-q", f"-Dmaven.repo.local={m2}", "dependency:get",
                               f"-Dartifact={ARTIFACT}", "-Dtransitive=false"], stdout=sys.stderr)
        if done.returncode != 0 or not jar.is_file():
            raise RuntimeError(f"Maven could not fetch {ARTIFACT}")
    staging = root.with_name(root.name + ".tmp")
    with zipfile.ZipFile(jar) as archive:
        members = [n for n in archive.namelist() if n.startswith("browser/") and not n.endswith("/")]
        for name in members:
            target = staging / name.removeprefix("browser/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
    staging.rename(root)
    return root


def _card(path: Path) -> str:
    """One guide slide: the file's comment header as prose, its :param lines and query runnable."""
    lines = path.read_text(encoding="utf-8").strip().removesuffix(";").splitlines()
    comments = [ln.removeprefix("//").strip() for ln in lines if ln.startswith("//")]
    query = "\n".join(ln for ln in lines if not ln.startswith("//")).strip()
    title = comments[0].removeprefix("Browser:").strip() if comments else path.stem
    params = [c.split("//")[0].strip() for c in comments if c.startswith(":param")]
    notes = [c for c in comments[1:] if c and not c.startswith(":param") and not c.startswith("Parameters")]
    param_help = [c for c in comments if c.startswith(":param") and "//" in c]
    runnable = "".join(f'<pre class="pre-scrollable code runnable">{html.escape(p)}</pre>' for p in params)
    helps = "".join(f"<li><code>{html.escape(h.split('//')[0].strip())}</code>: {html.escape(h.split('//', 1)[1])}"
                    "</li>" for h in param_help)
    return (f'<slide class="row-fluid"><div class="col-sm-12"><h3>{html.escape(title)}</h3>'
            f"<p>{html.escape(' '.join(notes))}</p>"
            f"<p>Parameters (run these first, edit the values):</p>{runnable}<ul>{helps}</ul>"
            f'<p>The query (<code>cypher/browser/{path.name}</code>):</p>'
            f'<pre class="pre-scrollable code runnable">{html.escape(query)}</pre></div></slide>')


def guide_html() -> str:
    intro = ('<slide class="row-fluid"><div class="col-sm-12"><h3>graphmem: saved queries</h3>'
             "<p>Memories are <code>:Memory</code> nodes keyed by namespace and id; relation edges "
             "(SHARES_TAG, SAME_CATEGORY, OVERLAPS, RELATED) carry a <code>weight</code> and a JSON "
             "<code>reason</code>. Each next slide is one saved query with its parameters. Run this "
             "first so nodes show their ids:</p>"
             f'<pre class="pre-scrollable code runnable">{html.escape(CAPTIONS)}</pre></div></slide>')
    cards = "".join(_card(p) for p in sorted(QUERIES.glob("*.cypher")))
    return f'<article class="guide carousel"><div class="carousel-inner">{intro}{cards}</div></article>'


class _Handler(SimpleHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.split("?")[0] == f"/{GUIDE}":
            body = guide_html().encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's signature)
        return


def serve(root: Path, port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server for the Browser's files and the guide on 127.0.0.1 (call serve_forever)."""
    return ThreadingHTTPServer(("127.0.0.1", port), functools.partial(_Handler, directory=str(root)))


def page_url(http_port: int, bolt_uri: str) -> str:
    """The Browser's address for the local server. Browser 5.24 reads ``connectURL`` (the server)
    and ``preselectAuthMethod`` (the connect form's authentication type): with ``NO_AUTH`` the form
    opens on "No authentication" and connects at once, as the local server runs without auth."""
    bolt = bolt_uri.replace("127.0.0.1", "localhost")
    return f"http://localhost:{http_port}/?connectURL={bolt}&preselectAuthMethod=NO_AUTH"


def instructions(http_port: int, bolt_uri: str) -> str:
    bolt = bolt_uri.replace("127.0.0.1", "localhost")
    return (f"Neo4j Browser: {page_url(http_port, bolt_uri)}\n"
            f"  connects to {bolt} with 'No authentication' (preselected; the local server runs without auth)\n"
            f"  guide:   :play http://localhost:{http_port}/{GUIDE}  (graphmem's saved queries, runnable)\n"
            "  Ctrl-C stops serving the Browser (the Neo4j server keeps running).")
