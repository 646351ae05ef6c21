"""The files ``trailblaze plugin new`` writes: a third-party plugin that works as generated.

Kept apart from the command so ``trailblaze --help`` never reads these texts. Each file is a
``string.Template`` (``$pkg``, ``$prefix``...) because the YAML and Python inside use braces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from .._version import __version__
from ..errors import BadInputError

NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class PluginNames:
    """Every spelling of one plugin name (``acme-shop``)."""

    name: str
    """The entry-point name and the words of every other spelling: ``acme-shop``."""

    @property
    def dist(self) -> str:
        return f"trailblaze-{self.name}"

    @property
    def pkg(self) -> str:
        return f"trailblaze_{self.prefix}"

    @property
    def prefix(self) -> str:
        """Tool-name prefix, trailmap id and entry-point name: ``acme_shop``."""
        return self.name.replace("-", "_")

    @property
    def camel(self) -> str:
        return "".join(part.title() for part in self.name.split("-"))


KINDS = ("tools", "output", "hooks")
"""What ``plugin new --kind`` generates: tools (a class tool, a YAML tool, optionally a driver), an output
plugin (a file per run, from the run-output hooks) or a hooks plugin (per-session work, no tools)."""

PREFIX = "trailblaze-"


def plugin_names(name: str) -> PluginNames:
    """The spellings of ``name``; a leading ``trailblaze-`` is dropped (the distribution adds it, so
    ``trailblaze-acme`` names the plugin ``acme``, not ``trailblaze-trailblaze-acme``)."""
    given = name
    while name.startswith(PREFIX):
        name = name[len(PREFIX):]
    if not NAME.match(name) or name == "trailblaze":
        raise BadInputError(f"plugin name '{given}' is not lower-case words joined by '-'",
                            hint="e.g. 'trailblaze plugin new acme-shop' (the distribution becomes trailblaze-acme-shop)")
    return PluginNames(name)


def render(names: PluginNames, *, driver: bool, kind: str = "tools") -> dict[str, str]:
    """Relative path → text of every file of the new plugin."""
    if kind not in KINDS:
        raise BadInputError(f"unknown plugin kind '{kind}'", hint=f"use one of: {', '.join(KINDS)}")
    if driver and kind != "tools":
        raise BadInputError(f"--driver goes with --kind tools, not --kind {kind}",
                            hint="generate the driver in a tools plugin: trailblaze plugin new NAME --driver")
    core = __version__.split(".")
    core_range = f">={core[0]}.{core[1]},<{core[0]}.{int(core[1]) + 1}"
    values = {
        "name": names.name, "dist": names.dist, "pkg": names.pkg, "prefix": names.prefix, "camel": names.camel,
        "core_range": core_range,
        "dependencies": (f'"trailblaze{core_range}", "trailblaze-yaml-tools{core_range}"' if kind == "tools"
                         else f'"trailblaze{core_range}"'),
        "driver_line": f"\n* `{names.name}-device` — an example driver (`{names.pkg}/driver.py`)." if driver else "",
        "driver_import": f"from {names.pkg}.driver import {names.camel}Driver\n" if driver else "",
        "plugin_imports": "DriverRegistry, ToolRegistry, hookimpl" if driver else "ToolRegistry, hookimpl",
    }
    for key, snippet in (("driver_register", _DRIVER_REGISTER), ("driver_tests", _DRIVER_TESTS)):
        values[key] = Template(snippet).substitute(values) if driver else ""
    files = {**_COMMON, **{"tools": _TOOLS, "output": _OUTPUT, "hooks": _HOOKS}[kind]}
    if driver:
        files["src/$pkg/driver.py"] = _DRIVER
    out = {}
    for path, text in files.items():
        out[Template(path).substitute(values)] = Template(text).substitute(values)
    return out


def write_plugin(names: PluginNames, target: Path, *, driver: bool, kind: str = "tools") -> list[Path]:
    """Write the plugin into ``target`` (created; it must not exist or be empty) and list the files."""
    files = render(names, driver=driver, kind=kind)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BadInputError(f"{target} already exists and is not an empty directory",
                            hint="choose another directory with --output-dir")
    written = []
    for relative, text in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


_COMMON: dict[str, str] = {
    "pyproject.toml": '''\
[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "$dist"
version = "0.1.0"
description = "Trailblaze plugin $name"
readme = "README.md"
requires-python = ">=3.11"
keywords = ["trailblaze", "trailblaze-plugin"]
dependencies = [$dependencies]

[project.optional-dependencies]
test = ["pytest>=8"]

[project.entry-points.trailblaze]
$prefix = "$pkg.plugin"

[tool.hatch.build.targets.wheel]
packages = ["src/$pkg"]
''',
    "src/$pkg/__init__.py": '''\
"""Trailblaze plugin $name."""
''',
    "src/$pkg/py.typed": "",
    ".github/workflows/test.yml": '''\
# The plugin's tests in a clean virtual environment, without pytest-xdist: what a user's CI has.
name: test
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      # Until trailblaze is on PyPI, also set PIP_FIND_LINKS to a directory (or URL) of its wheels.
      - name: Test in a clean virtual environment
        run: |
          python -m venv .venv
          .venv/bin/pip install '.[test]'
          .venv/bin/python -m pytest -q
''',
}
"""Files every kind of plugin has."""

_TOOLS: dict[str, str] = {
    "README.md": '''\
# $dist

A Trailblaze plugin generated by `trailblaze plugin new $name`:

* `${prefix}_greet` — a class-backed tool (`$pkg/tools.py`).
* `${prefix}_greetTwice` — a YAML tool in the packaged trailmap `$prefix`
  (`$pkg/trailmaps/$prefix/tools/`).$driver_line

Run its tests the way CI does (a clean virtual environment, no pytest-xdist):

```
python -m venv .venv
.venv/bin/pip install '.[test]'
.venv/bin/python -m pytest -q
```

Until `trailblaze` is published on PyPI, point pip at a directory holding its wheels first:
`export PIP_FIND_LINKS=/path/to/trailblaze/dist` (see the Trailblaze docs, install.md).

Try the example trail: `trailblaze run trails/greet.trail.yaml --arg person=Ada`.
`.github/workflows/test.yml` runs the same three lines on every push.
''',
    "src/$pkg/plugin.py": '''\
"""The entry point Trailblaze loads (`[project.entry-points.trailblaze]` in pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

from trailblaze import ${plugin_imports}

from .tools import GreetTool


@hookimpl
def trailblaze_register_tools(registry: ToolRegistry) -> None:
    registry.add_tool(GreetTool)


@hookimpl
def trailblaze_trailmap_dirs() -> list[Path]:
    """The packaged trailmaps (YAML tools): `trailmaps/$prefix/` ships `${prefix}_greetTwice`."""
    return [Path(__file__).parent / "trailmaps"]
$driver_register''',
    "src/$pkg/tools.py": '''\
"""Class-backed tools: pydantic models whose fields are the tool's parameters."""

from __future__ import annotations

from pydantic import Field

from trailblaze import Tool, ToolContext, ToolResult


class GreetTool(Tool):
    """Compose a greeting and remember it as `greeting` for later steps."""

    name = "${prefix}_greet"

    person: str = Field(..., min_length=1, description="Who to greet.")
    punctuation: str = Field("!", max_length=3, description="What ends the greeting.")

    def execute(self, ctx: ToolContext) -> ToolResult:
        greeting = f"Hello, {self.person}{self.punctuation}"
        ctx.memory.remember("greeting", greeting)
        return ToolResult.ok(greeting)
''',
    "src/$pkg/trailmaps/$prefix/trailmap.yaml": '''\
id: $prefix
''',
    "src/$pkg/trailmaps/$prefix/tools/${prefix}_greetTwice.tool.yaml": '''\
id: ${prefix}_greetTwice
description: Greet someone twice, the second time with emphasis.
parameters:
  - {name: person, type: string, description: Who to greet.}
tools:
  - ${prefix}_greet: {person: "{{params.person}}"}
  - ${prefix}_greet: {person: "{{params.person}}", punctuation: "!!"}
''',
    "trails/greet.trail.yaml": '''\
# Runs on the built-in host driver: trailblaze run trails/greet.trail.yaml --arg person=Ada
config:
  id: $prefix/greet
  title: $name greets a person
  args:
    person: string
trail:
  - step: Greet the person twice
    recording:
      host:
        - ${prefix}_greetTwice: {person: "{{args.person}}"}
''',
    "tests/test_$prefix.py": '''\
"""The plugin tested with Trailblaze's kit (`trailblaze.testing`), as an installed plugin is used."""

from __future__ import annotations

from pathlib import Path

import pytest

import $pkg.plugin as plugin
from trailblaze import PluginHost, ToolArgumentError, ToolCall
from trailblaze.testing import host_with_plugins, open_session, register_plugin, run_cli
$driver_import
pytest_plugins = ["trailblaze.testing"]  # the plugin_host fixture

TRAILS = Path(__file__).resolve().parents[1] / "trails"


def test_class_tool(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, plugin, "$prefix"), open_session(plugin_host, root=tmp_path) as session:
        result = session.dispatcher.call(ToolCall("${prefix}_greet", {"person": "Ada"}), session.context())
        assert result.message == "Hello, Ada!"
        with pytest.raises(ToolArgumentError, match="unknown argument 'colour'"):
            session.dispatcher.call(ToolCall("${prefix}_greet", {"person": "Ada", "colour": "red"}),
                                    session.context())


def test_yaml_tool(tmp_path: Path) -> None:
    host = host_with_plugins("yaml_tools", "$prefix")  # loaded from their entry points, as trailblaze does
    with open_session(host, root=tmp_path) as session:
        result = session.dispatcher.call(ToolCall("${prefix}_greetTwice", {"person": "Lin"}), session.context())
        assert result.success, result.message
        assert session.memory.get("greeting") == "Hello, Lin!!"


def test_trail_runs(tmp_path: Path) -> None:
    host = host_with_plugins("yaml_tools", "$prefix")
    result = run_cli(["run", str(TRAILS), "--arg", "person=Grace", "--output-dir", str(tmp_path / "out")],
                     host=host)
    assert result.exit_code == 0, result.output
    assert "Results: 1 passed, 0 failed, 0 skipped" in result.output
$driver_tests''',
}
"""``--kind tools`` (the default)."""

_README_TESTS = """\
Run its tests the way CI does (a clean virtual environment, no pytest-xdist):

```
python -m venv .venv
.venv/bin/pip install '.[test]'
.venv/bin/python -m pytest -q
```

Until `trailblaze` is published on PyPI, point pip at a directory holding its wheels first:
`export PIP_FIND_LINKS=/path/to/trailblaze/dist` (see the Trailblaze docs, install.md).
`.github/workflows/test.yml` runs the same three lines on every push.
"""

_RUN_TRAIL = '''\
config:
  id: $prefix/wait
  title: A trail that passes on the host driver
trail:
  - step: Wait a moment
    recording:
      host:
        - wait: {timeToWaitInSeconds: 0}
'''

_OUTPUT: dict[str, str] = {
    "README.md": '''\
# $dist

A Trailblaze output plugin generated by `trailblaze plugin new $name --kind output`: after every run
it writes `reports/${prefix}_summary_<time>_<token>.md` in the output directory, a Markdown table of
the trails (`$pkg/plugin.py`, the run-output hooks `trailblaze_check_run_outputs` and
`trailblaze_write_run_outputs`; see the Trailblaze docs, hooks.md "Run outputs").

''' + _README_TESTS,
    "src/$pkg/plugin.py": '''\
"""The entry point Trailblaze loads (`[project.entry-points.trailblaze]` in pyproject.toml): a run output.

Trailblaze calls `trailblaze_check_run_outputs` before any device starts (refuse there what cannot be
written, exit 3) and `trailblaze_write_run_outputs` once per run, beside its own JUnit, HTML and
result-bundle writers, by the process that has every result (the controller of `run -n`,
`merge-reports` for shards). An option of your own (`--$name-summary PATH`) is declared with
`trailblaze_output_options` and read with `request.option(...)` (hooks.md "Run outputs").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailblaze import hookimpl
from trailblaze import OutputWriteError, check_writable_dir, write_new

if TYPE_CHECKING:
    from trailblaze import OutputRequest, RunResult


@hookimpl
def trailblaze_check_run_outputs(request: OutputRequest) -> None:
    """The summary goes to the run's `reports/`: a directory that cannot be written fails the run now
    (exit 3), not after its trails."""
    check_writable_dir(request.output_dir / "reports", "the $name summary")


@hookimpl
def trailblaze_write_run_outputs(result: RunResult, request: OutputRequest) -> list[OutputWriteError] | None:
    """One Markdown table per run. The text passes through `result.redact` (a trail's message may quote
    a secret); a file that cannot be written is returned, not raised, so the other writers still run."""
    rows = ["| Trail | Status | Seconds | Message |", "|---|---|---|---|"]
    for trail in result.trails:
        seconds = (trail.completed_at or trail.started_at) - trail.started_at
        message = (trail.message or "").replace("|", "\\\\|").replace("\\n", " ")
        rows.append(f"| {trail.trail_id or trail.title} | {trail.status} | {seconds:.1f} | {message} |")
    text = "\\n".join(["# Trailblaze run", "", result.results_line(), "", *rows, ""])
    try:
        write_new(request.output_dir / "reports", "${prefix}_summary", ".md", result.redact(text))
    except OutputWriteError as exc:
        return [exc]
    return None
''',
    "trails/wait.trail.yaml": _RUN_TRAIL,
    "tests/test_$prefix.py": '''\
"""The plugin tested with Trailblaze's kit (`trailblaze.testing`): a real run writes the summary."""

from __future__ import annotations

from pathlib import Path

import $pkg.plugin as plugin
from trailblaze import PluginHost
from trailblaze.testing import register_plugin, run_cli

pytest_plugins = ["trailblaze.testing"]  # the plugin_host fixture

TRAILS = Path(__file__).resolve().parents[1] / "trails"


def test_a_run_writes_the_summary(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, plugin, "$prefix"):
        result = run_cli(["run", str(TRAILS), "--output-dir", str(tmp_path / "out")], host=plugin_host)
    assert result.exit_code == 0, result.output
    (summary,) = (tmp_path / "out" / "reports").glob("${prefix}_summary_*.md")
    text = summary.read_text(encoding="utf-8")
    assert "Results: 1 passed, 0 failed, 0 skipped" in text
    assert "| $prefix/wait | PASSED |" in text


def test_an_unwritable_output_directory_fails_before_the_run(plugin_host: PluginHost, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "reports").write_text("a file where the reports directory belongs")
    with register_plugin(plugin_host, plugin, "$prefix"):
        result = run_cli(["run", str(TRAILS), "--output-dir", str(out)], host=plugin_host)
    assert result.exit_code == 3, result.output
''',
}
"""``--kind output``: a file per run from the run-output hooks, no tools."""

_HOOKS: dict[str, str] = {
    "README.md": '''\
# $dist

A Trailblaze hooks plugin generated by `trailblaze plugin new $name --kind hooks`: it adds no tools;
it is told when each session starts and ends (`trailblaze_session_started`,
`trailblaze_session_finished` in `$pkg/plugin.py`) and writes `${prefix}_session.json` (outcome and
duration) into each session's log directory. Start from here for per-session work: spawning a helper,
licensing a device, collecting logs.

''' + _README_TESTS,
    "src/$pkg/plugin.py": '''\
"""The entry point Trailblaze loads (`[project.entry-points.trailblaze]` in pyproject.toml): session hooks.

`trailblaze_session_started` runs once a session's driver is up (raise `InfrastructureError` to fail
the session, exit 2); `trailblaze_session_finished` runs however the session ended and must not raise.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from trailblaze import InfrastructureError, SessionOutcome, hookimpl

if TYPE_CHECKING:
    from trailblaze import Session

STARTED = "$prefix.started"
"""Where this plugin keeps its per-session state: `session.resources`, keyed by the plugin's name."""


@hookimpl
def trailblaze_session_started(session: Session) -> None:
    session.resources[STARTED] = time.monotonic()


@hookimpl
def trailblaze_session_finished(session: Session, outcome: SessionOutcome) -> None:
    started = session.resources.pop(STARTED, None)
    if not isinstance(started, float):
        return  # the session ended before it started (its driver failed)
    record = {"session": session.id, "title": session.title, "outcome": outcome.value,
              "seconds": round(time.monotonic() - started, 3)}
    try:
        session.log.write_file("${prefix}_session.json", json.dumps(record).encode("utf-8"))
    except (OSError, InfrastructureError):
        pass  # a full disk must not turn the session's outcome into an error
''',
    "trails/wait.trail.yaml": _RUN_TRAIL,
    "tests/test_$prefix.py": '''\
"""The plugin tested with Trailblaze's kit (`trailblaze.testing`): a real run calls both hooks."""

from __future__ import annotations

import json
from pathlib import Path

import $pkg.plugin as plugin
from trailblaze import PluginHost
from trailblaze.testing import register_plugin, run_cli

pytest_plugins = ["trailblaze.testing"]  # the plugin_host fixture

TRAILS = Path(__file__).resolve().parents[1] / "trails"


def test_each_session_is_recorded(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, plugin, "$prefix"):
        result = run_cli(["run", str(TRAILS), "--output-dir", str(tmp_path / "out")], host=plugin_host)
    assert result.exit_code == 0, result.output
    (written,) = (tmp_path / "out").rglob("${prefix}_session.json")
    record = json.loads(written.read_text(encoding="utf-8"))
    assert record["outcome"] == "Succeeded" and record["seconds"] >= 0
    assert record["title"] == "A trail that passes on the host driver"
''',
}
"""``--kind hooks``: per-session work (``trailblaze_session_started``/``_finished``), no tools."""

_DRIVER_REGISTER = '''

@hookimpl
def trailblaze_register_drivers(registry: DriverRegistry) -> None:
    from .driver import ${camel}Driver

    registry.add_driver(${camel}Driver)
'''

_DRIVER = '''\
"""An example driver: a device whose screen is a list of texts held in memory. Replace `start`,
`stop` and `snapshot` with calls into your device's SDK (import it inside `start`, never at module
import, so `trailblaze --help` stays fast and works without the SDK)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from trailblaze import DeviceInfo, Driver, DriverConfig

if TYPE_CHECKING:
    from trailblaze import Session


class ${camel}Config(DriverConfig):
    """Settings: `drivers: {$name-device: {...}}` in trails/config/trailblaze.yaml, a trail's
    `config.drivers`, or `-o KEY=VALUE`. Unknown keys are errors that name the key."""

    screen: list[str] = Field(default_factory=lambda: ["Welcome"], description="Texts on the screen.")


class ${camel}Driver(Driver[${camel}Config]):
    key = "$name-device"
    platform = "$prefix"
    description = "Example device of the $name plugin: a screen of texts in memory."
    config_model = ${camel}Config
    default_classifiers = ("$prefix",)

    def start(self, session: Session) -> DeviceInfo:
        self.screen = list(self.config.screen)  # self.config is a ${camel}Config
        return DeviceInfo(platform=self.platform, driver=self.key, classifiers=list(self.default_classifiers))

    def stop(self) -> None:
        self.screen = []

    def snapshot(self, *, detail: frozenset[str] = frozenset()) -> str:
        return "\\n".join(f'[e{i + 1}] "{text}"' for i, text in enumerate(self.screen))
'''

_DRIVER_TESTS = '''

def test_driver(plugin_host: PluginHost, tmp_path: Path) -> None:
    from trailblaze import ConfigError
    from trailblaze.testing import make_driver

    driver = make_driver(${camel}Driver, screen=["Checkout"])  # settings validated as `trailblaze run` does
    with open_session(plugin_host, root=tmp_path, driver=driver) as session:
        assert session.device.driver == "$name-device"
        assert '"Checkout"' in driver.snapshot()
    with pytest.raises(ConfigError, match="unknown setting 'colour'"):
        make_driver(${camel}Driver, colour="red")
'''
