"""Driver settings a driver marks as reaching the host, and which client-given values they refuse."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from trailblaze.driver import DriverConfig
from trailblaze.host_settings import HOST_KEY, HostKind, host_setting, host_settings, refused_settings


class TerminalConfig(DriverConfig):
    """A third-party driver's settings: the program it runs, its arguments, a file it reads."""

    program: str = Field("bash", json_schema_extra=host_setting(HostKind.PROGRAM))
    args: list[str] = Field(default_factory=list, json_schema_extra=host_setting(HostKind.COMMAND_LINE))
    script: str | None = Field(None, alias="script_file", json_schema_extra=host_setting(HostKind.PATH))
    search_dirs: list[str] = Field(default_factory=list, json_schema_extra=host_setting(HostKind.PATH))
    columns: int = 80


def test_marks_are_read_by_name_and_alias_and_show_in_the_schema() -> None:
    assert host_settings(TerminalConfig) == {"program": HostKind.PROGRAM, "args": HostKind.COMMAND_LINE,
                                             "script": HostKind.PATH, "script_file": HostKind.PATH,
                                             "search_dirs": HostKind.PATH}
    assert TerminalConfig.model_json_schema()["properties"]["program"][HOST_KEY] == "program"


def test_paths_inside_the_workspace_pass_and_the_rest_reaching_the_host_is_refused(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "escape").symlink_to("/etc")
    allowed = {"columns": 120, "script_file": "scripts/setup.sh", "program": "", "args": []}
    assert refused_settings(TerminalConfig, allowed, tmp_path) == []
    assert refused_settings(TerminalConfig, {"script": str(tmp_path / "scripts" / "x.sh")}, tmp_path) == []
    assert refused_settings(TerminalConfig, {"search_dirs": ["scripts", "."]}, tmp_path) == []
    (line,) = refused_settings(TerminalConfig, {"search_dirs": ["scripts", "/"]}, tmp_path)
    assert line.startswith("'search_dirs' (a path outside the workspace")
    refused = {
        "program": "names a program", "args": "names a command line",
    }
    for key, why in refused.items():
        value = ["x"] if key == "args" else "x"
        assert refused_settings(TerminalConfig, {key: value}, tmp_path) == [f"'{key}' ({why})"]
    for value, why in [("../x.sh", "outside the workspace"), ("/etc/passwd", "outside the workspace"),
                       ("escape/passwd", "outside the workspace"), ("~/x.sh", "home-directory"),
                       ("$HOME/x.sh", "environment reference"), ("https://h/x.sh", "URL")]:
        (line,) = refused_settings(TerminalConfig, {"script": value}, tmp_path)
        assert line.startswith("'script' (") and why in line, (value, line)
