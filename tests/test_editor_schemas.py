"""``trailblaze schema`` output validates every example trail, tool file, trailmap, toolset and
``trailblaze.yaml`` in the repository with a real JSON Schema validator, and a wrong key fails with its path."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from trailblaze.config import find_workspace
from trailblaze.plugins import PluginHost
from trailblaze.testing import installed_host, new_host, run_cli
from trailblaze.testing.offline import link_node_modules
from trailblaze.yamlio import load_fast

REPO = Path(__file__).resolve().parents[1]
NODE_BIN = REPO / ".tools" / "node" / "node_modules" / ".bin"
NODE_MODULES = REPO / ".tools" / "node" / "node_modules"
SKIP_DIRS = {".venv", ".tools", "node_modules", "logs", "__pycache__", "tests"}
DEFAULT_WORKSPACE = REPO / "examples" / "web-shop"


def kind_of(path: Path) -> str | None:
    name = path.name
    if name.endswith(".trail.yaml") or name == "trail.yaml":
        return "trail"
    if name == "trailblaze.yaml":
        return "workspace"
    if name == "trailmap.yaml":
        return "trailmap"
    if path.parent.name == "toolsets":
        return "toolset"
    if name.endswith((".tool.yaml", ".shortcut.yaml", ".trailhead.yaml")):
        return "tool"
    return None


def example_files() -> list[Path]:
    roots = [REPO / "examples", *sorted(REPO.glob("trailblaze-*/src"))]
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.yaml")):
            if not SKIP_DIRS.intersection(path.relative_to(REPO).parts) and kind_of(path) is not None:
                found.append(path)
    return found


@pytest.fixture(scope="module")
def host() -> Iterator[PluginHost]:
    """Every installed plugin (as `trailblaze` itself loads them), with bun/tsx for the TypeScript server."""
    path = os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")])
    if not shutil.which("bun", path=path) and not (shutil.which("node", path=path) and shutil.which("tsx", path=path)):
        pytest.skip("the mcp-tools example's TypeScript server needs bun or node + tsx (scripts/bootstrap.sh)")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", path)
        link_node_modules(REPO, NODE_MODULES)  # as scripts/bootstrap.sh does: the example server's SDK
        h = new_host(load_entrypoints=True)
        with installed_host(h):
            yield h


@pytest.fixture(scope="module")
def schemas(host: PluginHost, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """``schemas(workspace)`` → ``{kind: schema}``, written by `trailblaze schema --out` once per workspace."""
    cache: dict[Path, dict[str, Any]] = {}
    out_root = tmp_path_factory.mktemp("schemas")

    def get(workspace: Path) -> dict[str, Any]:
        if workspace not in cache:
            out = out_root / str(len(cache))
            result = run_cli(["schema", "--workspace", str(workspace), "--out", str(out)], host=host)
            assert result.exit_code == 0, result.output
            cache[workspace] = {p.name.removesuffix(".schema.json"): json.loads(p.read_text())
                                for p in out.glob("*.schema.json")}
            for schema in cache[workspace].values():
                jsonschema.Draft7Validator.check_schema(schema)
        return cache[workspace]

    return get


def errors(schema: dict[str, Any], data: Any) -> list[str]:
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:300]}"
            for e in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))]


def test_every_kind_is_emitted(schemas: Any) -> None:
    assert sorted(schemas(DEFAULT_WORKSPACE)) == ["tool", "toolset", "trail", "trailmap", "workspace"]


def test_every_example_file_validates(schemas: Any) -> None:
    files = example_files()
    kinds = {kind_of(f) for f in files}
    assert kinds == {"trail", "tool", "trailmap", "toolset", "workspace"} and len(files) >= 30, files
    problems = []
    for path in files:
        workspace = find_workspace(path) or DEFAULT_WORKSPACE
        schema = schemas(workspace)[kind_of(path)]
        data = load_fast(path.read_text(encoding="utf-8"), path)
        problems += [f"{path.relative_to(REPO)}: {e}" for e in errors(schema, data)]
    assert problems == []


def test_tool_calls_are_typed_from_the_installed_tools(schemas: Any) -> None:
    trail = schemas(DEFAULT_WORKSPACE)["trail"]
    web_click = trail["$defs"]["toolCall"]["properties"]["web_click"]
    assert "ref" in web_click["properties"] and web_click["description"].startswith("Click")
    tool = schemas(DEFAULT_WORKSPACE)["tool"]
    assert "web_click" in tool["$defs"]["toolCall"]["properties"]  # a YAML tool's body is typed the same way


def _sign_in() -> str:
    return (DEFAULT_WORKSPACE / "trails" / "sign-in.trail.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(("change", "path", "message"), [
    (("    recording:", "    recordng:"), "trail/0", "'recordng' was unexpected"),
    (("- web_navigate:", "- web_navigat:"), "trail/0/recording/web/0", "'web_navigat' was unexpected"),
    (("web_navigate: {url:", "web_navigate: {uri:"), "trail/0/recording/web/0/web_navigate", "'uri' was unexpected"),
    (("  title:", "  titel:"), "config", "'titel' was unexpected"),
])
def test_a_wrong_key_in_a_copy_fails_with_its_path(schemas: Any, change: tuple[str, str], path: str,
                                                    message: str) -> None:
    text = _sign_in()
    old, new = change
    assert old in text
    data = load_fast(text.replace(old, new, 1))
    found = errors(schemas(DEFAULT_WORKSPACE)["trail"], data)
    assert any(e.startswith(f"{path}: ") and message in e for e in found), found


def test_a_wrong_key_in_a_tool_file_and_a_workspace_fail_with_their_paths(schemas: Any) -> None:
    ws = schemas(DEFAULT_WORKSPACE)
    tool = load_fast((DEFAULT_WORKSPACE / "trails/config/trailmaps/shop/tools/shop_login.tool.yaml").read_text())
    tool["parameters"][0]["requried"] = True
    assert any(e.startswith("parameters/0: ") and "'requried' was unexpected" in e for e in errors(ws["tool"], tool))
    config = load_fast((DEFAULT_WORKSPACE / "trails/config/trailblaze.yaml").read_text())
    config["drivers"]["playwright-native"]["timeout"] = 5
    assert any(e.startswith("drivers/playwright-native: ") and "'timeout' was unexpected" in e
               for e in errors(ws["workspace"], config))


def test_schema_prints_one_kind_and_asks_when_given_nothing(host: PluginHost) -> None:
    one = run_cli(["schema", "toolset", "--workspace", str(DEFAULT_WORKSPACE)], host=host)
    assert one.exit_code == 0, one.output
    assert json.loads(one.stdout)["title"].startswith("Trailblaze toolset")
    nothing = run_cli(["schema", "--workspace", str(DEFAULT_WORKSPACE)], host=host)
    assert nothing.exit_code == 3 and "trailblaze schema --out" in nothing.output
