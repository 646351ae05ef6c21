"""The live-session directory is private and cannot be planted: a symbolic link or another user's
directory where ``$TMPDIR/trailblaze-sessions-<uid>`` should be is refused with a hint and a per-user
fallback is used, so a session's state, token and socket are never written where someone else chose."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest
from trailblaze.errors import BadInputError
from trailblaze.live import registry

NOBODY = 65534


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A temporary directory and a home of the test's own, no session directory configured."""
    tmp, home = tmp_path / "tmp", tmp_path / "home"
    tmp.mkdir()
    home.mkdir()
    tmp.chmod(0o1777)
    monkeypatch.delenv(registry.DIR_ENV, raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setattr(registry, "_warned", set())
    return {"tmp": tmp, "home": home, "shared": tmp / f"trailblaze-sessions-{os.getuid()}",
            "fallback": home / ".cache" / "trailblaze" / "sessions"}


def test_the_default_directory_is_created_private(dirs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    path = registry.runtime_dir()
    assert path == dirs["shared"]
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o700 and not path.is_symlink()
    files = registry.files_for("s")
    registry.write_state(files, {"token": "t"})
    assert stat.S_IMODE(files.state.stat().st_mode) == 0o600
    assert capsys.readouterr().err == ""


def test_a_planted_symlink_is_refused_and_nothing_is_written_where_it_points(
        dirs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victims-own-dir"
    victim.mkdir(mode=0o700)
    dirs["shared"].symlink_to(victim)
    path = registry.runtime_dir()
    assert path == dirs["fallback"] and stat.S_IMODE(os.lstat(path).st_mode) == 0o700
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"the session directory {dirs['shared']} is a symbolic link (to {victim})" in err, err
    assert f"using {dirs['fallback']} instead" in err and "hint:" in err, err
    files = registry.files_for("s")
    registry.write_state(files, {"token": "secret-token"})
    fd = registry.take_lock(files)
    os.close(fd)
    assert list(victim.iterdir()) == [], "the session's files went where the link pointed"
    assert json.loads((dirs["fallback"] / "s.json").read_text()) == {"token": "secret-token"}
    registry.runtime_dir()
    assert capsys.readouterr().err == "", "the fallback is announced once per process"


@pytest.mark.skipif(os.getuid() != 0, reason="giving a directory to another user needs root")
def test_another_users_directory_is_refused(dirs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    dirs["shared"].mkdir(mode=0o700)
    os.chown(dirs["shared"], NOBODY, NOBODY)
    assert registry.runtime_dir() == dirs["fallback"]
    err = capsys.readouterr().err
    assert f"{dirs['shared']} belongs to another user (uid {NOBODY})" in err, err


def test_a_directory_open_to_others_is_refused(dirs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    dirs["shared"].mkdir()
    dirs["shared"].chmod(0o777)
    assert registry.runtime_dir() == dirs["fallback"]
    err = capsys.readouterr().err
    assert f"{dirs['shared']} is open to other users (mode 0o777, want 0o700)" in err, err


def test_a_named_directory_that_is_a_link_is_an_error(dirs: dict[str, Path], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(target)
    monkeypatch.setenv(registry.DIR_ENV, str(link))
    with pytest.raises(BadInputError) as err:
        registry.files_for("s")
    assert f"the session directory {link} (${registry.DIR_ENV}) is a symbolic link" in err.value.message
    assert err.value.hint and registry.DIR_ENV in err.value.hint


def test_when_every_default_is_planted_the_error_names_each(dirs: dict[str, Path], tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    dirs["shared"].symlink_to(other)
    dirs["fallback"].parent.mkdir(parents=True)
    dirs["fallback"].symlink_to(other)
    with pytest.raises(BadInputError) as err:
        registry.runtime_dir()
    assert str(dirs["shared"]) in err.value.message and str(dirs["fallback"]) in err.value.message
    assert err.value.hint and registry.DIR_ENV in err.value.hint
