"""The plugin's options (the plugins' output options among them), and which files it collects: trail files
under ``--trails`` / ``trailblaze_trails``, cut to one ``--trailblaze-shard``."""

from __future__ import annotations

from pathlib import Path

import pytest

from .items import TrailFile, TrailItem
from .signals import RunSignals
from .state import GROUP, MARKER, STATE, _State, worker_id
from .workers import NotStarted, UnreadableTrails


def pytest_addoption(parser: pytest.Parser) -> None:
    from ..commands.session_options import add_pytest_options

    group = parser.getgroup(GROUP, "trailblaze: run trail files as tests, and drive sessions from tests")
    group.addoption("--trails", action="append", default=[], metavar="PATH",
                    help="Collect trail files (*.trail.yaml, trail.yaml) under PATH as tests (repeatable). Without "
                         "other test paths on the command line, only the trails are collected.")
    add_pytest_options(group)  # the session flags (--trailblaze-driver, -option, -secret, -shard ...): one table
    group.addoption("--trailblaze-relative-paths", action="store_true", default=False,
                    help="Run each trail under its path relative to the current directory, so console lines, "
                         "messages and the summary read as a plain trailblaze run's (trailblaze run -n sets it).")
    parser.addini("trailblaze_trails", type="paths", default=[],
                  help="Trail paths to collect as tests (relative to the ini file), like --trails.")
    parser.addini("trailblaze_output_dir", default="", help="Default for --trailblaze-output-dir.")


def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """The plugins' output options (``--ctrf PATH``), only when trails are asked for: a suite that runs
    none loads no Trailblaze plugin (``outputs.py``)."""
    from .outputs import add_output_options, runs_trails

    if runs_trails(early_config, args):
        add_output_options(parser, parser.getgroup(GROUP))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a trail run as a test, or a test using trailblaze_session "
                                       "(keyword arguments: workspace, driver, device, target)")
    given = [Path(p) for p in config.getoption("trails") or []]
    ini: list[Path] = list(config.getini("trailblaze_trails") or [])
    paths = [p if p.is_absolute() else Path(config.invocation_params.dir) / p for p in given] + ini
    config.stash[STATE] = state = _State(config, [p.resolve() for p in paths])
    if not paths:
        return
    if worker_id(config) is None:
        config.pluginmanager.register(UnreadableTrails(state), "trailblaze-unreadable-trails")
        config.pluginmanager.register(NotStarted(state), "trailblaze-not-started")
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise pytest.UsageError(f"trailblaze: trail path not found: {', '.join(missing)}")
    signals = RunSignals()
    config.pluginmanager.register(signals, "trailblaze-signals")
    signals.install(config)
    workers = getattr(config.option, "numprocesses", None)
    if worker_id(config) is None and isinstance(workers, int) and workers > 0:
        _check_pools(config, workers, [str(p) for p in paths])
    if given and config.args_source is not pytest.Config.ArgsSource.ARGS:
        # `pytest --trails x` means "run the trails", not "run testpaths and the trails too".
        config.args = [str(p) for p in paths[: len(given)]]
    else:
        # The ini option adds the trails to what pytest collects anyway (testpaths, the invocation
        # directory or the paths given): a bare `pytest` still runs the project's regular tests.
        config.args = [*config.args, *[str(p) for p in paths]]


def _check_pools(config: pytest.Config, workers: int, paths: list[str]) -> None:
    """``-n N`` with an endpoint pool smaller than N is refused before a worker starts, as ``run -n`` does:
    no endpoint may serve two workers at once."""
    from ..errors import TrailblazeError
    from ..runner.endpoints import check_pool_sizes

    try:
        check_pool_sizes(workers, list(config.getoption("trailblaze_endpoint") or []), paths)
    except TrailblazeError as exc:
        raise pytest.UsageError(f"trailblaze: {exc}") from None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--trailblaze-shard I/N``: the same partition as ``trailblaze run --shard`` (``runner/shards.py``),
    over trail × device pairs (other tests by node id), balanced by ``--trailblaze-durations``."""
    shard_text = config.getoption("trailblaze_shard")
    if not shard_text:
        return
    from ..errors import TrailblazeError
    from ..report.bundle import load_durations
    from ..results.model import trail_key
    from ..runner.shards import durations_for, pair_key, parse_shard, select

    try:
        shard = parse_shard(shard_text, "--trailblaze-shard")
        durations_path = config.getoption("trailblaze_durations")
        known = load_durations(Path(durations_path), missing_ok=True) if durations_path else {}
    except TrailblazeError as exc:
        raise pytest.UsageError(f"trailblaze: {exc}") from None
    keys: dict[str, tuple[str, str]] = {}
    for item in items:
        if isinstance(item, TrailItem):
            keys[item.nodeid] = (pair_key(item.path, item.device.spec if item.device else None), trail_key(item.path))
        else:
            keys[item.nodeid] = (item.nodeid, item.nodeid)
    chosen = select([pair for pair, _ in keys.values()], shard, durations_for(keys.values(), known))
    keep = [item for item in items if keys[item.nodeid][0] in chosen]
    dropped = [item for item in items if keys[item.nodeid][0] not in chosen]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    state = parent.config.stash.get(STATE, None)
    if state is None or not state.trail_paths:
        return None
    from ..runner.discovery import expand, is_trail_file

    if not is_trail_file(file_path):
        return None
    if state.trail_files is None:
        try:
            state.trail_files = {p.resolve() for p in expand([str(p) for p in state.trail_paths])}
        except Exception as exc:  # noqa: BLE001 - BadInputError: e.g. a directory with no trails
            raise pytest.UsageError(f"trailblaze: {exc}") from None
    if file_path.resolve() not in state.trail_files:
        return None  # under trails/config, or outside the trail paths
    return TrailFile.from_parent(parent, path=file_path)
