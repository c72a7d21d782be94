"""``python -m bench``: list the registered benchmarks; ``python -m bench NAME [args]``: run one."""

from __future__ import annotations

import difflib
import runpy
import sys

from bench.suite import REGISTRY, listing


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "list"):
        sys.stdout.write(listing())
        return 0
    name, args = argv[0], argv[1:]
    bench = REGISTRY.get(name)
    if bench is None:
        close = difflib.get_close_matches(name, REGISTRY, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        sys.stderr.write(f"no benchmark named {name!r}{hint}; `python -m bench` lists them\n")
        return 2
    sys.argv = [f"bench/{bench.module}.py", *args]
    runpy.run_module(f"bench.{bench.module}", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
