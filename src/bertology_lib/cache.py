"""Content-addressed artifact cache.

An entry is a folder ``<root>/<kind>/<key>/`` where ``key`` is a hash of
everything that determines the artifact (its config, plus a format version).
It holds the artifact's files, ``artifact.json`` (the config it was built
from) and a
``MANIFEST.json`` listing every file with its size and SHA-256. The manifest
is written last and the folder appears by one atomic ``rename`` from a
temporary folder, so an entry either exists whole or not at all. A folder
without a valid manifest, or whose files do not match it, is treated as
corrupt: removed and rebuilt, never used.

Tensors are stored as safetensors and metadata as JSON; nothing is unpickled.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from bertology_lib.errors import CacheError

FORMAT_VERSION = 1
MANIFEST = "MANIFEST.json"
CONFIG = "artifact.json"  # HF models keep their own config.json beside it
_TMP_PREFIX = ".tmp-"


def default_root() -> Path:
    """``$BERTOLOGY_CACHE``, else the user's cache dir (``~/.cache/bertology``)."""
    env = os.environ.get("BERTOLOGY_CACHE")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("bertology"))


def canonical_json(obj: Any) -> str:
    """Stable JSON for hashing: sorted keys, no whitespace, tuples as lists."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_json_default)


def _json_default(o: Any) -> Any:
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"cannot hash a {type(o).__name__} into a cache key: {o!r}")


def cache_key(kind: str, config: Mapping[str, Any]) -> str:
    """The hex key of an artifact of ``kind`` built from ``config``."""
    payload = canonical_json({"kind": kind, "format": FORMAT_VERSION, "config": config})
    return hashlib.sha256(payload.encode()).hexdigest()[:20]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)


@dataclass(frozen=True)
class Entry:
    """One cache entry as listed by ``bertology cache ls``."""

    kind: str
    key: str
    path: Path
    size: int
    created: float
    config: dict


class ArtifactCache:
    """A cache rooted at ``root`` (default :func:`default_root`)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    # -- paths -------------------------------------------------------------
    def path(self, kind: str, config: Mapping[str, Any]) -> Path:
        if not kind or "/" in kind or kind.startswith("."):
            raise CacheError(f"kind={kind!r} is not a valid artifact kind (a plain name)")
        return self.root / kind / cache_key(kind, config)

    # -- validity ------------------------------------------------------------
    @staticmethod
    def is_valid(folder: Path, verify_hashes: bool = True) -> bool:
        """True when ``folder`` has a manifest and every listed file matches it."""
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
            files = manifest["files"]
            if sorted(files) != sorted(str(p.relative_to(folder)) for p in _files(folder)):
                return False
            for rel, meta in files.items():
                p = folder / rel
                if p.stat().st_size != meta["size"]:
                    return False
                if verify_hashes and _sha256(p) != meta["sha256"]:
                    return False
            return True
        except (OSError, ValueError, KeyError, TypeError):
            return False

    # -- main API ----------------------------------------------------------
    def get(self, kind: str, config: Mapping[str, Any]) -> Path | None:
        """The entry's folder if it exists and is valid; a corrupt one is removed."""
        folder = self.path(kind, config)
        if not folder.exists():
            return None
        if self.is_valid(folder):
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        return None

    def get_or_create(
        self,
        kind: str,
        config: Mapping[str, Any],
        build: Callable[[Path], None],
    ) -> Path:
        """Return the entry for ``(kind, config)``, calling ``build(tmpdir)`` if absent.

        ``build`` writes the artifact's files into the folder it is given. If it
        raises, or the process dies, the temporary folder is never visible as
        an entry (and is swept by :meth:`sweep_tmp`).
        """
        hit = self.get(kind, config)
        if hit is not None:
            return hit
        final = self.path(kind, config)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.parent / f"{_TMP_PREFIX}{final.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            build(tmp)
            (tmp / CONFIG).write_text(
                json.dumps({"kind": kind, "format": FORMAT_VERSION, "config": config},
                           indent=2, sort_keys=True, default=_json_default)
            )
            self._write_manifest(tmp)
            try:
                os.rename(tmp, final)
            except OSError:
                # Another process finished the same entry first: use theirs.
                shutil.rmtree(tmp, ignore_errors=True)
                if not self.is_valid(final):
                    raise CacheError(f"cache entry {final} appeared but is not valid")
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return final

    @staticmethod
    def _write_manifest(folder: Path) -> None:
        files = {
            str(p.relative_to(folder)): {"size": p.stat().st_size, "sha256": _sha256(p)}
            for p in _files(folder)
        }
        manifest = {"format": FORMAT_VERSION, "created": time.time(), "files": files}
        tmp = folder / (MANIFEST + ".part")
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, folder / MANIFEST)

    # -- listing and cleaning ------------------------------------------------
    def entries(self) -> Iterator[Entry]:
        if not self.root.exists():
            return
        for kind_dir in sorted(p for p in self.root.iterdir() if p.is_dir()):
            for folder in sorted(kind_dir.iterdir()):
                if folder.name.startswith(_TMP_PREFIX) or not folder.is_dir():
                    continue
                try:
                    manifest = json.loads((folder / MANIFEST).read_text())
                    config = json.loads((folder / CONFIG).read_text()).get("config", {})
                    size = sum(m["size"] for m in manifest["files"].values())
                    created = float(manifest["created"])
                except (OSError, ValueError, KeyError):
                    config, size, created = {"corrupt": True}, 0, 0.0
                yield Entry(kind_dir.name, folder.name, folder, size, created, config)

    @staticmethod
    def _builder_alive(tmp: Path) -> bool:
        """Whether the process that owns temporary folder ``tmp`` (``.tmp-<name>-<pid>-<hex>``) still runs.

        Only a folder whose builder is gone may be swept: removing a live build's folder would make
        that build fail (or, worse, publish a partial entry).
        """
        try:
            pid = int(tmp.name.rsplit("-", 2)[-2])
        except (IndexError, ValueError):
            return False
        if pid == os.getpid():
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # someone else's live process
            return True
        return True

    def sweep_tmp(self) -> int:
        """Remove temporary folders left by killed builds (never a live build's); returns how many."""
        n = 0
        if self.root.exists():
            for p in self.root.glob(f"*/{_TMP_PREFIX}*"):
                if self._builder_alive(p):
                    continue
                shutil.rmtree(p, ignore_errors=True)
                n += 1
        return n

    def clear(self, kind: str | None = None) -> int:
        """Remove every entry (or every entry of ``kind``); returns how many."""
        n = 0
        for e in list(self.entries()):
            if kind is None or e.kind == kind:
                shutil.rmtree(e.path, ignore_errors=True)
                n += 1
        self.sweep_tmp()
        return n


# -- tensors and JSON --------------------------------------------------------
def save_tensors(path: str | Path, tensors: Mapping[str, Any], metadata: Mapping[str, str] | None = None) -> None:
    """Save a dict of torch tensors as safetensors (contiguous copies)."""
    from safetensors.torch import save_file

    save_file({k: v.detach().contiguous().cpu() for k, v in tensors.items()}, str(path),
              metadata=dict(metadata) if metadata else None)


def load_tensors(path: str | Path) -> dict[str, Any]:
    from safetensors.torch import load_file

    return load_file(str(path))


def save_json(path: str | Path, obj: Any) -> None:
    Path(path).write_text(json.dumps(obj, indent=2, sort_keys=True, default=_json_default))


def load_json(path: str | Path) -> Any:
    return json.loads(Path(path).read_text())


def memo(kind: str, config: Mapping[str, Any], compute: Callable[[], Any], save: Callable[[Any, Path], None],
         load: Callable[[Path], Any], cache: "ArtifactCache | None" = None) -> Any:
    """The artifact of ``(kind, config)``: on a miss ``compute()`` it, ``save(value, folder)`` it into the
    entry and return the computed value; on a hit ``load(folder)`` it.

    The one "build, save, reload" path of the library: a value is never returned from a half-written
    entry, and a computed value is returned as computed (not reloaded).
    """
    cache = cache or ArtifactCache()
    built: list[Any] = []

    def build(folder: Path) -> None:
        value = compute()
        save(value, folder)
        built.append(value)

    folder = cache.get_or_create(kind, config, build)
    return built[0] if built else load(folder)
