"""``trailblaze plugin new``'s refusals: a name that cannot be a distribution, a directory in use.
(The generated plugin itself is built, installed and tested in tests/test_plugin_template.py.)"""

from __future__ import annotations

from pathlib import Path

from trailblaze.testing import run_cli


def test_it_writes_every_spelling_of_the_name(tmp_path: Path) -> None:
    result = run_cli(["plugin", "new", "acme-shop", "-o", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    pyproject = (tmp_path / "p/pyproject.toml").read_text()
    assert 'name = "trailblaze-acme-shop"' in pyproject
    assert 'acme_shop = "trailblaze_acme_shop.plugin"' in pyproject
    assert (tmp_path / "p/src/trailblaze_acme_shop/trailmaps/acme_shop/tools/acme_shop_greetTwice.tool.yaml").is_file()
    assert not (tmp_path / "p/src/trailblaze_acme_shop/driver.py").exists()  # only with --driver


def test_a_bad_name_is_bad_input(tmp_path: Path) -> None:
    result = run_cli(["plugin", "new", "Acme Shop", "-o", str(tmp_path / "p")])
    assert result.exit_code == 3
    assert "plugin name 'Acme Shop' is not lower-case words joined by '-'" in result.output
    assert not (tmp_path / "p").exists()


def test_a_directory_in_use_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p/keep.txt").write_text("mine")
    result = run_cli(["plugin", "new", "acme", "-o", str(tmp_path / "p")])
    assert result.exit_code == 3
    assert "already exists and is not an empty directory" in result.output
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["keep.txt"]


def test_a_trailblaze_prefix_is_dropped_not_doubled(tmp_path: Path) -> None:
    result = run_cli(["plugin", "new", "trailblaze-acme", "-o", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    assert "Created trailblaze-acme in" in result.output and "entry point 'acme'" in result.output
    pyproject = (tmp_path / "p/pyproject.toml").read_text()
    assert 'name = "trailblaze-acme"' in pyproject and 'acme = "trailblaze_acme.plugin"' in pyproject
    assert "trailblaze-trailblaze" not in pyproject
    result = run_cli(["plugin", "new", "trailblaze", "-o", str(tmp_path / "q")])
    assert result.exit_code == 3 and "plugin name 'trailblaze' is not lower-case words" in result.output


def test_output_and_hooks_kinds_have_no_tools(tmp_path: Path) -> None:
    for kind, hooks in (("output", ("trailblaze_check_run_outputs", "trailblaze_write_run_outputs")),
                        ("hooks", ("trailblaze_session_started", "trailblaze_session_finished"))):
        target = tmp_path / kind
        result = run_cli(["plugin", "new", f"acme-{kind}", "--kind", kind, "-o", str(target)])
        assert result.exit_code == 0, result.output
        plugin = (target / f"src/trailblaze_acme_{kind}/plugin.py").read_text()
        assert all(f"def {hook}(" in plugin for hook in hooks)
        assert not (target / f"src/trailblaze_acme_{kind}/tools.py").exists()
        assert "yaml-tools" not in (target / "pyproject.toml").read_text()  # only the tools kind needs it


def test_a_driver_goes_with_the_tools_kind_only(tmp_path: Path) -> None:
    result = run_cli(["plugin", "new", "acme", "--kind", "output", "--driver", "-o", str(tmp_path / "p")])
    assert result.exit_code == 3
    assert "--driver goes with --kind tools, not --kind output" in result.output
    assert not (tmp_path / "p").exists()
