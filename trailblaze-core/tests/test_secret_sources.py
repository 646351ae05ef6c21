"""``--secret-env`` and ``--secrets-file``: values that never pass through argv, redacted like ``--secret``
ones, and a secrets file every user can read refused before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from trailblaze.testing import run_cli

SECRET = "Tb-file-s3cret-9902"

TRAIL = """\
config: {id: secrets/exec}
trail:
  - step: A setup script prints the password and fails
    recording:
      host:
        - exec: {argv: [sh, -c, "echo the password is {{password}}; exit 3"]}
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "trails" / "config").mkdir(parents=True)
    (ws / "trails" / "config" / "trailblaze.yaml").write_text("{}\n")
    (ws / "trails" / "exec.trail.yaml").write_text(TRAIL)
    return ws


def secrets_file(tmp_path: Path, text: str, name: str = "secrets.yaml", mode: int = 0o600) -> Path:
    path = tmp_path / name
    path.write_text(text)
    path.chmod(mode)
    return path


def run(ws: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = run_cli(["run", "trails", "--output-dir", str(ws / "out"), *args], cwd=ws, env=env)
    return result.exit_code, result.stdout + result.stderr


def leaked(ws: Path) -> list[Path]:
    return [p for p in ws.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


@pytest.mark.parametrize("source", ["env", "env-renamed", "yaml-file", "json-file"])
def test_each_source_reaches_the_trail_and_is_redacted(workspace: Path, tmp_path: Path, source: str) -> None:
    if source == "env":
        code, output = run(workspace, "--secret-env", "password", env={"password": SECRET})
    elif source == "env-renamed":
        code, output = run(workspace, "--secret-env", "password=SHOP_PASSWORD", env={"SHOP_PASSWORD": SECRET})
    elif source == "yaml-file":
        path = secrets_file(tmp_path, f"# kept out of git\npassword: {SECRET}\n")
        code, output = run(workspace, "--secrets-file", str(path))
    else:
        path = secrets_file(tmp_path, f'{{"password": "{SECRET}"}}', name="secrets.json")
        code, output = run(workspace, "--secrets-file", str(path))
    assert code == 1, output
    assert "the password is ***" in output  # the value reached the script, and was masked on the way out
    assert SECRET not in output
    assert leaked(workspace) == []


def test_an_explicit_secret_wins_over_the_file(workspace: Path, tmp_path: Path) -> None:
    path = secrets_file(tmp_path, "password: from-the-file\n")
    code, output = run(workspace, "--secrets-file", str(path), "--secret", f"password={SECRET}")
    assert code == 1 and "the password is ***" in output and "from-the-file" not in output, output


@pytest.mark.parametrize("mode", [0o644, 0o604])
def test_a_world_readable_secrets_file_is_refused(workspace: Path, tmp_path: Path, mode: int) -> None:
    path = secrets_file(tmp_path, f"password: {SECRET}\n", mode=mode)
    code, output = run(workspace, "--secrets-file", str(path))
    assert code == 3, output
    assert f"--secrets-file {path}: the file is readable by every user of this machine" in output
    assert f"chmod 600 {path}" in output
    assert SECRET not in output and "Traceback" not in output
    assert not (workspace / "out").exists()  # refused before anything ran


@pytest.mark.parametrize(("text", "expected"), [
    ("password: s3cret\nnested: {a: 1}\n", r"secrets.yaml:2:1: .*the secret 'nested' must be a name with a text value"),
    ("- just\n- a list\n", r"secrets.yaml:1:1: .*expected a map of secret names to values, got list"),
])
def test_a_malformed_secrets_file_names_file_line_and_key(workspace: Path, tmp_path: Path, text: str,
                                                          expected: str) -> None:
    import re

    code, output = run(workspace, "--secrets-file", str(secrets_file(tmp_path, text)))
    assert code == 3, output
    assert re.search(expected, output), output
    assert "s3cret" not in output


def test_a_missing_environment_variable_is_named(workspace: Path) -> None:
    code, output = run(workspace, "--secret-env", "password=TB_NOT_SET_ANYWHERE")
    assert code == 3, output
    assert "--secret-env password=TB_NOT_SET_ANYWHERE: the environment variable TB_NOT_SET_ANYWHERE is not set" in output


def test_the_session_option_table_folds_every_source_into_secrets(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from trailblaze.commands.session_options import pytest_default, pytest_rows, pytest_session_values

    monkeypatch.setenv("TB_FOLD_TEST", "from-env")
    path = secrets_file(tmp_path, "token: from-file\n")
    # Every flag the table gives pytest, at pytest's default, but the three secret sources.
    raw = {row.pytest_dest: pytest_default(row) for row in pytest_rows()}
    raw.update({"trailblaze_secret": ["explicit=yes"], "trailblaze_secret_env": ["env=TB_FOLD_TEST"],
                "trailblaze_secrets_file": [str(path)]})
    values = pytest_session_values(raw.__getitem__)
    assert values["secrets"] == {"token": "from-file", "env": "from-env", "explicit": "yes"}
    assert "secret_env" not in values and "secrets_files" not in values
    with pytest.raises(Exception, match="--trailblaze-secret-env env=TB_MISSING: the environment variable"):
        pytest_session_values({**raw, "trailblaze_secret_env": ["env=TB_MISSING"]}.__getitem__)
