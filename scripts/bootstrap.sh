#!/usr/bin/env bash
# Set up everything Trailblaze's examples and tests need on a Debian/Ubuntu machine with Python 3.11+:
# uv, the uv workspace (.venv), a Chromium for Playwright, Node.js, and project-local Node tools
# (Appium + @appium/fake-driver, bun, tsx, the MCP TypeScript SDK) in .tools/. Idempotent: a second
# run only checks. Writes .tools/env.sh, which scripts/test.sh and scripts/run-examples.sh source.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TOOLS="$ROOT/.tools"
NODE_DIR="$TOOLS/node"
APPIUM_HOME_DIR="$TOOLS/appium-home"
FAKE_DRIVER_VERSION="6.2.4"
mkdir -p "$TOOLS"

log() { printf '[bootstrap] %s\n' "$*"; }
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else log "not root and no sudo: system packages cannot be installed"; fi
fi
APT_UPDATED=0
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    log "apt-get not found: install $* with your system's package manager"; return 1
  fi
  if [ "$APT_UPDATED" = "0" ]; then $SUDO apt-get update -qq >/dev/null; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# 1. Python 3.11+ and uv ------------------------------------------------------------------------
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
  || { log "Python 3.11 or newer is required (found $(python3 --version 2>&1))"; exit 2; }
export PATH="$HOME/.local/bin:$PATH"
if command -v uv >/dev/null 2>&1; then
  log "uv: present ($(uv --version))"
else
  if ! python3 -m pip --version >/dev/null 2>&1; then
    log "pip: installing python3-pip"; apt_install python3-pip python3-venv
  fi
  log "uv: installing from PyPI"
  python3 -m pip install --quiet --user uv 2>/dev/null \
    || python3 -m pip install --quiet --user --break-system-packages uv 2>/dev/null \
    || python3 -m pip install --quiet uv
  hash -r
  command -v uv >/dev/null 2>&1 || { log "uv was installed but is not on PATH"; exit 2; }
  log "uv: installed ($(uv --version))"
fi

# 2. The workspace -----------------------------------------------------------------------------
log "workspace: uv sync --all-packages"
uv sync --all-packages --quiet

# 3. A Chromium for Playwright -----------------------------------------------------------------
find_chromium() {
  for name in chromium-headless-shell chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  ls -d "$HOME"/.cache/ms-playwright/chromium*/chrome-linux*/chrome 2>/dev/null | head -1 | grep . && return 0
  return 1
}
if CHROME="$(find_chromium)"; then
  log "chromium: present ($CHROME)"
else
  if uv run --no-sync python -c "import playwright" >/dev/null 2>&1 \
     && timeout 180 uv run --no-sync playwright install chromium >/dev/null 2>&1; then
    log "chromium: installed Playwright's build"
  else
    log "chromium: Playwright's download is not reachable; installing the distribution's package"
    apt_install chromium-headless-shell 2>/dev/null || apt_install chromium
  fi
  CHROME="$(find_chromium)" || { log "no Chromium could be installed"; exit 2; }
  log "chromium: $CHROME"
fi

# 4. Node.js -----------------------------------------------------------------------------------
node_ok() { command -v node >/dev/null 2>&1 && node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; }
if node_ok; then
  log "node: present ($(node --version))"
else
  log "node: installing nodejs and npm"
  apt_install nodejs npm
  node_ok || log "warning: Node.js 20+ is needed for Appium 3 (found $(node --version 2>/dev/null || echo none))"
fi

# 5. Project-local Node tools ------------------------------------------------------------------
WANT="$(sha256sum scripts/node-tools/package.json | cut -d' ' -f1)"
HAVE="$(cat "$NODE_DIR/.installed" 2>/dev/null || true)"
if [ "$WANT" = "$HAVE" ] && [ -x "$NODE_DIR/node_modules/.bin/appium" ]; then
  log "node tools: present (appium, bun, tsx, @modelcontextprotocol/sdk)"
else
  log "node tools: npm install into .tools/node"
  mkdir -p "$NODE_DIR"
  cp scripts/node-tools/package.json "$NODE_DIR/package.json"
  rm -f "$NODE_DIR/package-lock.json"
  (cd "$NODE_DIR" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$WANT" > "$NODE_DIR/.installed"
fi
if APPIUM_HOME="$APPIUM_HOME_DIR" "$NODE_DIR/node_modules/.bin/appium" driver list --installed --json 2>/dev/null | grep -q '"fake"'; then
  log "appium fake driver: present"
else
  log "appium fake driver: installing @appium/fake-driver@$FAKE_DRIVER_VERSION"
  APPIUM_HOME="$APPIUM_HOME_DIR" "$NODE_DIR/node_modules/.bin/appium" driver install --source=npm \
    "@appium/fake-driver@$FAKE_DRIVER_VERSION" >/dev/null 2>&1
fi

# 6. The environment file ----------------------------------------------------------------------
cat > "$TOOLS/env.sh" <<ENV
# Written by scripts/bootstrap.sh. Source it to find the project's tools.
export PATH="$NODE_DIR/node_modules/.bin:$HOME/.local/bin:\$PATH"
export APPIUM_HOME="$APPIUM_HOME_DIR"
export TRAILBLAZE_APPIUM_BIN="$NODE_DIR/node_modules/.bin/appium"
export TRAILBLAZE_CHROMIUM="$CHROME"
export NODE_PATH="$NODE_DIR/node_modules"
ENV
log "done: tools are described in .tools/env.sh"
