"""The catalog loader's parts, each built alone with what it needs: the reader (watches and located
errors), the entries (each file once, each id once), the trailmap loader and the workspace loader."""

from __future__ import annotations

import os
from pathlib import Path

from trailblaze.config import WorkspaceConfig, load_workspace
from trailblaze.plugins import PluginHost
from trailblaze.tools.base import ToolSource
from trailblaze_yaml_tools.catalog_model import Catalog, Target
from trailblaze_yaml_tools.entries import CatalogEntries
from trailblaze_yaml_tools.models import TargetConfig
from trailblaze_yaml_tools.reading import CatalogReader
from trailblaze_yaml_tools.trailmap_loading import TrailmapLoader
from trailblaze_yaml_tools.workspace_loading import WorkspaceLoader

SOURCE = ToolSource(plugin="yaml_tools")
TOOL = ("id: {name}\ndescription: Do {name}.\nparameters: []\n"
        "tools:\n  - rememberValue: {{variable: x, value: y}}\n")


def _parts(config: WorkspaceConfig, host: PluginHost) -> tuple[Catalog, CatalogReader, CatalogEntries]:
    catalog = Catalog(root=config.root)
    reader = CatalogReader(catalog)
    return catalog, reader, CatalogEntries(catalog, reader, config, host, SOURCE)


def test_the_reader_records_what_it_read_and_one_located_error_per_bad_file(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("a: 1\n")
    bad.write_text("a: [1\n")
    catalog = Catalog(root=tmp_path)
    reader = CatalogReader(catalog)

    assert reader.read(good) == ("a: 1\n", {"a": 1})
    assert reader.read(bad) is None
    assert reader.watch(tmp_path / "missing.yaml") is None

    assert list(reader.deps) == [os.fspath(good), os.fspath(bad), os.fspath(tmp_path / "missing.yaml")]
    [error] = catalog.errors
    assert "bad.yaml" in str(error)


def test_the_entries_load_a_tool_file_once_and_refuse_a_second_target_with_the_same_id(
        write, host: PluginHost) -> None:
    root = write({"trails/config/extra/app_go.tool.yaml": TOOL.format(name="app_go")})
    config = load_workspace(root, host)
    catalog, _, entries = _parts(config, host)
    tool = root / "trails" / "config" / "extra" / "app_go.tool.yaml"

    entries.load_tool_file(tool, None)
    entries.load_tool_file(tool, None)
    target = Target("shop", TargetConfig(display_name="Shop"), None, None)
    entries.add_target(target, None, ())
    entries.add_target(target, None, ())

    assert [d.name for d in catalog.definitions] == ["app_go"]
    assert catalog.files == 1
    assert list(catalog.targets) == ["shop"]
    [error] = catalog.errors
    assert "target 'shop' is defined twice" in str(error)


def test_the_trailmap_loader_skips_a_trailmap_whose_dependency_is_missing(write, host: PluginHost) -> None:
    root = write({
        "trails/config/trailmaps/app/trailmap.yaml": "id: app\n",
        "trails/config/trailmaps/app/tools/app_go.tool.yaml": TOOL.format(name="app_go"),
        "trails/config/trailmaps/lost/trailmap.yaml": "id: lost\ndependencies: [nowhere]\n",
        "trails/config/trailmaps/lost/tools/lost_go.tool.yaml": TOOL.format(name="lost_go"),
    })
    config = load_workspace(root, host)
    catalog, reader, entries = _parts(config, host)

    TrailmapLoader(catalog, reader, entries, config, host, SOURCE).load()

    names = {d.name for d in catalog.definitions}
    assert "app_go" in names and "lost_go" not in names
    assert catalog.trailmaps["app"].tool_names == ["app_go"]
    assert catalog.trailmaps["lost"].skipped == "it depends on 'nowhere', which no trailmap provides"
    assert [a.check for a in catalog.advisories] == ["TrailmapDependencies"]
    assert not catalog.errors
    assert os.fspath(root / "trails" / "config" / "trailmaps") in reader.deps


def test_the_workspace_loader_reads_trailblaze_yaml_and_names_an_unknown_enabled_target(
        write, host: PluginHost) -> None:
    root = write({
        "trails/config/trailblaze.yaml": (
            "toolsets:\n  - {id: basics, description: Basics, tools: [ws_go]}\n"
            "tools:\n  - id: ws_go\n    description: Go.\n    parameters: []\n"
            "    tools:\n      - rememberValue: {variable: x, value: y}\n"
            "targets: [shop, nowhere]\n"),
        "trails/config/targets/shop.yaml": "id: shop\ndisplay_name: Shop\n",
    })
    config = load_workspace(root, host)
    catalog, reader, entries = _parts(config, host)

    WorkspaceLoader(catalog, reader, entries, config, host, SOURCE).load()

    assert [d.name for d in catalog.definitions] == ["ws_go"]
    assert list(catalog.toolsets) == ["basics"]
    assert list(catalog.targets) == ["shop"]
    assert catalog.enabled_targets == ["shop", "nowhere"]
    [error] = catalog.errors
    assert "target 'nowhere' is not defined by any trailmap or targets/ file (known: shop)" in str(error)
