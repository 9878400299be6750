"""qblib - the parts of tools/qb: runs (run.py), tables (table.py), compare.py, plots (plot.py), launch.py.

Records follow docs/records.md and are read by tools/qbrecords.py.
"""
