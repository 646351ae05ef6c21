"""Every hook goes through pluggy with each contribution credited to its plugin: wrappers
(``wrapper=True``/``hookwrapper=True``) run on every hook, ``tryfirst``/``trylast`` order them, failures
stay the plugin's, and what a plugin gets wrong (an unbuildable tool, a bad or taken tool name, an
unmarked or misspelled hook, an entry-point name two distributions declare) is shown as that plugin's,
through real installed distributions and the real console entry where a user would meet it."""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from trailblaze import hookimpl
from trailblaze.config import WorkspaceConfig
from trailblaze.driver import DriverRegistry
from trailblaze.errors import PluginHookError, PluginToolError
from trailblaze.plugins import PluginHost
from trailblaze.testing import make_session, register_plugin
from trailblaze.tools.registry import ToolRegistry

TRAIL = "trail:\n  - step: wait\n    recording:\n      host:\n        - wait: {timeToWaitInSeconds: 0}\n"

WRAPPING = '''
import sys
from trailblaze import hookimpl, Tool

class PingTool(Tool):
    """Answer pong."""
    name = "wrap_ping"
    def execute(self, ctx):
        return "pong"

@hookimpl(wrapper=True)
def trailblaze_register_tools(registry):
    registry.add_tool(PingTool)
    yield
    print(f"wrapper register_tools saw {len(registry)} tools", file=sys.stderr)

@hookimpl(wrapper=True)
def trailblaze_session_started(session):
    yield
    print("wrapper session_started ran", file=sys.stderr)

@hookimpl(wrapper=True)
def trailblaze_check_tools(registry, report):
    yield
    print("wrapper check_tools ran", file=sys.stderr)
'''


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "trails").mkdir()
    (tmp_path / "trails" / "t.trail.yaml").write_text(TRAIL)
    return tmp_path


def test_wrappers_of_per_plugin_hooks_run_through_a_real_entry_point(fake_site: Any, trailblaze_cmd: Any,
                                                                     tmp_path: Path) -> None:
    fake_site("trailblaze-wrapping", "tb_wrapping", WRAPPING, "wrapping", "1.0.0")
    env = {"TRAILBLAZE_LOAD_PLUGINS": "wrapping"}
    root = _workspace(tmp_path)
    check = trailblaze_cmd(["check", "--strict", "trails/t.trail.yaml"], pythonpath=fake_site.path, env=env, cwd=root)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "wrapper session_started ran" in check.stderr
    assert "wrapper check_tools ran" in check.stderr
    said = [line for line in check.stderr.splitlines() if line.startswith("wrapper register_tools saw")]
    assert said and int(said[0].split()[-2]) > 1  # it wrapped the others' registrations, not only its own
    tools = trailblaze_cmd(["tools", "--json"], pythonpath=fake_site.path, env=env, cwd=root)
    assert tools.returncode == 0, tools.stderr
    (ping,) = [t for t in json.loads(tools.stdout) if t["name"] == "wrap_ping"]
    assert ping["sourceInfo"] == {"plugin": "wrapping", "distribution": "trailblaze-wrapping", "version": "1.0.0"}
    traced = trailblaze_cmd(["tools", "--json"], pythonpath=fake_site.path, cwd=root,
                            env={**env, "TRAILBLAZE_TRACE_PLUGINS": "1"})
    assert "[trailblaze trace] trailblaze_register_tools -> [" in traced.stderr
    assert "wrapping" in next(l for l in traced.stderr.splitlines() if "trailblaze_register_tools -> [" in l)


def test_wrappers_and_order_options_hold_on_the_attributed_hooks(plugin_host: PluginHost, tmp_path: Path) -> None:
    from trailblaze.builtin.tools import WaitTool

    calls: list[str] = []

    class Late:
        @hookimpl(trylast=True)
        def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
            calls.append("late")
            registry.add_tool(WaitTool, name="late_wait")

    class Early:
        @hookimpl(tryfirst=True)
        def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
            calls.append("early")
            registry.add_tool(WaitTool, name="early_wait")

        @hookimpl(hookwrapper=True)
        def trailblaze_register_drivers(self, registry: DriverRegistry) -> Generator[None, Any, None]:
            calls.append("old-style wrapper before")
            yield
            calls.append("old-style wrapper after")

        @hookimpl(wrapper=True)
        def trailblaze_trailmap_dirs(self) -> Generator[None, list[list[Path]], list[list[Path]]]:
            found = yield
            return [*found, [tmp_path / "early_maps"]]

    with register_plugin(plugin_host, Late(), "late"), register_plugin(plugin_host, Early(), "early"):
        registry = ToolRegistry()
        plugin_host.register_tools(registry, WorkspaceConfig(root=tmp_path))
        plugin_host.register_drivers(DriverRegistry())
        dirs = plugin_host.trailmap_dirs()
        early = plugin_host.info("early")
    assert early is not None
    assert calls == ["early", "late", "old-style wrapper before", "old-style wrapper after"]
    assert registry.get("early_wait").source.plugin == "early"
    assert registry.get("late_wait").source.plugin == "late"
    assert registry.get("wait").source.plugin == "builtin.tools"
    assert (early.source, tmp_path / "early_maps") in dirs  # a wrapper's addition is its own


def test_a_wrapper_failing_itself_is_its_plugins_failure(plugin_host: PluginHost, tmp_path: Path) -> None:
    class Broken:
        @hookimpl(wrapper=True)
        def trailblaze_register_tools(self, registry: ToolRegistry) -> Generator[None, None, None]:
            yield
            raise KeyError("oops")

    with register_plugin(plugin_host, Broken(), "broken-wrapper"):
        with pytest.raises(PluginHookError, match="plugin 'broken-wrapper' failed in trailblaze_register_tools: "
                                                  "KeyError: 'oops' -- disable it with TRAILBLAZE_DISABLE_PLUGINS="
                                                  "broken-wrapper"):
            plugin_host.register_tools(ToolRegistry(), WorkspaceConfig(root=tmp_path))


def test_session_finished_wrappers_run_and_failures_stay_isolated(plugin_host: PluginHost, tmp_path: Path) -> None:
    from trailblaze.testing import finish_session

    events: list[str] = []

    class Started:
        """Only a plugin that was started is told the session finished (``runner.lifecycle``)."""

        @hookimpl
        def trailblaze_session_started(self) -> None:
            pass

    class Wrapper(Started):
        @hookimpl(wrapper=True)
        def trailblaze_session_finished(self) -> Generator[None, None, None]:
            events.append("wrapper before")
            yield
            events.append("wrapper after")

    class Fails(Started):
        @hookimpl
        def trailblaze_session_finished(self) -> None:
            events.append("fails")
            raise RuntimeError("cannot clean up")

    class Cleans(Started):
        @hookimpl
        def trailblaze_session_finished(self) -> None:
            events.append("cleans")

    with register_plugin(plugin_host, Cleans(), "cleans"), register_plugin(plugin_host, Fails(), "fails"), \
            register_plugin(plugin_host, Wrapper(), "wrapper"):
        session = make_session(plugin_host, root=tmp_path)
        problems = finish_session(session)
    assert events == ["wrapper before", "cleans", "fails", "wrapper after"]
    assert any("plugin 'fails' failed in trailblaze_session_finished: RuntimeError: cannot clean up" in p
               for p in problems), problems


BAD_MODEL = '''
from trailblaze import hookimpl, Tool

class Opaque:
    pass

class GoodTool(Tool):
    """Fine."""
    name = "acme_good"
    def execute(self, ctx):
        return None

class BadTool(Tool):
    """Cannot be built."""
    name = "acme_bad"
    thing: Opaque
    def execute(self, ctx):
        return None

@hookimpl
def trailblaze_register_tools(registry):
    registry.add_tool(GoodTool)
    registry.add_tool(BadTool)
'''


def test_an_unbuildable_tool_model_is_its_plugins_error(fake_site: Any, trailblaze_cmd: Any, tmp_path: Path) -> None:
    fake_site("trailblaze-acme-bad", "tb_acme_bad", BAD_MODEL, "acmebad", "0.3.0")
    env = {"TRAILBLAZE_LOAD_PLUGINS": "acmebad"}
    root = _workspace(tmp_path)
    strict = trailblaze_cmd(["check", "--strict", "trails/t.trail.yaml"], pythonpath=fake_site.path, env=env, cwd=root)
    assert strict.returncode == 2, strict.stdout + strict.stderr
    line = next(l for l in strict.stderr.splitlines() if "acme_bad" in l)
    assert "tool 'acme_bad'" in line and "plugin 'acmebad' (trailblaze-acme-bad 0.3.0)" in line
    assert "field 'thing' has type Opaque" in line and "arbitrary_types_allowed" not in line
    lenient = trailblaze_cmd(["check", "trails/t.trail.yaml"], pythonpath=fake_site.path, env=env, cwd=root)
    assert lenient.returncode == 0 and "field 'thing'" in lenient.stdout + lenient.stderr
    listing = trailblaze_cmd(["plugins", "--json"], pythonpath=fake_site.path, env=env, cwd=root)
    (acme,) = [p for p in json.loads(listing.stdout) if p["name"] == "acmebad"]
    assert acme["status"].startswith("error: tool 'acme_bad'") and "field 'thing'" in acme["status"]
    tools = trailblaze_cmd(["tools", "--json"], pythonpath=fake_site.path, env=env, cwd=root)
    assert tools.returncode == 2
    assert "acme_good" in {t["name"] for t in json.loads(tools.stdout)}  # the others are still listed
    assert "tool 'acme_bad'" in tools.stderr and "field 'thing'" in tools.stderr


BAD_NAME = '''
from trailblaze import hookimpl, Tool

class BadName(Tool):
    """Colon in the name."""
    name = "acme:bad"
    def execute(self, ctx):
        return None

@hookimpl
def trailblaze_register_tools(registry):
    registry.add_tool(BadName)
'''

TAKEN_NAME = '''
from trailblaze import hookimpl
from trailblaze.builtin.tools import WaitTool

@hookimpl
def trailblaze_register_tools(registry):
    registry.add_tool(WaitTool)  # "wait" is the core's
'''


@pytest.mark.parametrize(("body", "said"), [
    (BAD_NAME, "tool name 'acme:bad' from plugin 'names' (trailblaze-names 0.1.0) is not a valid tool name"),
    (TAKEN_NAME, "tool 'wait' of plugin 'names' (trailblaze-names 0.1.0) is taken: plugin 'builtin.tools'"),
])
def test_a_bad_or_taken_tool_name_is_the_plugins_failure(fake_site: Any, trailblaze_cmd: Any, tmp_path: Path,
                                                         body: str, said: str) -> None:
    fake_site("trailblaze-names", "tb_names", body, "names")
    env = {"TRAILBLAZE_LOAD_PLUGINS": "names"}
    root = _workspace(tmp_path)
    check = trailblaze_cmd(["check", "trails/t.trail.yaml"], pythonpath=fake_site.path, env=env, cwd=root)
    assert check.returncode == 2, check.stdout + check.stderr
    assert said in check.stderr
    listing = trailblaze_cmd(["plugins", "--json"], pythonpath=fake_site.path, env=env, cwd=root)
    (names,) = [p for p in json.loads(listing.stdout) if p["name"] == "names"]
    assert names["status"].startswith("error: ") and said in names["status"]


def test_a_plugin_tool_name_error_in_process_is_a_plugin_tool_error(plugin_host: PluginHost, tmp_path: Path) -> None:
    from trailblaze.builtin.tools import WaitTool

    class Taken:
        @hookimpl
        def trailblaze_register_tools(self, registry: ToolRegistry) -> None:
            registry.add_tool(WaitTool)

    with register_plugin(plugin_host, Taken(), "taken"):
        with pytest.raises(PluginToolError, match="tool 'wait' of plugin 'taken' is taken: plugin 'builtin.tools' .*registered it first"):
            plugin_host.register_tools(ToolRegistry(), WorkspaceConfig(root=tmp_path))


CLASH_A = '''
from trailblaze import hookimpl

@hookimpl
def trailblaze_trailmap_dirs():
    return None
'''


def test_two_distributions_declaring_one_name_are_both_named_and_separable(fake_site: Any, trailblaze_cmd: Any,
                                                                           tmp_path: Path) -> None:
    fake_site("trailblaze-alpha", "tb_alpha", CLASH_A, "shared", "1.0.0")
    fake_site("trailblaze-beta", "tb_beta", CLASH_A, "shared", "2.0.0")
    env = {"TRAILBLAZE_LOAD_PLUGINS": "shared"}
    proc = trailblaze_cmd(["plugins", "--json"], pythonpath=fake_site.path, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [l for l in proc.stderr.splitlines() if "shared" in l]
    assert len(lines) == 1, proc.stderr
    assert "trailblaze-alpha 1.0.0 (loaded) and trailblaze-beta 2.0.0 (not loaded)" in lines[0]
    assert "TRAILBLAZE_DISABLE_PLUGINS=shared@trailblaze-beta" in lines[0]
    rows = [p for p in json.loads(proc.stdout) if p["name"] == "shared"]
    assert {(r["distribution"], r["status"].split(":")[0]) for r in rows} == {("trailblaze-alpha", "ok"),
                                                                              ("trailblaze-beta", "error")}
    separated = trailblaze_cmd(["plugins", "--json"], pythonpath=fake_site.path, cwd=tmp_path,
                               env={**env, "TRAILBLAZE_DISABLE_PLUGINS": "shared@trailblaze-alpha"})
    assert separated.stderr == ""
    rows = {p["distribution"]: p["status"] for p in json.loads(separated.stdout) if p["name"] == "shared"}
    assert rows == {"trailblaze-alpha": "disabled", "trailblaze-beta": "ok"}


UNMARKED = '''
from trailblaze import hookimpl

def trailblaze_register_tools(registry):  # no @hookimpl: pluggy never calls it
    pass

def trailblaze_regster_drivers(registry):  # neither marked nor a hook's name
    pass
'''


def test_unmarked_and_misspelled_hook_functions_are_named(fake_site: Any, trailblaze_cmd: Any, tmp_path: Path) -> None:
    fake_site("trailblaze-unmarked", "tb_unmarked", UNMARKED, "unmarked")
    fake_site("trailblaze-typo", "tb_typo", '''
from trailblaze import hookimpl

@hookimpl
def trailblaze_register_tool(registry):
    pass
''', "typo")
    env = {"TRAILBLAZE_LOAD_PLUGINS": "unmarked,typo"}
    proc = trailblaze_cmd(["plugins"], pythonpath=fake_site.path, env=env, cwd=tmp_path)
    assert ("warning: plugin 'unmarked': function trailblaze_register_tools is not marked @trailblaze.hookimpl, "
            "so it is never called") in proc.stdout
    assert ("function trailblaze_regster_drivers is not marked @trailblaze.hookimpl and names no hook; did you "
            "mean trailblaze_register_drivers?") in proc.stdout
    assert "warning: plugin 'unmarked': function trailblaze_register_tools" in proc.stderr
    assert ("typo (trailblaze-typo 0.1.0): error: PluginValidationError: unknown hook 'trailblaze_register_tool'; "
            "did you mean trailblaze_register_tools?") in proc.stdout


def test_registering_by_hand_under_a_disabled_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """pluggy drops a plugin registered under a blocked name without a word; the host says so instead."""
    from trailblaze.errors import PluginLoadError
    from trailblaze.testing import new_host

    monkeypatch.setenv("TRAILBLAZE_DISABLE_PLUGINS", "acme_timings")
    host = new_host(load_entrypoints=True)

    class Observer:
        pass

    with pytest.raises(PluginLoadError, match="'acme_timings' was not registered: that name is disabled"):
        host.register(Observer(), "acme_timings")
