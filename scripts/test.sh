#!/usr/bin/env bash
# Set up everything (scripts/bootstrap.sh), then run the whole test suite with pytest on 2 workers.
# Extra arguments go to pytest (e.g. `-k web`, `-m "not wheels"`, `-n 0`). Exits with pytest's code,
# except that "no tests collected/selected" (pytest's 5) is a failure here.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
# shellcheck disable=SC1091
source .tools/env.sh
echo "[test] uv run pytest -n 2 $*"
rc=0
uv run --no-sync pytest -n 2 "$@" || rc=$?
if [ "$rc" = "5" ]; then
  echo "[test] FAILED: pytest ran no tests (exit 5); an empty run is not a pass" >&2
  exit 1
fi
exit "$rc"
