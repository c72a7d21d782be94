"""neo4j-local: run a real Neo4j (Community, embedded + Bolt) from Maven Central jars for graphmem's
local development and CI. No Docker; needs Maven and a JDK 21+. Standard library only.

    neo4j-local start [--data DIR] [--port N|0|auto] [--fresh]
    neo4j-local stop | status | env [--plain] | build | logs [N]

Only ``export GRAPHMEM_...=...`` lines go to stdout (start, env), so
``eval "$(docker/neo4j-local/neo4j-local start)"`` works; everything else goes to stderr.
The Java side (src/main/java/.../LocalNeo4j.java) writes its state file once the database
answers Cypher and Bolt is bound: that file is the readiness signal. See README.md here.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
SOURCES = HERE / "src" / "main" / "java"
MAIN_CLASS = "dev.graphmem.neo4jlocal.LocalNeo4j"
REQUIRED_JAVA = 21  # Neo4j 2025.x and later (CalVer)
JVM_FLAGS = ["-Xms256m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", "-Dlog4j2.disable.jmx=true",
             "-Dfile.encoding=UTF-8", "--enable-native-access=ALL-UNNAMED",
             "--add-modules=jdk.incubator.vector",  # Lucene's SIMD vector code
             *(f"--add-opens=java.base/{p}=ALL-UNNAMED"
               for p in ("java.nio", "java.io", "sun.nio.ch", "java.util.concurrent", "java.lang"))]


class LauncherError(Exception):
    pass


def log(msg: str) -> None:
    print(f"neo4j-local: {msg}", file=sys.stderr, flush=True)


def pom_version() -> str:
    """The Neo4j version: ``<neo4j.version>`` in pom.xml, the one place it is set."""
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    found = ET.parse(POM).getroot().find("m:properties/m:neo4j.version", ns)
    assert found is not None and found.text, "pom.xml has no <neo4j.version>"
    return found.text.strip()


class Paths:
    def __init__(self) -> None:
        cache_root = os.environ.get("GRAPHMEM_CACHE_DIR") or str(Path.home() / ".cache" / "graphmem")
        self.cache = Path(os.environ.get("NEO4J_LOCAL_CACHE_DIR") or Path(cache_root) / "neo4j-local")
        self.version = os.environ.get("NEO4J_LOCAL_VERSION") or pom_version()
        self.m2 = self.cache / "m2"
        self.build = self.cache / "build" / self.version
        self.run = Path(os.environ.get("NEO4J_LOCAL_RUN_DIR") or self.cache / "run")
        self.pid, self.state, self.log = self.run / "neo4j.pid", self.run / "neo4j.state", self.run / "neo4j.log"
        self.default_data = self.cache / "data"


# -- JDK ------------------------------------------------------------------------------------
def jdk_major(home: Path) -> int | None:
    """Major version of the JDK at ``home`` (it needs bin/javac), from its ``release`` file."""
    if not (home / "bin" / "javac").exists():
        return None
    with contextlib.suppress(OSError):
        found = re.search(r'^JAVA_VERSION="(?:1\.)?(\d+)', (home / "release").read_text(), re.M)
        if found:
            return int(found.group(1))
    return None


def find_jdk() -> Path:
    """NEO4J_LOCAL_JAVA_HOME (must fit), else the first JDK 21+ of JAVA_HOME, the javac on PATH,
    then the newest under the usual install directories."""
    forced = os.environ.get("NEO4J_LOCAL_JAVA_HOME")
    if forced:
        if (jdk_major(Path(forced)) or 0) < REQUIRED_JAVA:
            raise LauncherError(f"NEO4J_LOCAL_JAVA_HOME={forced} is not a JDK >= {REQUIRED_JAVA}")
        return Path(forced)
    javac = shutil.which("javac")
    candidates = [Path(p) for p in (os.environ.get("JAVA_HOME"),) if p]
    candidates += [Path(javac).resolve().parents[1]] if javac else []
    installed = [d for root in ("/usr/lib/jvm", "/usr/local/lib/jvm", "/opt/java") if Path(root).is_dir()
                 for d in Path(root).iterdir() if d.is_dir() and not d.is_symlink()]
    candidates += sorted(installed, key=lambda d: jdk_major(d) or 0, reverse=True)
    tried = []
    for home in candidates:
        major = jdk_major(home)
        tried.append(f"{home} ({major or '?'})")
        if (major or 0) >= REQUIRED_JAVA:
            return home
    raise LauncherError(f"Neo4j needs a JDK >= {REQUIRED_JAVA} (with javac); tried: {', '.join(tried) or 'none'}. "
                        "Install one (e.g. Temurin 21/25) or set NEO4J_LOCAL_JAVA_HOME.")


# -- build (cached) ---------------------------------------------------------------------------
def java_sources() -> list[Path]:
    return sorted(SOURCES.rglob("*.java"))


def build(paths: Paths, jdk: Path) -> str:
    """Resolves the jars once through Maven into the cache and compiles the main class; returns
    the classpath. Skipped when the stamp (version, JDK major, POM, sources) matches. Locked:
    instances with other run dirs share the cache."""
    paths.build.mkdir(parents=True, exist_ok=True)
    with (paths.build / "lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        return _build(paths, jdk)


def _build(paths: Paths, jdk: Path) -> str:
    digest = hashlib.sha256(f"{paths.version} {jdk_major(jdk)}".encode() + POM.read_bytes()
                            + b"".join(p.read_bytes() for p in java_sources())).hexdigest()[:16]
    stamp, cp_file, classes = paths.build / "stamp", paths.build / "classpath.txt", paths.build / "classes"

    def complete() -> bool:
        jars = cp_file.read_text().strip().split(":") if cp_file.exists() else []
        return len(jars) > 10 and all(Path(j).is_file() for j in jars)

    if stamp.exists() and stamp.read_text() == digest and complete() and classes.is_dir():
        return f"{classes}:{cp_file.read_text().strip()}"
    if not shutil.which("mvn"):
        raise LauncherError("Maven (mvn) is needed to fetch the Neo4j jars (apt-get install maven)")
    stamp.unlink(missing_ok=True)
    mvn = ["mvn", "-B", "-q", "-f", str(POM), f"-Dmaven.repo.local={paths.m2}", f"-Dneo4j.version={paths.version}",
           "-Dstyle.color=never", f"-Dmdep.outputFile={cp_file}", "dependency:build-classpath"]
    mvn_log = paths.build / "mvn.log"
    offline = (paths.m2 / "org" / "neo4j").is_dir() and _run([mvn[0], "-o", *mvn[1:]], mvn_log) and complete()
    if not offline:
        log(f"resolving Neo4j {paths.version} jars from Maven Central into {paths.m2} ...")
        if not _run(mvn, mvn_log) or not complete():
            sys.stderr.write("".join(mvn_log.read_text().splitlines(keepends=True)[-40:]))
            raise LauncherError(f"Maven could not resolve org.neo4j:neo4j:{paths.version} (log: {mvn_log})")
    log(f"compiling the launcher with {jdk}/bin/javac ...")
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    javac = [str(jdk / "bin" / "javac"), "-nowarn", "-encoding", "UTF-8", "-d", str(classes),
             "-cp", cp_file.read_text().strip(), *map(str, java_sources())]
    if subprocess.run(javac, stdout=sys.stderr).returncode != 0:
        raise LauncherError("javac failed")
    stamp.write_text(digest)
    return f"{classes}:{cp_file.read_text().strip()}"


def _run(cmd: list[str], log_file: Path) -> bool:
    with log_file.open("w") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode == 0


# -- process state ----------------------------------------------------------------------------
def read_state(paths: Paths) -> dict[str, str]:
    with contextlib.suppress(OSError):
        return dict(line.split("=", 1) for line in paths.state.read_text().splitlines() if "=" in line)
    return {}


def running_pid(paths: Paths) -> int | None:
    """Our server's pid, or None (guards against a recycled pid and a reaped zombie)."""
    with contextlib.suppress(OSError, ValueError):
        pid = int(paths.pid.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if MAIN_CLASS in cmdline and status not in ("Z", "X"):
            return pid
    return None


@contextlib.contextmanager
def locked(paths: Paths):
    paths.run.mkdir(parents=True, exist_ok=True)
    with (paths.run / "lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def env_line(state: dict[str, str], plain: bool = False) -> str:
    return f"{'' if plain else 'export '}GRAPHMEM_NEO4J_URI={state['uri']}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


# -- commands ---------------------------------------------------------------------------------
def start(paths: Paths, data: str | None, port: str, fresh: bool) -> int:
    if port not in ("auto", "default") and not port.isdigit():
        raise LauncherError("--port must be a number, 0 or auto")
    port = "auto" if port == "0" else port
    data_dir = Path(data or paths.default_data).resolve()
    with locked(paths):
        pid = running_pid(paths)
        if pid:
            state = read_state(paths)
            if state.get("data") and state["data"] != str(data_dir):
                raise LauncherError(f"already running (pid {pid}) with data dir {state['data']}; stop it first")
            if fresh or (port.isdigit() and port != state.get("port")):
                raise LauncherError(f"already running (pid {pid}) on port {state.get('port')}; stop it first")
            log(f"already running (pid {pid}): {state.get('uri')}")
            print(env_line(state))
            return 0
        paths.pid.unlink(missing_ok=True)
        paths.state.unlink(missing_ok=True)
        if port == "default":   # graphmem's default neo4j_uri when free, else any free port
            port = "7687" if port_free(7687) else "auto"
        if port == "auto":      # chosen here so the server can advertise it in routing tables
            port = str(free_port())
        jdk = find_jdk()
        classpath = build(paths, jdk)
        if fresh and data_dir.exists():
            log(f"--fresh: wiping {data_dir}")
            shutil.rmtree(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        heap = os.environ.get("NEO4J_LOCAL_HEAP", "1g")
        args = ["--data", str(data_dir), "--port", port, "--state", str(paths.state)]
        if os.environ.get("NEO4J_LOCAL_CONF"):
            args += ["--conf", str(Path(os.environ["NEO4J_LOCAL_CONF"]).resolve())]
        flags = [*JVM_FLAGS, f"-Xmx{heap}"] + (["--sun-misc-unsafe-memory-access=allow"]
                                                if (jdk_major(jdk) or 0) >= 23 else [])
        log(f"starting Neo4j {paths.version} (JDK {jdk_major(jdk)}: {jdk}, heap {heap}, data {data_dir}, "
            f"log {paths.log})")
        t0 = time.monotonic()
        with paths.log.open("w") as out:   # own session: the caller's Ctrl-C does not reach it
            proc = subprocess.Popen([str(jdk / "bin" / "java"), *flags, "-cp", classpath, MAIN_CLASS, *args],
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        paths.pid.write_text(str(proc.pid))
        deadline = t0 + float(os.environ.get("NEO4J_LOCAL_START_TIMEOUT", "120"))
        while not (state := read_state(paths)).get("uri"):
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.stderr.write("".join(paths.log.read_text().splitlines(keepends=True)[-60:]))
                if proc.poll() is None:
                    proc.terminate()
                paths.pid.unlink(missing_ok=True)
                raise LauncherError("Neo4j exited during startup" if proc.poll() is not None
                                    else "Neo4j did not become ready in time (sent SIGTERM)")
            time.sleep(0.25)
        log(f"Neo4j {state.get('neo4j_version')} ready in {time.monotonic() - t0:.0f}s: {state['uri']} "
            f"(pid {proc.pid}, auth disabled: any or no credentials)")
        print(env_line(state))
        return 0


def stop(paths: Paths) -> int:
    with locked(paths):
        pid = running_pid(paths)
        if pid:
            timeout = float(os.environ.get("NEO4J_LOCAL_STOP_TIMEOUT", "60"))
            log(f"stopping pid {pid} (SIGTERM, up to {timeout:.0f}s)")
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while running_pid(paths) and time.monotonic() < deadline:
                time.sleep(0.2)
            if running_pid(paths):
                log(f"still alive after {timeout:.0f}s; SIGKILL")
                os.kill(pid, signal.SIGKILL)
            log("stopped")
        else:
            log("not running")
        paths.pid.unlink(missing_ok=True)
        paths.state.unlink(missing_ok=True)
        return 0


def status(paths: Paths) -> int:
    pid, state = running_pid(paths), read_state(paths)
    if not pid:
        print(f"neo4j-local: not running (cache {paths.cache})")
        return 3
    if not state.get("uri"):
        print(f"neo4j-local: process {pid} alive but not ready (starting, or unhealthy; see {paths.log})")
        return 4
    print(f"neo4j-local: running pid={pid} uri={state['uri']} neo4j={state.get('neo4j_version')} "
          f"java={state.get('java_version')} data={state.get('data')}")
    return 0


def serve_browser(paths: Paths, port: int) -> int:
    """Neo4j Browser for the running server (browser.py), until Ctrl-C."""
    import browser

    state = read_state(paths)
    if not running_pid(paths) or not state.get("uri"):
        raise LauncherError("not running; start it with: docker/neo4j-local/neo4j-local start")
    root = browser.fetch(paths.m2, paths.cache)
    server = browser.serve(root, port if port and port_free(port) else 0)
    print(browser.instructions(server.server_address[1], state["uri"]), flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    server.server_close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="neo4j-local", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_start = sub.add_parser("start", help="build if needed, start in the background, print the export line")
    p_start.add_argument("--data")
    p_start.add_argument("--port", default=os.environ.get("NEO4J_LOCAL_PORT", "default"))
    p_start.add_argument("--fresh", action="store_true", help="wipe the data dir first")
    sub.add_parser("stop", help="SIGTERM, wait, SIGKILL after NEO4J_LOCAL_STOP_TIMEOUT")
    sub.add_parser("status", help="exit 0 running, 3 stopped, 4 not ready")
    p_env = sub.add_parser("env", help="the export line of the running instance")
    p_env.add_argument("--plain", action="store_true")
    sub.add_parser("build", help="only resolve the jars and compile (warm a cache)")
    p_browser = sub.add_parser("browser", help="serve Neo4j Browser for the running server (Ctrl-C stops)")
    p_browser.add_argument("--port", type=int, default=int(os.environ.get("NEO4J_LOCAL_BROWSER_PORT", "7474")))
    p_logs = sub.add_parser("logs", help="last N lines of the server log")
    p_logs.add_argument("n", nargs="?", type=int, default=100)
    args = parser.parse_args(argv)
    paths = Paths()
    try:
        if args.command == "start":
            return start(paths, args.data, args.port, args.fresh)
        if args.command == "stop":
            return stop(paths)
        if args.command == "status":
            return status(paths)
        if args.command == "env":
            if not running_pid(paths) or not read_state(paths).get("uri"):
                raise LauncherError("not running; start it with: docker/neo4j-local/neo4j-local start")
            print(env_line(read_state(paths), args.plain))
            return 0
        if args.command == "build":
            jdk = find_jdk()
            build(paths, jdk)
            log(f"Neo4j {paths.version}, JDK {jdk_major(jdk)} at {jdk}, cache {paths.cache}")
            return 0
        if args.command == "browser":
            return serve_browser(paths, args.port)
        sys.stderr.write("".join(paths.log.read_text().splitlines(keepends=True)[-args.n:]))
        return 0
    except LauncherError as exc:
        log(f"ERROR: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
