"""Deriving the input schemas of 50 typed TypeScript tools: cold (node, TypeScript and
ts-json-schema-generator over all files) and warm (the cache in ``.trailblaze/cache/ts-tools.json``).

Both through ``trailblaze_yaml_tools.ts_tools.extract``, what loading a workspace does. Aim: warm ≤ 0.1 s.
Needs the bootstrap's node tools on NODE_PATH (``source .tools/env.sh``).

    uv run python benchmarks/bench_ts_tools.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

TOOLS = 50
WARM_ROUNDS = 20

TOOL = """import {{ trailblaze }} from "@trailblaze/scripting";

export interface Args{i} {{
  /** The product to open. */
  name: string;
  /** How many; 1 when left out. */
  quantity?: number;
  /** Sort order of the list. */
  sort?: "price" | "name";
  filters?: {{ /** Category. */ category: string; inStock?: boolean }};
}}

/** Tool number {i}. */
export const bench_tool{i} = trailblaze.tool<Args{i}>(
  {{ supportedPlatforms: ["web"] }},
  async (args, ctx) => "ok",
);
"""


def main() -> int:
    from trailblaze_yaml_tools import ts_tools

    if ts_tools.package_versions() is None:
        print("typescript / ts-json-schema-generator not on NODE_PATH: source .tools/env.sh", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = []
        for i in range(TOOLS):
            path = root / "tools" / f"bench_tool{i}.ts"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(TOOL.format(i=i))
            files.append(path)
        cache = root / ".trailblaze" / "cache" / "ts-tools.json"
        started = time.perf_counter()
        tools, errors = ts_tools.extract(files, cache=cache)
        cold = time.perf_counter() - started
        assert len(tools) == TOOLS and not errors, errors
        warm_times = []
        for _ in range(WARM_ROUNDS):
            started = time.perf_counter()
            again, _ = ts_tools.extract(files, cache=cache)
            warm_times.append(time.perf_counter() - started)
            assert again == tools
    warm = statistics.median(warm_times)
    print(f"{TOOLS} typed tools: cold {cold:.2f} s, warm {warm * 1000:.1f} ms (median of {WARM_ROUNDS}); "
          f"cold/warm {cold / warm:.0f}x; warm ≤ 0.1 s: {'yes' if warm <= 0.1 else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
