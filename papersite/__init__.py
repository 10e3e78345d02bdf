"""papersite: research-paper abstracts in, a static documentation-style reading site out."""

import os as _os

# One BLAS thread per process. The build spreads its work over processes (parallel.py); BLAS
# threads on top of them fight for the same cores, and on a busy machine OpenBLAS's spinning
# threads made the topic map's SVD 50x slower. One thread also fixes the summation order, so
# the map's coordinates never depend on the core count. Set before numpy is first imported.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
