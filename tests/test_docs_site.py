"""The documentation site builds strictly, its generated references are current, and the README's
relative links point at files that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
            "NO_MKDOCS_2_WARNING": "1"}


def test_generated_references_are_current():
    proc = subprocess.run([sys.executable, "-m", "tools.docs_reference", "--check"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"run `python -m tools.docs_reference`:\n{proc.stdout}\n{proc.stderr}"


def test_mkdocs_builds_strict(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / "site" / "reference" / "config" / "index.html").exists()
    assert "graphmem search" in (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()


def test_readme_links_exist():
    text = (ROOT / "README.md").read_text()
    links = [target for target in re.findall(r"\]\(([^)#\s]+)[^)]*\)", text) if "://" not in target]
    assert links, "the README links into docs/"
    missing = [target for target in links if not (ROOT / target).exists()]
    assert not missing, missing


def test_no_page_speaks_of_the_tracker():
    """User-facing text describes the product, not how its work was organised."""
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")]
    offenders = [str(page.relative_to(ROOT)) for page in pages
                 if re.search(r"\b(issue \d+|this wave|waves?\b of work)", page.read_text(), re.I)]
    assert not offenders, offenders
