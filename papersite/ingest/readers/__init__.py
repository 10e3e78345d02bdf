"""One reader per source format: each turns a source's text into RawRecords (ingest/records.py), reporting a bad record as path:line and reading on."""
