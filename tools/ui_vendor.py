"""Copy the inspector's pinned JS libraries into ``graphmem/api/ui/vendor`` (``make ui-vendor``).

Reproducible: the version and sha512 integrity come from ``tools/ui-vendor/package-lock.json``;
``npm pack`` fetches that exact tarball (from npm's cache after ``npm ci``), its digest is checked
against the lock, and the dist file plus the licence are taken from the tarball. ``--check`` (no
network) verifies the committed files against ``SHA256SUMS``."""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "tools" / "ui-vendor" / "package-lock.json"
VENDOR = ROOT / "graphmem" / "api" / "ui" / "vendor"
# package -> (file in its tarball, name in vendor/)
FILES = {"cytoscape": [("package/dist/cytoscape.esm.min.mjs", "cytoscape.esm.min.mjs"),
                       ("package/LICENSE", "LICENSE.cytoscape")]}


def locked(name: str) -> tuple[str, str]:
    entry = json.loads(LOCK.read_text())["packages"][f"node_modules/{name}"]
    return entry["version"], entry["integrity"]


def locked_licence(name: str) -> str:
    """The licence npm's lock records for a vendored package (docs/inspector.md lists it)."""
    return str(json.loads(LOCK.read_text())["packages"][f"node_modules/{name}"].get("license", ""))


def sums_text() -> str:
    """SHA256SUMS as the vendored files are now (a missing file has no digest)."""
    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    return "".join(f"{digest(VENDOR / out)}  {out}\n" for files in FILES.values() for _, out in files)


def vendor() -> None:
    VENDOR.mkdir(parents=True, exist_ok=True)
    for name, files in FILES.items():
        version, integrity = locked(name)
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(["npm", "pack", f"{name}@{version}", "--json", "--pack-destination", tmp],
                                 cwd=LOCK.parent, check=True, capture_output=True, text=True).stdout
            tarball = Path(tmp) / json.loads(out)[0]["filename"]
            algo, _, want = integrity.partition("-")
            got = base64.b64encode(hashlib.new(algo, tarball.read_bytes()).digest()).decode()
            if got != want:
                sys.exit(f"{name}@{version}: tarball {algo} {got} is not the lock's {want}")
            with tarfile.open(tarball) as tar:
                for member, target in files:
                    data = tar.extractfile(member)
                    assert data is not None, member
                    (VENDOR / target).write_bytes(data.read())
        print(f"{name}@{version}: integrity ok, {len(files)} files")
    (VENDOR / "SHA256SUMS").write_text(sums_text())


def check() -> int:
    sums = VENDOR / "SHA256SUMS"
    want = sums.read_text() if sums.is_file() else ""
    if sums_text() != want:
        print("vendor files differ from SHA256SUMS: run `make ui-vendor`", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="verify the committed files, offline")
    if parser.parse_args().check:
        return check()
    vendor()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
