"""Incremental builds: the cache on disk, input digests, and the reuse of the previous output. Stages never import it."""
