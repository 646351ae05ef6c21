"""``Session.options`` is a typed ``SessionOptions``; a plugin that still reads it as the dict it was gets
the same values with a ``DeprecationWarning`` naming the attribute to use."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from trailblaze.runner.lifecycle import SessionFactory
from trailblaze.runner.options import RunOptions
from trailblaze.session import Session, SessionOptions
from trailblaze.testing import make_session, new_host


@pytest.fixture
def session(tmp_path: Path) -> Session:
    factory = SessionFactory(RunOptions(output_dir=tmp_path, logging=False, secrets={"pw": "hunter2"}),
                             host=new_host())
    ws = factory.workspace_for(tmp_path, exact=True)
    return factory.new_session(None, ws, extra={"agent_mode": "ondevice", "acme": 7}, listing=True)


def test_the_options_are_typed_fields(session: Session) -> None:
    options = session.options
    assert isinstance(options, SessionOptions)
    assert options.listing is True and options.agent_mode == "ondevice" and options.extra == {"acme": 7}
    assert options.run is not None and options.host_tools is True and options.tracebacks == []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # typed reads warn about nothing
        assert options.listing and options.run.llm is None


@pytest.mark.parametrize(("read", "attribute"), [
    (lambda o: o.get("listing"), "session.options.listing"),
    (lambda o: o["run"], "session.options.run"),
    (lambda o: o.get("agent_mode", "host"), "session.options.agent_mode"),
    (lambda o: o.setdefault("_tracebacks", []), "session.options.tracebacks"),
    (lambda o: o.get("acme"), "session.options.extra['acme']"),
])
def test_reading_it_as_a_dict_still_works_with_a_deprecation_warning(session: Session, read, attribute: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.warns(DeprecationWarning, match=f"use {attribute.replace('[', '.').replace(']', '.')} instead"):
        value = read(session.options)
    expected = {"session.options.listing": True, "session.options.run": session.options.run,
                "session.options.agent_mode": "ondevice", "session.options.tracebacks": session.options.tracebacks,
                "session.options.extra['acme']": 7}[attribute]
    assert value is expected or value == expected


def test_the_old_setdefault_appends_to_the_typed_list(session: Session) -> None:
    error = RuntimeError("kaput")
    with pytest.warns(DeprecationWarning):
        session.options.setdefault("_tracebacks", []).append(error)
    assert session.options.tracebacks == [error]


def test_a_session_built_with_a_dict_gets_typed_options(tmp_path: Path) -> None:
    built = make_session(new_host(), root=tmp_path, start=False)
    again = Session(id="s", host=built.host, workspace=built.workspace, registry=built.registry,
                    memory=built.memory, log=built.log, log_dir=built.log_dir,
                    options={"listing": True, "x": 1})  # type: ignore[arg-type]
    assert again.options.listing and again.options.extra == {"x": 1}
    built.log.close()


def test_the_run_options_and_their_secrets_stay_out_of_its_repr(session: Session) -> None:
    assert "hunter2" not in repr(session.options) and "ondevice" in repr(session.options)


def test_the_session_knows_nothing_of_llm_providers() -> None:
    """The agent gets its provider types from whoever opened the session (the runner passes its host's),
    not through the session's host protocol: ``session.py`` imports nothing of ``trailblaze/llm/``."""
    import ast
    import inspect

    import trailblaze.session as module
    from trailblaze.session import SessionHost

    tree = ast.parse(inspect.getsource(module))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {m for m in imported if m.lstrip(".").startswith("llm") or ".llm" in m}
    assert not hasattr(SessionHost, "llm_providers")


def test_a_session_opened_by_the_factory_offers_the_agent_its_hosts_provider_types(tmp_path: Path) -> None:
    from trailblaze.llm.registry import PROVIDERS_KEY, providers_of

    host = new_host()
    session = SessionFactory(RunOptions(output_dir=tmp_path, logging=False), host=host).new_session(
        None, SessionFactory(RunOptions(), host=host).workspace_for(tmp_path, exact=True))
    assert providers_of(session.resources) is host.llm_providers()
    assert PROVIDERS_KEY in session.resources
