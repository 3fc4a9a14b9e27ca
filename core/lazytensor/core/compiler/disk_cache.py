"""The persistent compile cache: compiled executables kept on disk, so that
a new process running a known program compiles nothing.

On by default, in ``$XDG_CACHE_HOME/lazytensor`` (``~/.cache/lazytensor``);
``LAZYTENSOR_CACHE_DIR`` moves it, ``LAZYTENSOR_CACHE=0`` turns it off,
``LAZYTENSOR_CACHE_MAX_MB`` caps its size (1024 by default: the least
recently used entries go first) and ``LAZYTENSOR_CACHE_MIN_COMPILE_SECONDS``
(0.05) skips graphs that compile faster than loading would gain.

An entry is one file per graph signature (with the versions of jax, jaxlib,
the backend and the core's own source in its key), written whole and
atomically (a temporary file renamed into place) and checked on reading
(a magic string and a SHA-256 of its body): a corrupt or unreadable entry
counts as a miss, and the fresh compile replaces it. A directory that
cannot be written costs one warning per process and never a failure.
Entries are trusted code (serialized XLA executables, as in JAX's own
cache): the directory is created readable by its owner only.

JAX's own cache (``jax_compilation_cache_dir``) is not used: it skips
graphs that compile in under a second (``jax_persistent_cache_min_compile
_time_secs``) and never rewrites an entry it failed to read (it writes only
keys that are absent), so a truncated file costs a recompile in every later
process; it evicts least recently used entries only with ``filelock``.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import jax
from jax.experimental import serialize_executable

MAGIC = b"LTXC0001"
SUFFIX = ".ltx"
DEFAULT_MAX_MB = 1024
DEFAULT_MIN_COMPILE_SECONDS = 0.05


def default_directory() -> Path | None:
    """Where the cache lives (None: off), from the environment."""
    if os.environ.get("LAZYTENSOR_CACHE", "1").strip().lower() in ("0", "false", "off", "no"):
        return None
    chosen = os.environ.get("LAZYTENSOR_CACHE_DIR")
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "lazytensor"


@dataclass
class DiskCache:
    """Serialized executables in ``directory``, by signature."""

    directory: Path
    max_bytes: int = DEFAULT_MAX_MB << 20
    min_compile_seconds: float = DEFAULT_MIN_COMPILE_SECONDS
    writable: bool = True

    def load(self, signature: tuple):
        """The compiled executable stored for ``signature`` and its compile
        seconds, or None (absent, corrupt, unreadable, or uncacheable)."""
        path = self._path(signature)
        if path is None:
            return None
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        body = _checked_body(blob)
        if body is None:
            return None
        try:
            payload, in_tree, out_tree, seconds, device_ids = pickle.loads(body)
            compiled = serialize_executable.deserialize_and_load(
                payload, in_tree, out_tree, execution_devices=_devices(device_ids))
        except Exception:  # written by another version, or damaged inside: a miss
            return None
        _touch(path)
        return compiled, seconds

    def store(self, signature: tuple, compiled, compile_seconds: float) -> bool:
        """Write the entry (replacing a corrupt one); False when skipped."""
        path = self._path(signature)
        if path is None or not self.writable or compile_seconds < self.min_compile_seconds:
            return False
        try:
            payload, in_tree, out_tree = serialize_executable.serialize(compiled)
            device_ids = [d.id for d in compiled.runtime_executable().local_devices()]
            body = pickle.dumps((payload, in_tree, out_tree, compile_seconds, device_ids))
        except Exception:  # an executable XLA cannot serialize: not cached
            return False
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            _write_atomically(path, MAGIC + hashlib.sha256(body).digest() + body)
            self._evict()
        except OSError as error:
            self.writable = False
            warnings.warn(f"lazytensor: the compile cache directory {self.directory} cannot "
                          f"be written ({error}); compiled programs are not kept on disk in "
                          "this process (LAZYTENSOR_CACHE_DIR moves it, LAZYTENSOR_CACHE=0 "
                          "turns it off)", RuntimeWarning, stacklevel=2)
            return False
        return True

    def _path(self, signature: tuple) -> Path | None:
        if jax.process_count() > 1:  # (an executable over several processes: not kept)
            return None
        text = repr(signature)
        if " at 0x" in text:  # an attribute without a stable form: not cacheable
            return None
        digest = hashlib.sha256(_environment().encode() + text.encode()).hexdigest()
        return self.directory / (digest + SUFFIX)

    def _evict(self) -> None:
        """Delete the least recently used entries while over ``max_bytes``."""
        entries = []
        for path in self.directory.glob("*" + SUFFIX):
            try:
                stat = path.stat()
            except OSError:  # evicted by another process meanwhile
                continue
            entries.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size


def _devices(ids: list) -> list:
    """The devices an executable was compiled for, by id: JAX would load it
    onto every device of the backend (a one-device program in a process
    with 4 devices then expects 4 shards of each argument)."""
    by_id = {d.id: d for d in jax.devices()}
    return [by_id[i] for i in ids]


def _checked_body(blob: bytes) -> bytes | None:
    head = len(MAGIC) + 32
    if len(blob) < head or not blob.startswith(MAGIC):
        return None
    body = blob[head:]
    return body if hashlib.sha256(body).digest() == blob[len(MAGIC):head] else None


def _write_atomically(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _touch(path: Path) -> None:
    """Mark an entry used now (LRU by modification time: access times are
    often not kept)."""
    try:
        now = time.time()
        os.utime(path, (now, now))
    except OSError:
        pass


_ENVIRONMENT: list = []


def _environment() -> str:
    """What an executable depends on besides its signature: jax and jaxlib,
    the backend and its devices, x64, and the core's source (its lowering
    rules); computed once per process."""
    if not _ENVIRONMENT:
        import jaxlib

        core = Path(__file__).resolve().parents[1]
        source = hashlib.sha256()
        for file in sorted(core.rglob("*.py")):
            source.update(file.relative_to(core).as_posix().encode())
            source.update(file.read_bytes())
        devices = jax.devices()
        backend = devices[0].client
        _ENVIRONMENT.append(repr((
            jax.__version__, jaxlib.__version__, backend.platform, backend.platform_version,
            [d.device_kind for d in devices], jax.config.jax_enable_x64, source.hexdigest(),
        )))
    return _ENVIRONMENT[0]


_ACTIVE: list = []


def active() -> DiskCache | None:
    """The process's cache (from the environment on first use), or None."""
    if not _ACTIVE:
        configure(default_directory())
    return _ACTIVE[0]


def configure(directory: Path | str | None) -> DiskCache | None:
    """Use ``directory`` for the process's cache (None: off)."""
    cache = None
    if directory is not None:
        cache = DiskCache(
            Path(directory).expanduser(),
            max_bytes=int(float(os.environ.get("LAZYTENSOR_CACHE_MAX_MB", DEFAULT_MAX_MB))
                          * (1 << 20)),
            min_compile_seconds=float(os.environ.get("LAZYTENSOR_CACHE_MIN_COMPILE_SECONDS",
                                                     DEFAULT_MIN_COMPILE_SECONDS)))
    _ACTIVE[:] = [cache]
    return cache
