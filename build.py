#!/usr/bin/env python3
"""papersite entry point: `python build.py [build|import|serve] --help`."""

import gc
import os
import sys

# One BLAS thread per process, before numpy is first imported: the build spreads its work over
# processes, and an OpenBLAS thread pool beside them only takes memory and, on a busy machine,
# spins (bench/README.md). The build also limits BLAS to one thread itself, for the order of
# its sums (pipeline.build).
for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(name, "1")

# Importing numpy, SciPy and Jinja makes hundreds of thousands of objects and few cycles: no
# point collecting while they arrive.
gc.disable()
try:
    from papersite.cli import main  # noqa: E402
except KeyboardInterrupt:
    # Ctrl-C while the libraries load: nothing has started, so nothing to say but that.
    print("build.py: interrupted; nothing was written", file=sys.stderr)
    os._exit(130)
gc.enable()

if __name__ == "__main__":
    # Exit without freeing the build's objects one by one (a large collection takes a while to
    # free): the build leaves them in `kept` rather than freeing them as its functions return,
    # and by then every file is written and closed; only the console buffers are left.
    kept: list = []
    code = main(keep=kept)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
