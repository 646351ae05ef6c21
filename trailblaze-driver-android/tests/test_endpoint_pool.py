"""A pool of Appium servers, one per worker: ``trailblaze run -n 2 --endpoint URL1 --endpoint URL2`` (or
``endpoints: {android: [URL1, URL2]}`` in trailblaze.yaml) binds each xdist worker to its own Appium
server (the fake driver) and every trail's result names it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from trailblaze.report.bundle import read_bundle
from trailblaze.testing import endpoints_by_worker
from trailblaze_driver_android.appium import server as managed

pytestmark = pytest.mark.appium

TAP_EMAIL = {"tapOnElementBySelector": {"nodeSelector": {
    "androidAccessibility": {"resourceIdRegex": "com.example.fakeshop:id/email"}}}}


def test_two_workers_on_two_appium_servers(appium_env: tuple[str, dict[str, str]],
                                           fake_workspace: Callable[[Path, str | None], Path],
                                           run: Callable[..., Any], tmp_path: Path) -> None:
    binary, _env = appium_env
    servers = [managed.ManagedServer(binary, ()), managed.ManagedServer(binary, ())]
    try:
        for server in servers:
            server.start(timeout=90)
        ws = fake_workspace(tmp_path / "ws", None)  # no server_url: the pool gives each worker its own
        for i in range(4):
            doc = {"config": {"id": f"fake/pool-{i}", "devices": {"android": "ANDROID_ONDEVICE_ACCESSIBILITY"}},
                   "trail": [{"step": "tap the email field", "recording": {"android": [TAP_EMAIL]}}]}
            with open(ws / "trails" / f"pool-{i}.trail.yaml", "w", encoding="utf-8") as fh:
                YAML().dump(doc, fh)
        urls = [str(server.url) for server in servers]
        result = run(["run", "trails", "-n", "2", "--endpoint", urls[0], "--endpoint", urls[1],
                      "--output-dir", "out"], cwd=ws)
        assert result.returncode == 0, result.stdout + result.stderr
        # The same pool in trailblaze.yaml, for the android driver by its platform name.
        config = ws / "trails" / "config" / "trailblaze.yaml"
        config.write_text(config.read_text(encoding="utf-8") + f"endpoints:\n  android: [{urls[0]}, {urls[1]}]\n",
                          encoding="utf-8")
        from_yaml = run(["run", "trails", "-n", "2", "--output-dir", "out-yaml"], cwd=ws)
        assert from_yaml.returncode == 0, from_yaml.stdout + from_yaml.stderr
    finally:
        for server in servers:
            server.stop()
    for out in ("out", "out-yaml"):
        merged = read_bundle(ws / out)
        assert len(merged.records) == 4 and all(r.outcome == "Succeeded" for r in merged.records)
        assert len(endpoints_by_worker(ws / out, urls)) == 2  # one server per worker, none shared
