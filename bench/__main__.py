"""``python -m bench NAME [args]``: run one benchmark, or ``all``."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "engine": "bench.engine_bench",
    "storage": "bench.storage_bench",
    "load": "bench.load",
    "ratings": "bench.ratings_bench",
    "i18n": "bench.i18n_bench",
    "coach": "bench.coach_bench",
    "failover": "bench.failover_bench",
    "daily": "bench.daily_bench",
    "passes": "bench.passes_bench",
    "stopping": "bench.stopping_bench",
    "profile": "bench.profile_bench",
}


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "all"
    args = sys.argv[2:]
    names = list(BENCHMARKS) if name == "all" else [name]
    for n in names:
        if n not in BENCHMARKS:
            sys.exit(f"unknown benchmark {n!r}; choose from {', '.join(BENCHMARKS)} or all")
        module = importlib.import_module(BENCHMARKS[n])
        sys.argv = [BENCHMARKS[n], *args]
        module.main()


if __name__ == "__main__":
    main()
