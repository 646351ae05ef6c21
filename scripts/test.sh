#!/usr/bin/env bash
# Set up everything (scripts/bootstrap.sh), then run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap.sh
# shellcheck disable=SC1091
source .tools/env.sh
set +e
uv run --no-sync pytest -n 2 "$@"
rc=$?
set -e
if [ "$rc" = "5" ]; then
  echo "test.sh: pytest collected no tests; that is a failure, not a pass" >&2
  exit 1
fi
exit "$rc"
