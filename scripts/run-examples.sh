#!/usr/bin/env bash
# Set up everything (scripts/bootstrap.sh), then replay the example trails with a real
# `trailblaze run`: the web-shop example serves its app on 127.0.0.1 and drives headless Chromium.
# Extra arguments go to `trailblaze run` (e.g. --headed, which needs a full `chromium`).
set -euo pipefail
EXAMPLE_TRAILS="examples/web-shop/trails"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
# shellcheck disable=SC1091
source .tools/env.sh
echo "[examples] uv run trailblaze run $EXAMPLE_TRAILS $*"
exec uv run --no-sync trailblaze run "$EXAMPLE_TRAILS" "$@"
