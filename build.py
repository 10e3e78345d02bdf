#!/usr/bin/env python3
"""papersite entry point: `python build.py [build|import|serve] --help`."""

import os
import sys

from papersite.cli import main

if __name__ == "__main__":
    code = main()
    # Exit without freeing the build's objects one by one (a third of a second after a
    # 5,000-paper build): every file is written and closed; only the console buffers are left.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
