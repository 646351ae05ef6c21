"""The validated workspace catalog, kept between invocations in ``<workspace>/.trailblaze/cache/``.

Reading and validating every tool file, trailmap and toolset is the fixed cost of each ``check``,
``tools`` and ``run``; in an unchanged workspace the result is the same every time. So a catalog that
loaded without errors is pickled together with what it depended on, and the next invocation uses it
only if all of that is unchanged:

* every path the load looked at — files read, directories listed (a directory's mtime changes when an
  entry is added, removed or renamed), paths probed that did not exist — with its stat signature
  (mtime and ctime in ns, size, inode, device); the modules of ``class:`` tools; this package's own
  sources;
* the plugins (name, distribution, version) and the trailmap directories they ship, the Python and
  Trailblaze versions, the YAML limits;
* for paths modified within two seconds of the save (a file system's timestamp can lag behind a fast
  edit), a digest of the content or listing, checked every time — the "racy" case git also guards.

A catalog that needed another plugin to build it (``script:`` tools and ``mcp_servers`` register their
servers with ``trailblaze-mcp-subprocess`` as they load) is never cached. Anything unreadable or
unexpected in the cache file is ignored and the file rewritten. Deleting ``.trailblaze/`` is always safe;
``TRAILBLAZE_NO_CATALOG_CACHE=1`` turns the cache off.

The file is pickled, and unpickling runs code: a cache file planted in a workspace (a cloned repository
can hold one) would run it on ``check``. So every cache file carries a MAC — HMAC-SHA256 over all of
it — under a per-user key (``$XDG_CACHE_HOME/trailblaze/cache.key``, else ``~/.cache/…``; 32 random
bytes, created 0600, never followed through a symlink), and nothing is unpickled before the MAC checks
out. Without a usable key (unwritable home, a key file others can read) nothing is cached.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import pickle
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import OutputWriteError, write_atomic

from .catalog_model import Catalog
from .packing import PATH_DISPATCH, fast_path, pack, unpack

if TYPE_CHECKING:
    from trailblaze import PluginHost, ToolSource, WorkspaceConfig


__all__ = ["Signature", "cache_file", "digest_listing", "digest_text", "fast_path", "is_racy", "load_cached", "pack",
           "save_cached", "signature", "unpack",
           "write_cache_file"]

Signature = tuple[int, int, int, int, int] | None
"""``(mtime_ns, ctime_ns, size, inode, device)`` of a path, None when it does not exist. The ctime
changes with any change to the file, even one that restores its mtime or only its permissions."""

MAGIC = b"trailblaze-catalog-cache\n"
FORMAT = 4
MAC_SIZE = 32
KEY_SIZE = 32
RACY_NS = 2_000_000_000
ENV_DISABLE = "TRAILBLAZE_NO_CATALOG_CACHE"
_PACKAGE = Path(__file__).parent


def signature(path: str) -> Signature:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_dev


def cache_file(config: WorkspaceConfig) -> Path | None:
    """Where ``config``'s catalog is cached; None without a workspace or when disabled."""
    if config.file is None or os.environ.get(ENV_DISABLE, "").strip().lower() in ("1", "true", "yes"):
        return None
    return config.root / ".trailblaze" / "cache" / "catalog.pickle"


def _key(config: WorkspaceConfig, host: PluginHost, source: ToolSource) -> tuple[Any, ...]:
    from trailblaze import YamlLimits, __version__

    plugins = sorted((p.name, p.distribution or "", p.version or "", p.status)
                     for p in host.plugins(include_builtins=True))
    dirs = tuple((repr(owner), os.fspath(root)) for owner, root in host.trailmap_dirs())
    return (FORMAT, sys.version, __version__, tuple(plugins), dirs, YamlLimits.from_env(), repr(source),
            os.fspath(config.root))


def _own_sources() -> dict[str, Signature]:
    """This package's modules: a change to how files are validated changes the catalog."""
    return {os.fspath(p): signature(os.fspath(p)) for p in sorted(_PACKAGE.glob("*.py"))}


def digest_text(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def digest_listing(names: list[str]) -> str:
    return digest_text("\0".join(sorted(names)))


def is_racy(sig: Signature, now: int) -> bool:
    """Modified so recently that a further edit might not change the signature."""
    return sig is not None and max(sig[0], sig[1]) > now - RACY_NS


def _digest(path: str) -> str | None:
    """What the load saw at ``path``: a file's text (as ``read_text`` gives it) or a directory's listing."""
    try:
        if os.path.isdir(path):
            return digest_listing(os.listdir(path))
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return digest_text(data.decode("utf-8", "surrogateescape").replace("\r\n", "\n").replace("\r", "\n"))


def key_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trailblaze" / "cache.key"


_KEY: list[bytes | None] = []


def cache_key() -> bytes | None:
    """This user's cache key (created on first use), or None when it cannot be had safely."""
    if not _KEY:
        _KEY.append(_read_or_create_key(key_file()))
    return _KEY[0]


def _read_or_create_key(path: Path) -> bytes | None:
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            temp = path.parent / f".cache.key.{os.getpid()}.{time.time_ns()}"
            wfd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(wfd, "wb") as fh:
                fh.write(os.urandom(KEY_SIZE))
            try:
                os.link(temp, path)  # first writer wins; a concurrent one reads the winner's key below
            except FileExistsError:
                pass
            finally:
                os.unlink(temp)
            fd = os.open(path, flags)
        except OSError:
            return None
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        key = fh.read(KEY_SIZE + 1)
    owner_only = st.st_uid == os.getuid() and not st.st_mode & 0o077
    return key if owner_only and len(key) == KEY_SIZE else None


def _mac(key: bytes, data: bytes | memoryview) -> bytes:
    """HMAC-SHA256, not keyed BLAKE2b: the MAC covers the whole file (13 MB for 10,000 tools) on every
    warm load, and OpenSSL's SHA-256 runs on the CPU's SHA instructions (x86 SHA-NI, ARMv8), about
    twice BLAKE2b's software speed there (7 ms against 14 ms for that file, bench_yaml_tools.py)."""
    return hmac.digest(key, data, "sha256")


def load_cached(config: WorkspaceConfig, host: PluginHost, source: ToolSource) -> Catalog | None:
    """The cached catalog if everything it was built from is unchanged, else None."""
    path = cache_file(config)
    if path is None:
        return None
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if not raw.startswith(MAGIC):
        return None
    key = cache_key()
    start = len(MAGIC) + MAC_SIZE
    if key is None or not hmac.compare_digest(raw[len(MAGIC):start], _mac(key, memoryview(raw)[start:])):
        return None  # not written by this user's Trailblaze: never unpickled
    try:
        header, deps, racy, body = pickle.loads(memoryview(raw)[start:])
        if header != _key(config, host, source):
            return None
        for dep, sig in deps.items():
            if signature(dep) != sig:
                return None
        for dep, digest in racy.items():
            if _digest(dep) != digest:
                return None
        catalog = pickle.loads(body)
    except Exception:  # noqa: BLE001 - a corrupt, truncated or foreign cache is simply not used
        return None
    return catalog if isinstance(catalog, Catalog) and not catalog.errors else None


def save_cached(config: WorkspaceConfig, host: PluginHost, source: ToolSource, catalog: Catalog,
                deps: dict[str, Signature], seen: dict[str, str]) -> None:
    """Write the cache (best effort: an unwritable workspace or an unpicklable catalog just isn't cached).

    ``seen`` holds digests of what the load itself read at racy paths (so an edit racing the load is
    caught); other racy paths are digested now.
    """
    path = cache_file(config)
    key = cache_key()
    if path is None or key is None or catalog.errors:
        return
    deps = {**deps, **_own_sources()}
    now = time.time_ns()
    racy = {dep: seen.get(dep) or _digest(dep) for dep, sig in deps.items() if is_racy(sig, now)}
    try:
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dispatch_table = PATH_DISPATCH
        pickler.dump(catalog)
        body = buffer.getvalue()
        payload = pickle.dumps((_key(config, host, source), deps, racy, body),
                               protocol=pickle.HIGHEST_PROTOCOL)
        blob = MAGIC + _mac(key, payload) + payload
    except Exception:  # noqa: BLE001 - e.g. a tool class defined where pickle cannot name it
        return
    try:
        write_cache_file(path, blob)
    except (OSError, OutputWriteError):
        return


def write_cache_file(path: Path, data: bytes) -> None:
    """Write a file of ``.trailblaze/cache/`` through a unique temporary file in the same directory, then
    rename it: a reader sees the old file or the new one, never a half-written one (concurrent runs
    included). ``.trailblaze/`` gets a ``.gitignore`` so that no cache is ever committed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = path.parent.parent / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Trailblaze's caches: safe to delete, never commit.\n*\n", encoding="utf-8")
    write_atomic(path, data, sync=False)
