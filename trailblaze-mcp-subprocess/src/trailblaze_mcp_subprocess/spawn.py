"""From a server declaration and a session to a ``Launch``: program, working directory, environment.

The environment is the parent's (Trailblaze inherits it on purpose: PATH, HOME, SDK roots, auth
tokens), then the entry's ``env``, then the public ``TRAILBLAZE_*`` contract (upstream §6.2), passed
explicitly because the MCP SDKs would otherwise hand a child only an allow-list.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import BadInputError

from .config import ServerSpec, check_script
from .process import Launch
from .runtimes import runtime_for

if TYPE_CHECKING:
    from trailblaze import DeviceInfo

DEFAULT_CALLBACK_TIMEOUT_MS = 120_000
FETCH_TIMEOUT_MARGIN_MS = 2_000


def callback_timeout_ms() -> int:
    raw = os.environ.get("TRAILBLAZE_CALLBACK_TIMEOUT_MS")
    try:
        return int(raw) if raw else DEFAULT_CALLBACK_TIMEOUT_MS
    except ValueError:
        return DEFAULT_CALLBACK_TIMEOUT_MS


def contract_env(*, device: DeviceInfo, session_id: str, toolset_file: Path | None, base_url: str | None,
                 callback_timeout: int | None = None) -> dict[str, str]:
    """The ``TRAILBLAZE_*`` variables (public API; renaming one is a breaking change)."""
    env = {
        "TRAILBLAZE_DEVICE_PLATFORM": device.platform.upper(),
        "TRAILBLAZE_DEVICE_DRIVER": device.driver,
        "TRAILBLAZE_SESSION_ID": session_id,
        "TRAILBLAZE_CLIENT_FETCH_TIMEOUT_MS": str((callback_timeout if callback_timeout is not None
                                                   else callback_timeout_ms()) + FETCH_TIMEOUT_MARGIN_MS),
    }
    if device.width is not None:
        env["TRAILBLAZE_DEVICE_WIDTH_PX"] = str(device.width)
    if device.height is not None:
        env["TRAILBLAZE_DEVICE_HEIGHT_PX"] = str(device.height)
    if toolset_file is not None:
        env["TRAILBLAZE_TOOLSET_FILE"] = str(toolset_file)
    if base_url:
        env["TRAILBLAZE_BASE_URL"] = base_url
    return env


def launch_for(spec: ServerSpec, *, device: DeviceInfo, session_id: str, base_url: str | None,
               parent_env: Mapping[str, str] | None = None) -> Launch:
    """How to start ``spec`` for this session. Raises ``MissingRuntimeError`` / ``BadInputError``."""
    parent = dict(os.environ if parent_env is None else parent_env)
    env = {**parent, **dict(spec.env),
           **contract_env(device=device, session_id=session_id, toolset_file=spec.script, base_url=base_url)}
    if spec.script is not None and spec.module_tools is not None:
        return _module_launch(spec, spec.script, spec.module_tools, env)
    if spec.script is not None:
        check_script(spec.script)
        runtime = runtime_for(spec.script, path=env.get("PATH", ""))
        return Launch(argv=(*runtime.argv, str(spec.script), *spec.args), cwd=spec.cwd or spec.script.parent,
                      env=env, runtime=runtime.name)
    if spec.command is None:
        raise BadInputError(f"MCP server '{spec.name}' has no command or script to run")
    cwd = spec.cwd or Path.cwd()
    if not cwd.is_dir():
        raise BadInputError(f"MCP server '{spec.name}': workingDir {cwd} is not a directory",
                            hint=f"declared in {spec.source}")
    return Launch(argv=(spec.command, *spec.args), cwd=cwd, env=env, runtime="command")


MODULE_SERVER = Path(__file__).parent / "js" / "serve_module.mjs"
SCRIPTING_MODULES = Path(__file__).parent / "js" / "modules"


def _module_launch(spec: ServerSpec, author: Path, tools: str, env: dict[str, str]) -> Launch:
    """An author module served by our wrapper, with the runtime the module itself needs (its suffix), never
    allowed to install anything (bun ``--no-install``), ``@trailblaze/scripting`` resolved to ours through
    ``NODE_PATH`` (and a resolve hook under node's ESM loader)."""
    check_script(author)
    runtime = runtime_for(author, path=env.get("PATH", ""))
    node_path = env.get("NODE_PATH", "")
    env = {**env, "TRAILBLAZE_MODULE_TOOLS": tools,
           "NODE_PATH": os.pathsep.join(p for p in (str(SCRIPTING_MODULES), node_path) if p)}
    return Launch(argv=(*runtime.argv, str(MODULE_SERVER), str(author), *spec.args),
                  cwd=spec.cwd or author.parent, env=env, runtime=runtime.name)
