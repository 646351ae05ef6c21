"""The workspace catalog is cached between invocations, and the cache is never wrong.

Each test loads the catalog the way a new ``trailblaze`` process would (a fresh ``WorkspaceConfig`` and
host), so only the on-disk cache can carry anything over. Edits, new and removed files, a changed
plugin set and a corrupt cache file must each give the same catalog a cold load gives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trailblaze_yaml_tools.plugin as yaml_plugin
from trailblaze.config import load_workspace
from trailblaze.plugins import PluginHost
from trailblaze.testing import new_host
from trailblaze.tools.base import ToolSource
from trailblaze_yaml_tools import catalog as catalog_module
from trailblaze_yaml_tools.cache import cache_file
from trailblaze_yaml_tools.catalog import Catalog, load_catalog

TOOL = """\
id: {name}
description: {description}
parameters:
  - {{name: email, type: string, description: Account email}}
  - {{name: zip, type: string, required: false, default: 00123}}
tools:
  - rememberValue: {{variable: lastEmail, value: "{{{{params.email}}}}"}}
"""


def fresh_host() -> PluginHost:
    host = new_host()
    host.register(yaml_plugin, "yaml_tools")
    return host


def load(root: Path, host: PluginHost | None = None) -> Catalog:
    """The catalog as a new process sees it."""
    host = host or fresh_host()
    return load_catalog(load_workspace(root, host), host, ToolSource(plugin="yaml_tools"))


def descriptions(catalog: Catalog) -> dict[str, str]:
    return {d.name: d.description for d in catalog.definitions if d.trailmap == "app"}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    tools = root / "trails" / "config" / "trailmaps" / "app" / "tools"
    tools.mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    for name in ("app_login", "app_logout"):
        (tools / f"{name}.tool.yaml").write_text(TOOL.format(name=name, description=f"Do {name}."))
    return root


@pytest.fixture
def no_cold_load(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make a cold load impossible: only the cache can answer."""
    def refuse(self: Any) -> Catalog:
        raise AssertionError("the catalog was loaded from the files, not from the cache")

    def apply() -> None:
        monkeypatch.setattr(catalog_module._Loader, "load", refuse)

    return apply


def test_an_unchanged_workspace_is_answered_from_the_cache(workspace: Path, no_cold_load: Any) -> None:
    cold = load(workspace)
    assert cache_file(load_workspace(workspace)) == workspace / ".trailblaze" / "cache" / "catalog.pickle"
    assert (workspace / ".trailblaze" / "cache" / "catalog.pickle").is_file()
    assert (workspace / ".trailblaze" / ".gitignore").read_text().splitlines()[-1] == "*"
    no_cold_load()
    warm = load(workspace)
    assert descriptions(warm) == descriptions(cold) == {"app_login": "Do app_login.", "app_logout": "Do app_logout."}
    tool = next(d for d in warm.definitions if d.name == "app_login")
    schema = tool.parameters()
    assert schema is not None
    # the parameters themselves are parsed again on first use, with the text as written ("00123")
    assert schema.validate({"email": "a@b.c"}) == {"email": "a@b.c", "zip": "00123"}
    assert [c for c in tool.calls(tool.prepare({"email": "a@b.c"}))][0].args == {"variable": "lastEmail",
                                                                                 "value": "a@b.c"}


def test_an_edit_is_seen_even_right_after_the_cache_was_written(workspace: Path) -> None:
    load(workspace)
    tool = workspace / "trails" / "config" / "trailmaps" / "app" / "tools" / "app_login.tool.yaml"
    stat = tool.stat()
    # same size, and the old mtime put back: only the content (and the ctime) differ
    tool.write_text(TOOL.format(name="app_login", description="Do app_LOGIN."))
    os.utime(tool, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert tool.stat().st_size == stat.st_size
    assert descriptions(load(workspace))["app_login"] == "Do app_LOGIN."


def test_added_and_removed_files_are_seen(workspace: Path) -> None:
    load(workspace)
    tools = workspace / "trails" / "config" / "trailmaps" / "app" / "tools"
    (tools / "app_logout.tool.yaml").unlink()
    (tools / "nested").mkdir()
    (tools / "nested" / "app_signup.tool.yaml").write_text(TOOL.format(name="app_signup", description="Sign up."))
    assert sorted(descriptions(load(workspace))) == ["app_login", "app_signup"]
    (tools / "nested" / "app_extra.tool.yaml").write_text(TOOL.format(name="app_extra", description="More."))
    assert sorted(descriptions(load(workspace))) == ["app_extra", "app_login", "app_signup"]


def test_a_new_trailmap_manifest_and_a_config_edit_are_seen(workspace: Path) -> None:
    load(workspace)
    (workspace / "trails" / "config" / "trailmaps" / "app" / "trailmap.yaml").write_text("id: app\n")
    assert load(workspace).trailmaps["app"].manifest is not None
    (workspace / "trails" / "config" / "trailblaze.yaml").write_text(
        "defaults: {}\ntools:\n  - id: inline_tool\n    description: Inline.\n    parameters: []\n"
        "    tools:\n      - wait: {timeToWaitInSeconds: 0}\n")
    assert "inline_tool" in {d.name for d in load(workspace).definitions}


def test_a_different_plugin_set_does_not_use_the_cache(workspace: Path, no_cold_load: Any) -> None:
    load(workspace)
    host = fresh_host()

    class Extra:
        pass

    host.register(Extra(), "extra-plugin")
    no_cold_load()
    with pytest.raises(AssertionError, match="not from the cache"):
        load(workspace, host)


def test_a_corrupt_cache_is_ignored_and_rewritten(workspace: Path) -> None:
    expected = descriptions(load(workspace))
    cache = workspace / ".trailblaze" / "cache" / "catalog.pickle"
    good = cache.read_bytes()
    for broken in (b"", b"garbage", good[: len(good) // 2], good[:-7] + b"\x00" * 7,
                   good.replace(b"trailblaze-catalog-cache", b"trailblaze-catalog-cachf")):
        cache.write_bytes(broken)
        assert descriptions(load(workspace)) == expected
        assert cache.read_bytes()[:24] == good[:24]


def test_broken_workspaces_and_script_tools_are_not_cached(write: Any, tmp_path: Path) -> None:
    root = write({"trails/config/trailmaps/app/tools/bad.tool.yaml": "id: bad\n"}, root=tmp_path / "bad")
    assert load(root).errors
    assert not (root / ".trailblaze").exists()
    root = write({"trails/config/trailmaps/app/tools/s.tool.yaml": "id: s\ndescription: d\nparameters: []\n"
                  "script: ./s.py\n", "trails/config/trailmaps/app/tools/s.py": "print()\n"},
                 root=tmp_path / "script")
    load(root)
    assert not (root / ".trailblaze" / "cache" / "catalog.pickle").exists()


def test_the_cache_can_be_turned_off(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_NO_CATALOG_CACHE", "1")
    load(workspace)
    assert not (workspace / ".trailblaze").exists()


def test_check_in_a_new_process_sees_an_edit_made_after_a_cached_run(workspace: Path) -> None:
    (workspace / "trails" / "t.trail.yaml").write_text(
        "trail:\n  - step: go\n    recording:\n      host:\n        - app_login: {email: a@b.c}\n")

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "trailblaze.cli", "check", "trails/t.trail.yaml"], cwd=workspace,
                              capture_output=True, text=True, timeout=120, check=False)

    first = check()
    assert first.returncode == 0, first.stdout + first.stderr
    assert (workspace / ".trailblaze" / "cache" / "catalog.pickle").is_file()
    assert check().returncode == 0
    tool = workspace / "trails" / "config" / "trailmaps" / "app" / "tools" / "app_login.tool.yaml"
    tool.write_text(tool.read_text().replace("name: email", "name: mail"))
    edited = check()
    assert edited.returncode == 3, edited.stdout + edited.stderr
    assert "email" in edited.stdout + edited.stderr


def test_a_cached_tool_with_values_marshal_cannot_hold_still_expands(tmp_path: Path, no_cold_load: Any) -> None:
    """Bodies and raw parameters are cached as marshal bytes; a YAML timestamp takes the pickle fallback."""
    root = tmp_path / "ws"
    tools = root / "trails" / "config" / "trailmaps" / "app" / "tools"
    tools.mkdir(parents=True)
    (root / "trails" / "config" / "trailblaze.yaml").write_text("defaults: {}\n")
    (tools / "app_stamp.tool.yaml").write_text(
        "id: app_stamp\ndescription: Stamp.\nparameters:\n  - {name: note, type: string}\n"
        "tools:\n  - rememberValue: {variable: when, value: 2001-12-14, note: '{{params.note}}'}\n")
    cold = load(root)
    no_cold_load()
    warm = load(root)
    for catalog in (cold, warm):
        [tool] = [d for d in catalog.definitions if d.name == "app_stamp"]
        [call] = tool.expand(tool.prepare({"note": "n"}))
        assert str(call["rememberValue"]["value"]) == "2001-12-14" and call["rememberValue"]["note"] == "n"
    # a catalog read back from the cache pickles again (as a worker process hand-off would)
    import pickle
    again = pickle.loads(pickle.dumps(warm))
    [tool] = [d for d in again.definitions if d.name == "app_stamp"]
    assert tool.parameters().validate({"note": "x"}) == {"note": "x"}


PLANTED = """\
import os, pickle, sys
class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[2],))
magic = b"trailblaze-catalog-cache\\n"
blob = pickle.dumps(Payload())
# Every layout the reader might accept: bare after the magic, and behind a made-up MAC.
with open(sys.argv[1], "wb") as fh:
    fh.write(magic + b"\\0" * 32 + blob if sys.argv[3] == "mac" else magic + blob)
"""


@pytest.mark.parametrize("layout", ["bare", "mac"])
def test_a_planted_cache_file_never_runs_code_on_check(workspace: Path, tmp_path: Path, layout: str) -> None:
    """A cache file someone else wrote (a cloned repository can hold one) is not unpickled: it carries no
    valid MAC under this user's key."""
    (workspace / "trails" / "t.trail.yaml").write_text(
        "trail:\n  - step: go\n    recording:\n      host:\n        - app_login: {email: a@b.c}\n")
    cache = workspace / ".trailblaze" / "cache" / "catalog.pickle"
    cache.parent.mkdir(parents=True)
    marker = tmp_path / "ran"
    subprocess.run([sys.executable, "-c", PLANTED, str(cache), str(marker), layout], check=True, timeout=60)
    checked = subprocess.run([sys.executable, "-m", "trailblaze.cli", "check", "trails/t.trail.yaml"],
                             cwd=workspace, capture_output=True, text=True, timeout=120, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert not marker.exists()
    assert cache.read_bytes().startswith(b"trailblaze-catalog-cache\n")  # rewritten, by us
    assert b"system" not in cache.read_bytes()


def test_the_cache_key_is_owner_only_and_a_readable_key_disables_the_cache(
        workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trailblaze_yaml_tools import cache as cache_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(cache_module, "_KEY", [])
    load(workspace)
    key = tmp_path / "xdg" / "trailblaze" / "cache.key"
    assert key.stat().st_mode & 0o777 == 0o600 and key.stat().st_size == 32
    assert (workspace / ".trailblaze" / "cache" / "catalog.pickle").is_file()

    key.chmod(0o644)  # others could forge a MAC with it: no cache at all
    monkeypatch.setattr(cache_module, "_KEY", [])
    (workspace / ".trailblaze" / "cache" / "catalog.pickle").unlink()
    load(workspace)
    assert not (workspace / ".trailblaze" / "cache" / "catalog.pickle").exists()
