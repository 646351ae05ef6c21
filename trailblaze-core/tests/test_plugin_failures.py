"""A plugin that loads fine but fails when one of its hooks is called is reported as *that plugin's*
failure: one line naming plugin, distribution, version, hook and error, with the switch that disables
it; exit 2; ``trailblaze plugins`` shows it as ``error``. The case that motivated it: a lazy
``from missing_sdk import ...`` inside ``trailblaze_register_drivers``, through a real installed
distribution and the real console entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trailblaze import hookimpl
from trailblaze.errors import ExitCode, PluginHookError
from trailblaze.plugins import PluginHost
from trailblaze.testing import register_plugin, run_cli

LAZY = '''
from trailblaze import hookimpl

@hookimpl
def trailblaze_register_drivers(registry):
    from missing_sdk import Device  # installed separately, and it is not
    registry.add_driver(Device)
'''

TRAIL = """\
trail:
  - step: wait a moment
    recording:
      host:
        - wait: {timeToWaitInSeconds: 0}
"""

LINE = ("trailblaze: error: plugin 'lazy' (trailblaze-lazy 1.2.0) failed in trailblaze_register_drivers: "
        "ModuleNotFoundError: No module named 'missing_sdk' -- disable it with TRAILBLAZE_DISABLE_PLUGINS=lazy")


@pytest.fixture
def lazy_site(fake_site: Any, tmp_path: Path) -> Any:
    fake_site("trailblaze-lazy", "tb_lazy", LAZY, "lazy", "1.2.0")
    (tmp_path / "t.trail.yaml").write_text(TRAIL)
    return fake_site


def test_a_lazy_import_failing_in_register_drivers_names_the_plugin(lazy_site: Any, trailblaze_cmd: Any,
                                                                     tmp_path: Path) -> None:
    env = {"TRAILBLAZE_LOAD_PLUGINS": "lazy"}
    run = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    assert run.returncode == ExitCode.INFRASTRUCTURE
    assert run.stderr.strip().splitlines() == [LINE]

    listing = trailblaze_cmd(["plugins"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert ("lazy (trailblaze-lazy 1.2.0): error: trailblaze_register_drivers: ModuleNotFoundError: "
            "No module named 'missing_sdk'") in listing.stdout
    as_json = trailblaze_cmd(["plugins", "--json"], pythonpath=lazy_site.path, env=env, cwd=tmp_path)
    (lazy,) = [p for p in json.loads(as_json.stdout) if p["name"] == "lazy"]
    assert lazy["status"].startswith("error: trailblaze_register_drivers: ModuleNotFoundError")

    debug = trailblaze_cmd(["--debug", "run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, env=env,
                           cwd=tmp_path)
    assert debug.returncode == ExitCode.INFRASTRUCTURE
    assert "Traceback" in debug.stderr and "from missing_sdk import Device" in debug.stderr

    strict = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, cwd=tmp_path,
                            env={**env, "TRAILBLAZE_STRICT_PLUGINS": "1"})
    assert strict.returncode == ExitCode.INFRASTRUCTURE and LINE in strict.stderr

    disabled = trailblaze_cmd(["run", "t.trail.yaml", "--no-report"], pythonpath=lazy_site.path, cwd=tmp_path,
                              env={"TRAILBLAZE_LOAD_PLUGINS": "lazy", "TRAILBLAZE_DISABLE_PLUGINS": "lazy"})
    assert disabled.returncode == 0, disabled.stdout + disabled.stderr


class _Descriptors:
    @hookimpl
    def trailblaze_tool_descriptor(self, definition: Any) -> Any:
        raise KeyError("schema")


def test_a_failing_firstresult_hook_is_the_plugins_failure_too(plugin_host: PluginHost, tmp_path: Path) -> None:
    with register_plugin(plugin_host, _Descriptors(), "describer"):
        result = run_cli(["tools"], host=plugin_host, cwd=tmp_path)
        info = plugin_host.info("describer")
    assert result.exit_code == ExitCode.INFRASTRUCTURE
    assert ("trailblaze: error: plugin 'describer' failed in trailblaze_tool_descriptor: KeyError: 'schema' "
            "-- disable it with TRAILBLAZE_DISABLE_PLUGINS=describer") in result.stderr
    assert "Traceback" not in result.output
    assert info is not None and info.status == "error: trailblaze_tool_descriptor: KeyError: 'schema'"


def test_a_plugin_raising_a_trailblaze_error_means_it(plugin_host: PluginHost) -> None:
    """A plugin that raises our own error chose its message; the guard leaves it alone."""
    from trailblaze.driver import DriverRegistry
    from trailblaze.errors import InfrastructureError

    class Deliberate:
        @hookimpl
        def trailblaze_register_drivers(self, registry: Any) -> None:
            raise InfrastructureError("set ACME_HOME first")

    with register_plugin(plugin_host, Deliberate(), "deliberate"):
        with pytest.raises(InfrastructureError, match="set ACME_HOME first") as caught:
            plugin_host.register_drivers(DriverRegistry())
    assert not isinstance(caught.value, PluginHookError)
