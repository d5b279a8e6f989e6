"""The bench harness behind bench/run_bench.py and bench/server_bench.py (Python 3 standard library only)."""
