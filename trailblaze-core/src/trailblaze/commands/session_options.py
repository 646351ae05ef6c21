"""The session options, declared once: the flags every entry point that opens a session takes.

``trailblaze run``, ``step``, ``verify``, ``snapshot``, ``plan``, ``record``, ``session`` and ``mcp`` and the
pytest plugin all start a device the same way, so they take the same flags (``--driver``, ``-o``,
``--headed``, ``--memory``, ``--secret``, ``--llm``, …) with the same meaning, help text and parsing. ``SESSION_OPTIONS`` below
is the only place they are declared: ``session_options(command)`` turns the rows a command uses into
click options, ``session_values`` turns what click parsed into the typed values (``RunOptions`` field
names), and ``add_pytest_options`` / ``pytest_session_values`` do the same for the pytest plugin's
``--trailblaze-*`` flags. A test compares every command's parameters and pytest's parser to this table.

How to add an option (e.g. ``--retries N`` for ``run`` and pytest):

1. add the field to ``RunOptions`` (``runner/options.py``), and to ``McpSettings`` if ``mcp`` takes it;
2. add one ``SessionOption`` row here: the field, the flags, the help, the ``kind`` (how it is parsed),
   the commands that take it and, if pytest should too, its ``pytest_flag``;
3. use the value where the run reads ``RunOptions`` — the commands and the pytest plugin pass it on
   without another line; document it in docs/cli.md (and docs/pytest.md for the pytest flag).

Importing this module costs click only (``trailblaze --version`` loads every command module).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as default
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import click

if TYPE_CHECKING:
    import pytest

F = TypeVar("F", bound=Callable[..., Any])

Kind = Literal["text", "int", "number", "path", "dir", "flag", "switch", "pairs", "driver_options", "list", "many",
               "off"]
"""How a value is read: ``text``/``int``/``number`` one value (``int``, ``number``: 0 or more);
``path``/``dir`` a path (``dir``: not a file);
``flag`` on when given; ``switch`` ``--x/--no-x``, None when neither; ``pairs`` repeatable KEY=VALUE into a
dict; ``driver_options`` repeatable KEY=VALUE with YAML values and dotted keys; ``list`` repeatable, comma
lists split; ``many`` repeatable, each value as given; ``off`` a ``--no-x`` flag that turns the field off."""

COMMANDS = frozenset({"run", "step", "verify", "snapshot", "mcp", "session", "record", "plan"})
"""The commands that open a session (``session`` is ``session start``; the pytest plugin is one more
entry point)."""

_DEVICE_COMMANDS = frozenset({"run", "step", "verify", "snapshot", "session", "record", "plan"})
_AGENT_COMMANDS = frozenset({"run", "step", "verify", "mcp", "session"})
_SECRET_COMMANDS = _AGENT_COMMANDS | {"record"}
_VALUE_COMMANDS = _SECRET_COMMANDS | {"snapshot", "plan"}
"""Memory and secrets: ``snapshot`` takes them for its setup trails (a sign-in types a password), ``plan`` for
those and for the model's ``{{tokens}}``."""


@dataclass(frozen=True)
class SessionOption:
    """One row of the table: a flag, what it sets, who takes it."""

    field: str
    """The ``RunOptions`` (and ``McpSettings``/``SnapshotRequest``) attribute the value sets."""
    flags: tuple[str, ...]
    """The click declarations, e.g. ``("-o", "--driver-option")`` or ``("--self-heal/--no-self-heal",)``."""
    help: str
    commands: frozenset[str]
    kind: Kind = "text"
    metavar: str | None = None
    pytest_flag: str | None = None
    """The pytest plugin's ``--trailblaze-*`` flag; None: not offered there."""
    pytest_help: str | None = None
    """pytest's help when it says more than the CLI's (default: the CLI's, naming the ``run`` flag)."""
    choices: tuple[str, ...] = ()
    """The values a ``text`` option accepts (none: any)."""
    per_command: Mapping[str, Mapping[str, Any]] = default(default_factory=dict)
    """Where a command reads the flag differently (``snapshot -d`` names one device): replaced fields."""

    @property
    def param(self) -> str:
        """The click parameter name (an ``off`` flag is ``no_<field>``)."""
        return f"no_{self.field}" if self.kind == "off" else self.field

    @property
    def long_flag(self) -> str:
        return [f for f in self.flags if f.startswith("--")][-1].split("/")[0]

    @property
    def pytest_flags(self) -> tuple[str, ...]:
        """The pytest flags of the row: a ``switch`` has both ways (``--trailblaze-x``, ``--trailblaze-no-x``)."""
        if self.pytest_flag is None:
            return ()
        if self.kind == "switch":
            return self.pytest_flag, self.pytest_flag.replace("--trailblaze-", "--trailblaze-no-", 1)
        return (self.pytest_flag,)

    @property
    def pytest_dest(self) -> str:
        assert self.pytest_flag is not None
        return self.pytest_flag.lstrip("-").replace("-", "_")

    def for_command(self, command: str) -> SessionOption:
        return replace(self, **self.per_command[command]) if command in self.per_command else self

    def click_option(self) -> Callable[[F], F]:
        kwargs: dict[str, Any] = {"cls": SessionClickOption, "session_option": self, "help": self.help}
        if self.metavar:
            kwargs["metavar"] = self.metavar
        if self.kind == "int":
            kwargs["type"] = click.IntRange(min=0)
        elif self.kind == "number":
            kwargs["type"] = click.FloatRange(min=0)
        elif self.kind == "path":
            kwargs["type"] = click.Path(path_type=Path)
        elif self.kind == "dir":
            kwargs["type"] = click.Path(path_type=Path, file_okay=False)
        elif self.kind in ("flag", "off"):
            kwargs["is_flag"] = True
        elif self.kind == "switch":
            kwargs["default"] = None
        elif self.choices:
            kwargs["type"] = click.Choice(self.choices)
        elif self.kind in ("pairs", "driver_options", "list", "many"):
            kwargs["multiple"] = True
        return click.option(*self.flags, self.param, **kwargs)

    def convert(self, raw: Any, flag: str) -> Any:
        """The typed value of what the parser gave (``flag`` names the option in a bad-input message)."""
        if self.kind == "pairs":
            return parse_kv(tuple(raw or ()), flag)
        if self.kind == "driver_options":
            return parse_driver_options(tuple(raw or ()), flag)
        if self.kind == "list":
            return [item for group in raw or () for item in group.split(",") if item.strip()]
        if self.kind == "many":
            return list(raw or ())
        if self.kind == "flag":
            return bool(raw)
        if self.kind == "off":
            return not raw
        if self.kind in ("path", "dir"):
            return Path(raw) if raw else None
        if self.kind in ("int", "number") and raw is not None:
            return _count(raw, flag, int if self.kind == "int" else float)
        return raw


class SessionClickOption(click.Option):
    """A click option made from a ``SessionOption`` row (so a test can tell table options from others)."""

    def __init__(self, *args: Any, session_option: SessionOption, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.session_option = session_option


SESSION_OPTIONS: tuple[SessionOption, ...] = (
    SessionOption(
        "driver", ("--driver",), metavar="NAME", commands=_DEVICE_COMMANDS, pytest_flag="--trailblaze-driver",
        help="Driver key or upstream name (playwright-native, PLAYWRIGHT_NATIVE, android-appium-uiautomator2, "
             "host, ...). Overrides the trail's devices and the workspace's defaults.driver."),
    SessionOption(
        "devices", ("-d", "--device"), kind="list", metavar="[ACTOR=]PLATFORM[/ID]",
        commands=frozenset({"run", "snapshot", "session", "mcp", "plan"}),
        pytest_flag="--trailblaze-device",
        help="Run on this device (e.g. android/emulator-5554); repeat to run every trail on several devices in "
             "parallel. ACTOR=DEVICE binds an actor of a trail with several devices (-d alice=web -d bob=web).",
        pytest_help="Run each trail on this device (as trailblaze run -d); repeat for one test per device.",
        per_command={"snapshot": {"field": "device", "kind": "text",
                                  "help": "Device to look at, as for `run` (e.g. android/emulator-5554, ios, web)."},
                     "plan": {"field": "device", "kind": "text",
                              "help": "Device to explore, as for `run` (e.g. android/emulator-5554, ios, web)."},
                     "session": {"field": "device", "kind": "text",
                                 "help": "Device to keep, as for `run` (e.g. android/emulator-5554, ios, web)."},
                     "mcp": {"field": "device", "kind": "text",
                             "help": "Connect this device at start, as for `run` (e.g. web, android/emulator-5554); "
                                     "upstream's mcp -d."}}),
    SessionOption(
        "driver_options", ("-o", "--driver-option"), kind="driver_options", metavar="KEY=VALUE",
        commands=COMMANDS, pytest_flag="--trailblaze-option",
        help="Driver setting, e.g. -o headless=false -o base_url=http://127.0.0.1:8000 -o viewport=390x844 "
             "(repeatable; for `mcp`, every device connected)."),
    SessionOption(
        "headed", ("--headed",), kind="flag", commands=COMMANDS - {"record"}, pytest_flag="--trailblaze-headed",
        help="Show the browser window (drivers with a 'headless' setting).",
        pytest_help="Show the browser window (pytest-playwright's --headed is honoured too)."),
    SessionOption(
        "workspace", ("--workspace",), kind="dir",
        commands=frozenset({"snapshot", "mcp", "session", "record", "plan"}),
        help="Workspace directory whose tools and drivers: settings apply (default: found from the current "
             "directory)."),
    SessionOption(
        "target", ("--target",), metavar="ID",
        commands=frozenset({"step", "verify", "mcp", "session", "record", "plan"}),
        help="Target app (trailmap) whose tools are offered."),
    SessionOption(
        "memory", ("--memory",), kind="pairs", metavar="KEY=VALUE", commands=_VALUE_COMMANDS,
        pytest_flag="--trailblaze-memory", help="Seed a memory value, usable as {{KEY}} (repeatable)."),
    SessionOption(
        "secrets", ("--secret",), kind="pairs", metavar="KEY=VALUE", commands=_VALUE_COMMANDS,
        pytest_flag="--trailblaze-secret",
        help="Like --memory, but redacted from every log, report, recording and tool result."),
    SessionOption(
        "secret_env", ("--secret-env",), kind="many", metavar="NAME[=ENVVAR]", commands=_VALUE_COMMANDS,
        pytest_flag="--trailblaze-secret-env",
        help="A secret read from the environment variable ENVVAR (default: NAME), so its value is not on the "
             "command line where ps shows it (repeatable)."),
    SessionOption(
        "secrets_files", ("--secrets-file",), kind="many", metavar="PATH", commands=_VALUE_COMMANDS,
        pytest_flag="--trailblaze-secrets-file",
        help="A YAML or JSON map of secrets (name: value); refused when every user can read it (repeatable)."),
    SessionOption(
        "args", ("--arg",), kind="pairs", metavar="NAME=VALUE", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-arg", help="Set a declared trail argument, usable as {{args.NAME}} (repeatable)."),
    SessionOption(
        "output_dir", ("--output-dir",), kind="path", commands=_SECRET_COMMANDS,
        pytest_flag="--trailblaze-output-dir",
        metavar="DIR", help="Where logs and reports go (default: ./logs).",
        pytest_help="Where logs and reports go (default: ./logs; each xdist worker writes below DIR/<worker>).",
        per_command={name: {"help": "Where session logs go (default: ./logs)."}
                     for name in ("step", "verify", "mcp", "session", "record")}),
    SessionOption(
        "setup", ("--setup",), kind="many", metavar="TRAIL",
        commands=frozenset({"snapshot", "session", "record", "plan"}),
        help="Replay this trail's recorded steps first (e.g. signing in); not part of what is saved "
             "(repeatable; default: the workspace's defaults.setup)."),
    SessionOption(
        "llm", ("--llm",), metavar="PROVIDER/MODEL", commands=_AGENT_COMMANDS | {"plan"},
        pytest_flag="--trailblaze-llm",
        help="Model for the agent (steps without a recording; `mcp`'s natural-language steps; `plan`'s explorer), "
             "e.g. openai/gpt-4.1."),
    SessionOption(
        "max_llm_calls", ("--max-llm-calls",), kind="int", commands=_AGENT_COMMANDS,
        pytest_flag="--trailblaze-max-llm-calls",
        help="Per-step cap on model calls (default 50; a cap on each step, so the same with -n)."),
    SessionOption(
        "self_heal", ("--self-heal/--no-self-heal",), kind="switch", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-self-heal",
        help="Let the agent re-solve a step whose recording fails (default off; TRAILBLAZE_SELF_HEAL_ENABLED)."),
    SessionOption(
        "heal_check", ("--no-heal-check",), kind="off", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-no-heal-check",
        help="Write healed and agent-solved recordings back without first replaying the trail from its start "
             "without the model (by default an unproven recording goes to NAME.healed.trail.yaml instead)."),
    SessionOption(
        "endpoints", ("--endpoint",), kind="list", metavar="URL", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-endpoint",
        help="A device endpoint of a pool (a Playwright server's ws:// URL, an Appium server or hub URL; "
             "repeatable): each -n worker, or each -d device, takes its own and the results name it. Give at "
             "least as many as workers. Replaces the 'endpoints:' pools of trailblaze.yaml."),
    SessionOption(
        "shard", ("--shard",), metavar="I/N", commands=frozenset({"run"}), pytest_flag="--trailblaze-shard",
        help="Run only shard I of N (1-based) of the trail × device pairs, for CI machines that split a suite: "
             "balanced by --durations when given, by count otherwise; every pair lands in exactly one shard, "
             "the same on every machine."),
    SessionOption(
        "durations", ("--durations",), kind="path", metavar="PATH", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-durations",
        help="An earlier run's result bundle (its --output-dir, or a merge-reports output), JSON summary or "
             "results store (a results.db, e.g. restored from a CI cache): --shard balances the shards by those "
             "trails' durations (a path that does not exist yet: by count)."),
    SessionOption(
        "junit_xml", ("--junit-xml",), kind="path", metavar="PATH", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-junit-xml",
        help="Also write a JUnit XML report (a testcase per trail and device) for CI.",
        pytest_help="Also write trailblaze's JUnit XML (as trailblaze run --junit-xml; under xdist one file, "
                    "from the merged workers' results)."),
    SessionOption(
        "logging", ("--no-logging",), kind="off", commands=frozenset({"run", "mcp", "session"}),
        pytest_flag="--trailblaze-no-logging",
        help="Do not write the session event logs (a run's summary and report are still written)."),
    # -- what a run reads and writes beside the device (trailblaze run; pytest and run -n through the twins) --
    SessionOption(
        "args_file", ("--args-file",), kind="path", metavar="PATH", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-args-file",
        help="YAML or JSON map of trail arguments (applied before --arg)."),
    SessionOption(
        "use_recorded_steps", ("--use-recorded-steps/--no-use-recorded-steps",), kind="switch",
        commands=frozenset({"run"}), pytest_flag="--trailblaze-use-recorded-steps",
        help="Force replay, or force the agent, for every step."),
    SessionOption(
        "save_recording", ("--no-save-recording",), kind="off", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-no-save-recording",
        help="Do not write recordings made by the agent back into the trail (written by default)."),
    SessionOption(
        "report", ("--no-report",), kind="off", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-no-report",
        help="Do not write the HTML report (the JSON summary and the result bundle are still written)."),
    SessionOption(
        "log_layout", ("--log-layout",), choices=("stream", "files"), commands=frozenset({"run"}),
        pytest_flag="--trailblaze-log-layout",
        help="Event log layout: one session.ndjson per session (stream, default; TRAILBLAZE_LOG_LAYOUT) or "
             "upstream's one NNN_<Kind>.json per event (files)."),
    SessionOption(
        "test_name", ("--test-name",), metavar="NAME", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-test-name",
        help="Name used in the session id."),
    # -- results a team can trust (docs/results.md) --
    SessionOption(
        "retries", ("--retries",), kind="int", metavar="N", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-retries",
        help="Retry a failed or infrastructure-errored trail up to N times, each on a fresh browser context or "
             "app state; passing on a retry is FLAKY. A trail's 'config: retries:' overrides it.",
        pytest_help="Retry a failed trail up to N times inside its test (as trailblaze run --retries): a pass on "
                    "a retry is FLAKY and the test passes. A trail's 'config: retries:' overrides it."),
    SessionOption(
        "fail_on_flaky", ("--fail-on-flaky",), kind="flag", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-fail-on-flaky", help="Fail when a trail passed only on a retry (FLAKY): exit 1."),
    SessionOption(
        "results_db", ("--results-db",), kind="path", metavar="PATH", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-results-db",
        help="Run history (SQLite) to append every attempt to (default: <workspace>/.trailblaze/results.db); "
             "read it with `trailblaze results`. xdist workers and parallel runs may share one."),
    SessionOption(
        "history", ("--no-history",), kind="off", commands=frozenset({"run"}), pytest_flag="--trailblaze-no-history",
        help="Do not append this run to the run history."),
    SessionOption(
        "max_llm_cost", ("--max-llm-cost",), kind="number", metavar="USD", commands=frozenset({"run"}),
        pytest_flag="--trailblaze-max-llm-cost",
        help="Stop handing steps to the model once the run's model calls cost this much (those steps end as "
             "ERROR, exit 2); needs the model's cost in the llm: settings.",
        pytest_help="Stop handing steps to the model once the run's model calls cost this much (as "
                    "trailblaze run --max-llm-cost; under xdist, all workers together)."),
    # -- upstream's CLI flags (TrailCommand.kt, McpCommand.kt), so scripts written for it run; folded into the
    # options above by ``fold_upstream_flags`` (docs/upstream-compatibility.md, "CLI flags") --
    SessionOption(
        "headless", ("--headless/--no-headless",), kind="switch", commands=frozenset({"run", "record"}),
        help="Upstream's spelling: --no-headless is --headed; --headless is the default.",
        per_command={"record": {"field": "hide_window", "kind": "flag", "flags": ("--headless",),
                                "help": "Do not show the window (for scripted demonstrations only)."}}),
    SessionOption(
        "verbose", ("-v", "--verbose"), kind="flag", commands=frozenset({"run"}),
        help="Upstream's verbose output: print the traceback behind each error, as --debug."),
    SessionOption(
        "no_daemon", ("--no-daemon",), kind="flag", commands=frozenset({"run", "mcp"}),
        help="Accepted for upstream's scripts; no effect: every run here is in-process, there is no daemon."),
    SessionOption(
        "all_devices", ("--all-devices",), kind="flag", commands=frozenset({"run"}),
        help="Run each trail on every platform it declares (its devices: and recording classifiers) that an "
             "installed driver drives, one result per device; not with -d."),
    SessionOption(
        "llm_provider", ("--llm-provider",), metavar="PROVIDER", commands=frozenset({"run"}),
        help="Upstream's split --llm: the provider (with --llm-model: PROVIDER/MODEL; alone: its default model)."),
    SessionOption(
        "llm_model", ("--llm-model",), metavar="MODEL", commands=frozenset({"run"}),
        help="Upstream's split --llm: the model (alone: the one configured provider that offers it)."),
    SessionOption(
        "capture_video", ("--capture-video/--no-capture-video",), kind="switch", commands=frozenset({"run"}),
        help="Record a video of every trail (drivers with a 'video' setting: web) or none; default: the setting."),
    SessionOption(
        "capture_network", ("--capture-network/--no-capture-network",), kind="switch", commands=frozenset({"run"}),
        help="Keep every trail's network and console log (drivers with an 'evidence' setting: web) or none; "
             "default: the setting (kept for failed attempts)."),
    SessionOption(
        "capture_logcat", ("--capture-logcat/--no-capture-logcat",), kind="switch", commands=frozenset({"run"}),
        help="Android: save logcat (device_logs) for a failed attempt, or not."),
    SessionOption(
        "capture_ios_logs", ("--capture-ios-logs/--no-capture-ios-logs",), kind="switch",
        commands=frozenset({"run"}), help="iOS: save the device syslog (device_logs) for a failed attempt, or not."),
    SessionOption(
        "capture_all", ("--capture-all",), kind="flag", commands=frozenset({"run"}),
        help="All of --capture-video, --capture-network, --capture-logcat and --capture-ios-logs."),
    SessionOption(
        "unified_recordings", ("--unified-recordings/--no-unified-recordings",), kind="switch",
        commands=frozenset({"run"}),
        help="Upstream's default, and the only way here: recordings are saved into the trail file itself."),
    SessionOption(
        "markdown", ("--markdown",), kind="flag", commands=frozenset({"run"}),
        help="Also write a Markdown summary of the run (reports/trailblaze_summary_*.md in the output directory)."),
)
"""Every session option; ``session_options(command)`` keeps this order in ``--help``."""

UPSTREAM_ONLY = frozenset({"headless", "verbose", "no_daemon", "llm_provider", "llm_model", "capture_video",
                           "capture_network", "capture_logcat", "capture_ios_logs", "capture_all",
                           "unified_recordings"})
"""Rows that set no option of their own: ``fold_upstream_flags`` turns them into the options that mean it."""

CAPTURE_STREAMS = ("video", "network", "logcat", "ios_logs")


def fold_upstream_flags(values: dict[str, Any]) -> dict[str, Any]:
    """Upstream's flags in the terms of ours: ``--no-headless`` is ``headed``, ``--llm-provider``/``--llm-model``
    one ``llm`` reference, ``-v`` the ``--debug`` tracebacks, the ``--capture-*`` switches one ``capture`` map
    (stream → on/off, applied to the driver settings that mean it); ``--no-daemon`` means nothing here."""
    from ..errors import BadInputError

    if not UPSTREAM_ONLY & values.keys():
        return values
    if values.pop("headless", None) is False:
        values["headed"] = True
    if values.pop("verbose", False):
        from .shared import enable_debug

        enable_debug()
    values.pop("no_daemon", None)
    provider, model = values.pop("llm_provider", None), values.pop("llm_model", None)
    if provider or model:
        if values.get("llm"):
            raise BadInputError("--llm and --llm-provider/--llm-model name the model twice",
                                hint="give --llm PROVIDER/MODEL, or the two upstream flags")
        values["llm"] = f"{provider}/{model}" if provider and model else (provider or model)
    capture_all = values.pop("capture_all", False)
    capture: dict[str, bool] = {}
    for stream in CAPTURE_STREAMS:
        given = values.pop(f"capture_{stream}", None)
        if given is not None:
            capture[stream] = given
        elif capture_all:
            capture[stream] = True
    if capture:
        values["capture"] = capture
    if values.pop("unified_recordings", None) is False:
        raise BadInputError("--no-unified-recordings: recordings here are saved into the trail file only "
                            "(upstream's default); legacy <classifier>.trail.yaml files are read but never written",
                            hint="drop the flag, or --no-save-recording to save nothing")
    return values


def options_for(command: str) -> list[SessionOption]:
    return [row.for_command(command) for row in SESSION_OPTIONS if command in row.commands]


def session_options(command: str) -> Callable[[F], F]:
    """Decorate a click command with the session options ``command`` takes (in the table's order)."""

    def decorate(fn: F) -> F:
        for row in reversed(options_for(command)):
            fn = row.click_option()(fn)
        return fn

    return decorate


def session_values(command: str, params: dict[str, Any]) -> dict[str, Any]:
    """Take the session options out of a command's click ``params``; returns them by field name, parsed."""
    values = {row.field: row.convert(params.pop(row.param), row.long_flag) for row in options_for(command)}
    return fold_upstream_flags(fold_secret_sources(values, "--secret-env", "--secrets-file"))


def fold_secret_sources(values: dict[str, Any], env_flag: str, file_flag: str) -> dict[str, Any]:
    """``secret_env`` and ``secrets_files`` read into ``secrets`` (files, then the environment, then the
    ``--secret`` pairs): every consumer sees one ``secrets`` map, redacted the same way."""
    if "secret_env" not in values and "secrets_files" not in values:
        return values
    from ..secret_sources import gather_secrets

    values["secrets"] = gather_secrets(pairs=values.get("secrets"), env_names=values.pop("secret_env", ()),
                                       files=values.pop("secrets_files", ()), env_flag=env_flag, file_flag=file_flag)
    return values


def pytest_rows() -> list[SessionOption]:
    return [row for row in SESSION_OPTIONS if row.pytest_flag]


def add_pytest_options(group: pytest.OptionGroup) -> None:
    """The pytest plugin's ``--trailblaze-*`` session flags, from the same rows."""
    for row in pytest_rows():
        assert row.pytest_flag is not None
        text = row.pytest_help or f"{row.help} (as trailblaze run {row.long_flag})"
        kwargs: dict[str, Any] = {"help": text.replace("%", "%%"), "default": pytest_default(row)}
        if row.kind in ("pairs", "driver_options", "list", "many"):
            kwargs.update(action="append", metavar=row.metavar)
        elif row.kind in ("flag", "off", "switch"):
            kwargs.update(action="store_true")
        else:
            kwargs.update(metavar=row.metavar)
            if row.choices:
                kwargs.update(choices=list(row.choices))
        group.addoption(row.pytest_flag, **kwargs)
        if row.kind == "switch":  # the way back: --trailblaze-no-x sets the same value to False
            group.addoption(row.pytest_flags[1], action="store_false", dest=row.pytest_dest, default=None,
                            help=f"The opposite of {row.pytest_flag}.")


def pytest_default(row: SessionOption) -> Any:
    """What pytest hands over for a ``--trailblaze-*`` flag the user did not give."""
    if row.kind in ("pairs", "driver_options", "list", "many"):
        return []
    if row.kind in ("flag", "off"):
        return False
    return None


def pytest_session_values(getoption: Callable[[str], Any]) -> dict[str, Any]:
    """What the pytest flags say, by field name, parsed (a bad value names the ``--trailblaze-*`` flag)."""
    out: dict[str, Any] = {}
    for row in pytest_rows():
        assert row.pytest_flag is not None
        out[row.field] = row.convert(getoption(row.pytest_dest), row.pytest_flag)
    return fold_secret_sources(out, "--trailblaze-secret-env", "--trailblaze-secrets-file")


def _count(raw: Any, flag: str, kind: type[int] | type[float]) -> int | float:
    """A number of 0 or more (pytest hands over text); anything else is bad input naming ``flag``."""
    from ..errors import BadInputError

    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise BadInputError(f"{flag} expects a number, got '{raw}'") from None
    if value < 0:
        raise BadInputError(f"{flag} must be 0 or more, got {raw}")
    return value


def parse_kv(values: Iterable[str], flag: str) -> dict[str, str]:
    """``KEY=VALUE`` items into a dict; anything else is bad input naming ``flag``."""
    from ..errors import BadInputError

    out: dict[str, str] = {}
    for item in values:
        if "=" not in item:
            raise BadInputError(f"{flag} expects KEY=VALUE, got '{item}'")
        key, value = item.split("=", 1)
        if not key.strip():
            raise BadInputError(f"{flag} expects KEY=VALUE, got '{item}'")
        out[key.strip()] = value
    return out


def parse_driver_options(values: Iterable[str], flag: str = "--driver-option") -> dict[str, Any]:
    """``-o headless=false -o viewport.width=800``: YAML scalars, dotted keys build nested maps."""
    from ..yamlio import load_fast

    out: dict[str, Any] = {}
    for key, raw in parse_kv(values, flag).items():
        try:
            value = load_fast(raw) if raw.strip() else ""
        except Exception:  # noqa: BLE001
            value = raw
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out
