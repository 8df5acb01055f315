"""The boundary layer: every file in and out goes through here.

Readers take Arrow record batches from Parquet, JSONL and CSV files, check each file kind once (schema:
dtypes, nulls, ranges, finite values; meaning: boards, layouts, certificates, unique keys) and hand the
domain layer NumPy arrays and Arrow columns. Every problem is an ``InputError`` whose message names the
file, the row or line, the board id where there is one, and what is wrong. Writers are atomic.
"""
