"""Build hook: the wheel carries the top-level ``cypher/`` folder as ``graphmem/cypher``.

``cypher/`` stays at the repository root, where the README's layout puts it and where the Neo4j
Browser guide and the reviewers read it. An installed package has no repository root, so the build
copies the queries into the package; ``graphmem.stores.neo4j.queries.cypher_dir`` looks there
first. Everything else about the build is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CYPHER = Path(__file__).resolve().parent / "cypher"


class BuildPyWithCypher(build_py):
    def run(self) -> None:
        super().run()
        if not self.editable_mode:        # an editable install reads the checkout's cypher/
            shutil.copytree(CYPHER, Path(self.build_lib) / "graphmem" / "cypher", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithCypher})
