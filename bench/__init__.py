"""Benchmarks: figures printed, not timed tests. Run with ``./dev bench [name]``."""
