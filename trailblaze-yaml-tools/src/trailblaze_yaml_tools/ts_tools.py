"""Typed TypeScript tools: bare ``tools/**.ts`` files exporting
``const <name> = trailblaze.tool<Args>(spec, handler)``.


Discovery follows upstream's ``TrailblazeProjectConfigLoader.kt``: every ``.ts`` below a trailmap's
``tools/`` except ``*.d.ts``, ``*.test.ts`` and files a ``tools/<name>.yaml`` descriptor's ``script:``
already covers, holding exactly one ``export const <name> = trailblaze.tool<…>(…)`` binding (found by
the same line-anchored pattern: none is a helper module, several need a descriptor to name them). The
tool is named after the exported const.

The extractor reads them as upstream's ``extract-tool-defs.mjs``: the TSDoc above the binding whole (tags
included) is the description; a recursive ``Args`` type keeps ``$ref``s to a root ``definitions`` (every
other reference is inlined); a function-typed field fails the tool; the spec's fields are read only as
inline literals (``["web"] as const`` is not one, so it does not gate), and a spec passed by reference
fails the tool, as upstream fails a descriptor-less tool whose spec it could not read.

Each input schema is derived from the ``Args`` type by the TypeScript compiler and
``ts-json-schema-generator`` (``node/extract_ts_tools.cjs``, our port of upstream's
``extract-tool-defs.mjs``), one node process for all files that are not cached. The results are kept
in ``<workspace>/.trailblaze/cache/ts-tools.json`` keyed by the file's content (and that of the local
modules it imports), the extractor and the two packages' versions, so an unchanged workspace never
starts node. The file is plain JSON, re-validated on read; anything unexpected is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from trailblaze import BadInputError, OutputWriteError, ParameterSchema, ToolSource

from .cache import ENV_DISABLE, write_cache_file
from .script import ScriptedToolDecl, ScriptToolSpec

TYPED_BINDING = re.compile(r"(?m)^\s*export\s+const\s+(\w+)\s*=\s*(?:\w+\.)?trailblaze\.tool\s*[<(]")
"""Upstream's ``TYPED_TOOL_BINDING_PATTERN``: a commented-out binding (``// export const``) does not match.
The optional ``<namespace>.`` admits ``import * as sdk`` + ``sdk.trailblaze.tool(...)``, which upstream's
analyzer recognises (``isTrailblazeReceiver``) but its discovery pattern would not offer it."""
LOCAL_IMPORT = re.compile(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""")
EXTRACTOR = Path(__file__).parent / "node" / "extract_ts_tools.cjs"
PACKAGES = ("typescript", "ts-json-schema-generator")
CACHE_NAME = "ts-tools.json"
CACHE_FORMAT = 1
EXTRACT_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class TypedTool:
    """One typed tool as the extractor read it."""

    name: str
    file: Path
    line: int
    description: str | None
    input_schema: dict[str, Any]
    spec: Mapping[str, Any]


@dataclass(frozen=True)
class TypedToolError:
    file: Path
    line: int | None
    message: str


def typed_bindings(text: str) -> list[str]:
    return TYPED_BINDING.findall(text)


def discover(tools_dir: Path, covered: set[Path], watch: Callable[..., Any] | None = None) -> Iterator[Path]:
    """Bare typed-tool files below ``tools_dir``, sorted, recursively (hidden entries skipped). ``watch``
    sees every directory listed and file read (the catalog cache must notice a helper becoming a tool)."""
    try:
        entries = sorted(os.scandir(tools_dir), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return
    if watch is not None:
        watch(tools_dir, [e.name for e in entries])
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if entry.is_dir():
            yield from discover(path, covered, watch)
        elif entry.name.endswith(".ts") and not entry.name.endswith((".d.ts", ".test.ts")) \
                and path.resolve() not in covered:
            if watch is not None:
                watch(path)
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if len(typed_bindings(text)) == 1:
                yield path


# -- node and its packages ---------------------------------------------------------------------------
def node_path_dirs() -> list[Path]:
    return [Path(p) for p in os.environ.get("NODE_PATH", "").split(os.pathsep) if p]


def package_versions() -> dict[str, str] | None:
    """The versions ``require`` would load (first NODE_PATH entry holding each package); None if one is
    missing."""
    found: dict[str, str] = {}
    for name in PACKAGES:
        for directory in node_path_dirs():
            manifest = directory / name / "package.json"
            try:
                found[name] = str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
                break
            except (OSError, ValueError, KeyError, TypeError):
                continue
    return found if len(found) == len(PACKAGES) else None


def _extractor_digest() -> str:
    return hashlib.sha256(EXTRACTOR.read_bytes()).hexdigest()


# -- extraction with the cache -----------------------------------------------------------------------
def _file_key(path: Path, text: str, salt: str) -> str:
    """What the schema depends on: the file, the local modules it imports (one level), the tools."""
    digest = hashlib.sha256(salt.encode())
    digest.update(os.fspath(path).encode("utf-8", "surrogateescape") + b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    for ref in sorted(set(LOCAL_IMPORT.findall(text))):
        base = (path.parent / ref)
        for candidate in (base, base.with_name(base.name + ".ts"), base / "index.ts"):
            if candidate.is_file():
                with contextlib.suppress(OSError):
                    digest.update(b"\0" + os.fspath(candidate).encode() + b"\0" + candidate.read_bytes())
                break
    return digest.hexdigest()


def _read_cache(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT \
            or not isinstance(data.get("files"), dict):
        return {}
    files: dict[str, Any] = data["files"]
    return files


def _write_cache(path: Path | None, files: dict[str, Any]) -> None:
    if path is None:
        return
    try:
        write_cache_file(path, json.dumps({"format": CACHE_FORMAT, "files": files}).encode())
    except (OSError, OutputWriteError):
        return


def cache_path(root: Path) -> Path | None:
    if os.environ.get(ENV_DISABLE, "").strip().lower() in ("1", "true", "yes"):
        return None
    return root / ".trailblaze" / "cache" / CACHE_NAME


def extract(files: Iterable[Path], *, cache: Path | None) -> tuple[list[TypedTool], list[TypedToolError]]:
    """Every typed tool of ``files``; node runs only for files whose key is not in ``cache``.

    Raises ``BadInputError`` when node or the TypeScript packages are missing (nothing can be derived).
    """
    files = list(files)
    if not files:
        return [], []
    versions = package_versions()
    salt = json.dumps([_extractor_digest(), versions], sort_keys=True)
    stored = _read_cache(cache)
    keys: dict[Path, str] = {}
    for path in files:
        try:
            keys[path] = _file_key(path, path.read_text(encoding="utf-8"), salt)
        except (OSError, UnicodeDecodeError) as exc:
            raise BadInputError(f"{path}: cannot read the typed tool: {exc}") from None
    missing = [p for p in files if not _valid_entry(stored.get(keys[p]))]
    if missing:
        fresh = _run_extractor(missing)
        for path in missing:
            stored[keys[path]] = fresh.get(os.fspath(path), {"tools": [], "errors": []})
        if versions is not None:
            live = set(keys.values())
            _write_cache(cache, {k: v for k, v in stored.items() if k in live})
    tools: list[TypedTool] = []
    errors: list[TypedToolError] = []
    for path in files:
        entry = stored[keys[path]]
        for t in entry["tools"]:
            tools.append(TypedTool(name=t["name"], file=path, line=int(t["line"]),
                                   description=t.get("description"), input_schema=t["inputSchema"],
                                   spec=t.get("spec") or {}))
        for e in entry["errors"]:
            errors.append(TypedToolError(path, e.get("line"), str(e.get("message"))))
    return tools, errors


def _valid_entry(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("tools"), list) \
            or not isinstance(entry.get("errors"), list):
        return False
    return all(isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("line"), int)
               and isinstance(t.get("inputSchema"), dict) for t in entry["tools"]) and \
        all(isinstance(e, dict) for e in entry["errors"])


def _run_extractor(files: list[Path]) -> dict[str, dict[str, list[Any]]]:
    node = shutil.which("node")
    if node is None:
        raise BadInputError("typed TypeScript tools need Node.js to derive their schemas, and no "
                            "'node' is on PATH",
                            hint="run scripts/bootstrap.sh, or install Node.js 20+")
    try:
        done = subprocess.run([node, os.fspath(EXTRACTOR)], input=json.dumps([os.fspath(f) for f in files]),
                              capture_output=True, text=True, timeout=EXTRACT_TIMEOUT_S, check=False,
                              cwd=os.fspath(files[0].parent))
    except subprocess.TimeoutExpired:
        raise BadInputError(f"deriving the schemas of {len(files)} typed tool(s) took over "
                            f"{EXTRACT_TIMEOUT_S:.0f}s") from None
    try:
        out = json.loads(done.stdout)
    except ValueError:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise BadInputError(f"the TypeScript schema extractor failed (exit {done.returncode}): "
                            f"{tail}") from None
    if not isinstance(out, dict):
        raise BadInputError("the TypeScript schema extractor printed something unexpected")
    if "fatal" in out:
        raise BadInputError(str(out["fatal"]))
    by_file: dict[str, dict[str, list[Any]]] = {}
    for t in out.get("tools", []):
        by_file.setdefault(str(t.get("file")), {"tools": [], "errors": []})["tools"].append(t)
    for e in out.get("errors", []):
        by_file.setdefault(str(e.get("file")), {"tools": [], "errors": []})["errors"].append(e)
    return by_file


# -- the hand-off to the script runtime ----------------------------------------------------------------
def declaration(tool: TypedTool) -> ScriptedToolDecl:
    """What the model and ``check`` know of a typed tool before its server runs; ``spec`` as upstream reads it
    (``description``: spec, else TSDoc; platforms and drivers gate registration; the rest is ``_meta``)."""
    spec = tool.spec
    description = spec.get("description") if isinstance(spec.get("description"), str) else None
    platforms = _names(spec.get("supportedPlatforms"), lower=True)
    drivers = _names(spec.get("supportedDrivers"), lower=False)
    flags = {k: spec[k] for k in ("surfaceToLlm", "isRecordable", "requiresHost", "requiresContext")
             if isinstance(spec.get(k), bool)}
    meta: dict[str, Any] = {f"trailblaze/{k}": v for k, v in flags.items()}
    if isinstance(spec.get("trailhead"), Mapping):
        meta["trailblaze/trailhead"] = dict(spec["trailhead"])
    if platforms is not None:
        meta["trailblaze/supportedPlatforms"] = sorted(platforms)
    if drivers is not None:
        meta["trailblaze/supportedDrivers"] = sorted(drivers)
    return ScriptedToolDecl(
        name=tool.name, description=description or tool.description or "", input_schema=tool.input_schema,
        parameters=ParameterSchema.from_json_schema(tool.input_schema),
        surface_to_llm=flags.get("surfaceToLlm", True), is_recordable=flags.get("isRecordable", True),
        requires_host=flags.get("requiresHost", False), platforms=platforms, drivers=drivers, meta=meta,
        line=tool.line)


def _names(value: Any, *, lower: bool) -> frozenset[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return frozenset(v.lower() if lower else v for v in value)


def module_spec(tool: TypedTool, *, trailmap: str | None, source: ToolSource) -> ScriptToolSpec:
    """One author module, served by the runtime plugin's module wrapper (kind ``module``)."""
    return ScriptToolSpec(kind="module", file=tool.file, line=tool.line, script=tool.file,
                          runtime="subprocess",
                          tools=(declaration(tool),), trailmap=trailmap,
                          source=replace(source, file=tool.file, line=tool.line))
