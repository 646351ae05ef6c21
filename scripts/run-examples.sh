#!/usr/bin/env bash
# Set up everything (scripts/bootstrap.sh), then run the example trails against the bundled example
# web shop in headless Chromium. Extra arguments go to `trailblaze run` (e.g. --headed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
EXAMPLE_TRAILS="examples/web-shop/trails"
bash scripts/bootstrap.sh
# shellcheck disable=SC1091
source .tools/env.sh
exec uv run --no-sync trailblaze run "$EXAMPLE_TRAILS" "$@"
