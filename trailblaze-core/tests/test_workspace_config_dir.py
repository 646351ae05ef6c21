"""``--workspace`` names a workspace by its root or by its config directory (``<root>/trails/config``), as
upstream's README passes it (``trailblaze check --workspace examples/wikipedia/trails/config``) and as
``TRAILBLAZE_CONFIG_DIR`` names it; upstream's wikipedia workspace is checked that way in
``tests/test_upstream_wikipedia_workspace.py``."""

from __future__ import annotations

from pathlib import Path

from trailblaze.config import load_workspace, workspace_root


def test_the_config_directory_names_its_workspace(tmp_path: Path) -> None:
    config = tmp_path / "ws" / "trails" / "config"
    config.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("defaults:\n  driver: host\n")
    assert workspace_root(config) == (tmp_path / "ws").resolve()
    assert workspace_root(tmp_path / "ws") == tmp_path / "ws"
    ws = load_workspace(config)
    assert ws.root == (tmp_path / "ws").resolve()
    assert ws.file == (tmp_path / "ws" / "trails" / "config" / "trailblaze.yaml").resolve()
    assert ws.defaults.driver == "host"


def test_a_directory_that_only_holds_a_trailblaze_yaml_is_not_taken_for_a_config_directory(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "trailblaze.yaml").write_text("defaults:\n  driver: host\n")
    assert workspace_root(other) == other
    assert load_workspace(other).file is None
