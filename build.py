#!/usr/bin/env python3
"""papersite entry point: `python build.py [build|import|serve] --help`."""

import sys

from papersite.cli import main

if __name__ == "__main__":
    sys.exit(main())
