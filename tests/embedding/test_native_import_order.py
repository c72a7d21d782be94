"""The embedded store and the embedder load in one process whichever comes first."""

import subprocess
import sys


def test_the_store_module_first_then_the_model_runtime_does_not_crash():
    code = "import graphmem.stores.sqlite.ann; import onnxruntime; print('ok')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
