"""Content-addressed artifact cache.

An entry is a folder ``<root>/<kind>/<key>/`` where ``key`` is a hash of
everything that determines the artifact (its config, plus a format version).
It holds the artifact's files, ``artifact.json`` (the config it was built
from, and what built it: package versions, threads and CPU, which the key leaves out so that one model
serves every machine) and a ``MANIFEST.json`` listing every file with its size and SHA-256. The manifest
is written last and the folder appears by one atomic ``rename`` from a
temporary folder, so an entry either exists whole or not at all. A folder
without a valid manifest, or whose files do not match it, is treated as
corrupt: removed and rebuilt, never used.

Besides entries, a kind's folder may hold *temporary folders*, never listed as
entries: ``.tmp-<key>-<pid>-<hex>/`` (a build in progress, or left by a killed
one) and ``.partial-<key>/`` (a resumable build's scratch: a long training's
checkpoints, kept across a kill so that the next build of the same entry
continues from them). A scratch folder is owned through an exclusive ``flock``
on its ``LOCK`` file, so it is reused only once its owner is gone, never while
it runs. :meth:`ArtifactCache.temp_entries` lists temporary folders and
:meth:`ArtifactCache.prune` removes those of dead processes.

Keys, one convention for every artifact:

* an artifact's *kind* is an :class:`ArtifactKind` (the folder name and a ``version``), declared once next
  to the code that builds it; the cache puts the version into every key of the kind, so bumping it (when
  that code changes what it would build) retires every entry of the kind at once;
* its *config* (the key's content) is derived from the configs that build it: each config dataclass gives
  its :meth:`key` (:func:`config_key`: every field, whatever its value, less those that cannot change the
  artifact, such as the device), and a model's architecture enters by its dimensions, never by a size's
  name. No field is left out for having its default value, so a changed default cannot leave a stale
  entry in use. (Until 2026-12-05 keys were assembled per module, with a version constant per module and
  fields left out at their old defaults; the change gave every kind new keys: see ``benchmarks/README.md``,
  "Keys that cannot go stale".)

Tensors are stored as safetensors and metadata as JSON; nothing is unpickled.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from bertology_lib.errors import CacheError, ParameterError
from bertology_lib.runtime import build_record

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no resumable builds, liveness by pid only
    fcntl = None  # type: ignore[assignment]

FORMAT_VERSION = 1
MANIFEST = "MANIFEST.json"
CONFIG = "artifact.json"  # HF models keep their own config.json beside it
_TMP_PREFIX = ".tmp-"
_PARTIAL_PREFIX = ".partial-"
_LOCK = "LOCK"  # in a scratch folder: flock-ed by its owner, holds the owner's pid


def default_root() -> Path:
    """``$BERTOLOGY_CACHE``, else the user's cache dir (``~/.cache/bertology``)."""
    env = os.environ.get("BERTOLOGY_CACHE")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("bertology"))


@dataclass(frozen=True)
class ArtifactKind:
    """A kind of cached artifact: ``name``, the folder its entries live in, and ``version``, part of every
    key of the kind.

    Declare one per kind, next to the code that builds it (``KIND = ArtifactKind("minibert", 1)``), and bump
    its version when that code changes what it would build: every entry of the kind is then rebuilt.
    """

    name: str
    version: int

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or "/" in self.name or self.name.startswith("."):
            raise CacheError(f"kind={self.name!r} is not a valid artifact kind; allowed: a plain name")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise CacheError(f"version={self.version!r} of kind {self.name!r} is invalid; allowed: an int >= 1")

    def __str__(self) -> str:
        return self.name


def config_key(config: Any, leave_out: Iterable[str] = ()) -> dict[str, Any]:
    """The key form of a config dataclass (what its ``key()`` returns): every field, whatever its value,
    except those in ``leave_out`` (fields that cannot change the artifact, e.g. the device).

    A field is never left out for having its default value: that is how keys went stale (a new default,
    an old entry). Nested values are hashed through :func:`canonical_json` (configs by their ``key()``).
    """
    skip = set(leave_out)
    names = {f.name for f in dataclasses.fields(config)}
    unknown = sorted(skip - names)
    if unknown:
        raise CacheError(f"leave_out names unknown field(s) {unknown} of {type(config).__name__}")
    return {n: getattr(config, n) for n in sorted(names - skip)}


def canonical_json(obj: Any) -> str:
    """Stable JSON for hashing: sorted keys, no whitespace, tuples as lists, configs by their ``key()``."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_json_default)


def _json_default(o: Any) -> Any:
    if hasattr(o, "key") and callable(o.key):
        return o.key()
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"cannot hash a {type(o).__name__} into a cache key: {o!r}")


def _check_kind(kind: Any) -> ArtifactKind:
    if not isinstance(kind, ArtifactKind):
        raise CacheError(
            f"kind={kind!r} is not an ArtifactKind; allowed: ArtifactKind(name, version), declared "
            "next to the code that builds it"
        )
    return kind


def cache_key(kind: ArtifactKind, config: Mapping[str, Any]) -> str:
    """The hex key of an artifact of ``kind`` (its name and version) built from ``config``."""
    kind = _check_kind(kind)
    payload = canonical_json({"kind": kind.name, "version": kind.version, "format": FORMAT_VERSION, "config": config})
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
    built: dict = field(default_factory=dict)  # versions, threads and CPU that built it ({} before 2026-12-04)
    version: int | None = None  # the kind's version it was built under (None before 2026-12-05)

    @property
    def artifact_kind(self) -> ArtifactKind | None:
        """The :class:`ArtifactKind` it was built under (None for an entry written before kinds had versions)."""
        return None if self.version is None else ArtifactKind(self.kind, self.version)


@dataclass(frozen=True)
class TempEntry:
    """A temporary folder in the cache (a build in progress, or left by a killed one).

    ``size``: bytes of its files; ``pid``: the process that made it (from a ``.tmp-`` folder's name,
    from a ``.partial-`` scratch folder's ``LOCK`` file; None when there is none); ``alive``: whether
    that process still runs (then :meth:`ArtifactCache.prune` leaves the folder alone).
    """

    path: Path
    size: int
    pid: int | None
    alive: bool


class ArtifactCache:
    """A cache rooted at ``root`` (default :func:`default_root`)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()

    # -- paths -------------------------------------------------------------
    def path(self, kind: ArtifactKind, config: Mapping[str, Any]) -> Path:
        return self.root / _check_kind(kind).name / cache_key(kind, config)

    def scratch_path(self, kind: ArtifactKind, config: Mapping[str, Any]) -> Path:
        """The resumable-build scratch folder of ``(kind, config)``: ``<root>/<kind>/.partial-<key>/``."""
        final = self.path(kind, config)
        return final.parent / f"{_PARTIAL_PREFIX}{final.name}"

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
    def get(self, kind: ArtifactKind, config: Mapping[str, Any]) -> Path | None:
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
        kind: ArtifactKind,
        config: Mapping[str, Any],
        build: Callable[..., None],
        scratch: bool = False,
    ) -> Path:
        """Return the entry for ``(kind, config)``, calling ``build(tmpdir)`` if absent.

        ``build`` writes the artifact's files into the folder it is given. If it
        raises, or the process dies, the temporary folder is never visible as
        an entry (and is removed by :meth:`prune`, once its process is gone).

        ``scratch=True`` (resumable builds): ``build(tmpdir, scratch)`` also gets the entry's scratch
        folder (:meth:`scratch_path`), which survives a failed or killed build and is handed to the
        next build of the same entry once its owner is gone, or None while another live process
        owns it (that build then starts from nothing). It is removed once the entry is published.
        """
        hit = self.get(kind, config)
        if hit is not None:
            return hit
        final = self.path(kind, config)
        final.parent.mkdir(parents=True, exist_ok=True)
        lock = self._claim_scratch(self.scratch_path(kind, config)) if scratch else None
        tmp = final.parent / f"{_TMP_PREFIX}{final.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            tmp.mkdir()
            try:
                if scratch:
                    build(tmp, self.scratch_path(kind, config) if lock is not None else None)
                else:
                    build(tmp)
                (tmp / CONFIG).write_text(
                    json.dumps(
                        {
                            "kind": kind.name,
                            "version": kind.version,
                            "format": FORMAT_VERSION,
                            "config": config,
                            "built": build_record(),
                        },
                        indent=2,
                        sort_keys=True,
                        default=_json_default,
                    )
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
            if lock is not None:  # published: the scratch is spent (removed while still locked)
                shutil.rmtree(self.scratch_path(kind, config), ignore_errors=True)
        finally:
            if lock is not None:
                scratch_dir = self.scratch_path(kind, config)
                if scratch_dir.is_dir() and set(os.listdir(scratch_dir)) <= {_LOCK}:  # nothing to resume from
                    shutil.rmtree(scratch_dir, ignore_errors=True)
                os.close(lock)
        return final

    @staticmethod
    def _claim_scratch(folder: Path) -> int | None:
        """Create or take over scratch ``folder``: the fd holding its exclusive lock, or None if a live
        process holds it (or locks are not available here)."""
        if fcntl is None:  # pragma: no cover
            return None
        for _ in range(3):  # a concurrent prune may delete the folder between open and lock
            folder.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(folder / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
            except FileNotFoundError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return None
            try:
                same = os.stat(folder / _LOCK).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            return fd
        return None

    @staticmethod
    def _write_manifest(folder: Path) -> None:
        files = {str(p.relative_to(folder)): {"size": p.stat().st_size, "sha256": _sha256(p)} for p in _files(folder)}
        manifest = {"format": FORMAT_VERSION, "created": time.time(), "files": files}
        tmp = folder / (MANIFEST + ".part")
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, folder / MANIFEST)

    # -- listing and cleaning ------------------------------------------------
    def _kind_dirs(self) -> list[Path]:
        if not self.root.exists():
            return []
        return sorted(p for p in self.root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def kinds(self) -> list[str]:
        """The kinds that have a folder in the cache (with entries or temporary folders), sorted."""
        return [p.name for p in self._kind_dirs()]

    def entries(self) -> Iterator[Entry]:
        """Every entry (never a temporary folder); a corrupt one is listed with ``config={"corrupt": True}``."""
        for kind_dir in self._kind_dirs():
            for folder in sorted(kind_dir.iterdir()):
                if folder.name.startswith(".") or not folder.is_dir():
                    continue
                try:
                    manifest = json.loads((folder / MANIFEST).read_text())
                    recorded = json.loads((folder / CONFIG).read_text())
                    config, built = recorded.get("config", {}), recorded.get("built", {})
                    version = recorded.get("version")
                    size = sum(m["size"] for m in manifest["files"].values())
                    created = float(manifest["created"])
                except (OSError, ValueError, KeyError):
                    config, built, version, size, created = {"corrupt": True}, {}, None, 0, 0.0
                yield Entry(kind_dir.name, folder.name, folder, size, created, config, built, version)

    def temp_entries(self) -> list[TempEntry]:
        """Every temporary folder: builds in progress and those left by killed builds (see :class:`TempEntry`)."""
        out = []
        for kind_dir in self._kind_dirs():
            for folder in sorted(kind_dir.iterdir()):
                if not folder.is_dir() or not folder.name.startswith((_TMP_PREFIX, _PARTIAL_PREFIX)):
                    continue
                out.append(TempEntry(folder, _folder_size(folder), _owner_pid(folder), _owner_alive(folder)))
        return out

    def prune(self, kind: str | None = None) -> int:
        """Remove the temporary folders of dead processes (of ``kind``, or all); returns how many.

        Never a live build's folder: removing it would make that build fail. This includes the
        scratch folders of killed resumable builds: their next build then starts from step 0.
        """
        n = 0
        for dead in (t for t in self.temp_entries() if not t.alive):
            if kind is not None and dead.path.parent.name != kind:
                continue
            if dead.path.name.startswith(_PARTIAL_PREFIX):
                lock = self._claim_scratch(dead.path)  # hold it while deleting: no one takes it over
                if lock is None:
                    continue
                shutil.rmtree(dead.path, ignore_errors=True)
                os.close(lock)
            else:
                shutil.rmtree(dead.path, ignore_errors=True)
            n += 1
        return n

    def clear(self, kind: str | None = None) -> int:
        """Remove every entry (or every entry of ``kind``) and the dead temporary folders with them;
        returns how many entries. An unknown ``kind`` is refused before anything is removed."""
        if kind is not None:
            known = self.kinds()
            if not known:
                raise ParameterError(
                    f"kind={kind!r} is not in the cache at {self.root}; allowed: none (the cache is empty)"
                )
            if kind not in known:
                raise ParameterError(
                    f"kind={kind!r} is not in the cache at {self.root}; allowed: {', '.join(repr(k) for k in known)}"
                )
        n = 0
        for e in list(self.entries()):
            if kind is None or e.kind == kind:
                shutil.rmtree(e.path, ignore_errors=True)
                n += 1
        self.prune(kind)
        return n


def _folder_size(folder: Path) -> int:
    total = 0
    for p in folder.rglob("*"):
        try:
            if p.is_file():
                total += p.stat().st_size
        except OSError:  # removed while we looked
            pass
    return total


def _owner_pid(folder: Path) -> int | None:
    """The pid in a ``.tmp-<name>-<pid>-<hex>`` folder's name, or in a scratch folder's ``LOCK`` file."""
    try:
        if folder.name.startswith(_PARTIAL_PREFIX):
            return int((folder / _LOCK).read_text().strip())
        return int(folder.name.rsplit("-", 2)[-2])
    except (OSError, IndexError, ValueError):
        return None


def _owner_alive(folder: Path) -> bool:
    """Whether the process that owns temporary folder ``folder`` still runs.

    A scratch folder is alive while its ``LOCK`` is flock-ed (released by the OS when its owner
    dies, whatever the pid); a ``.tmp-`` folder while the pid in its name runs.
    """
    if folder.name.startswith(_PARTIAL_PREFIX) and fcntl is not None:
        try:
            fd = os.open(folder / _LOCK, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # closing releases the probe's lock
        return False
    pid = _owner_pid(folder)
    if pid is None:
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


# -- tensors and JSON --------------------------------------------------------
def save_tensors(path: str | Path, tensors: Mapping[str, Any], metadata: Mapping[str, str] | None = None) -> None:
    """Save a dict of torch tensors as safetensors (contiguous copies)."""
    from safetensors.torch import save_file

    save_file(
        {k: v.detach().contiguous().cpu() for k, v in tensors.items()},
        str(path),
        metadata=dict(metadata) if metadata else None,
    )


def load_tensors(path: str | Path) -> dict[str, Any]:
    from safetensors.torch import load_file

    return load_file(str(path))


def _replace_atomically(part: Path, final: Path) -> None:
    with open(part, "rb") as f:
        os.fsync(f.fileno())
    os.replace(part, final)


def save_state(stem: str | Path, state: Any) -> None:
    """Save ``state`` (nested dicts and lists of JSON values and torch tensors, e.g. a training's
    resumable state) as ``<stem>.safetensors`` (the tensors) and ``<stem>.json`` (the rest, with the
    tensor file's SHA-256). Each file is written atomically (temp file, then rename), the JSON last, so
    :func:`load_state` sees a complete state or none. Dict keys become strings; tuples become lists.
    """
    stem = Path(stem)
    tensors: dict[str, Any] = {}

    def flat(x: Any, name: str) -> Any:
        if hasattr(x, "detach") and hasattr(x, "dtype"):  # a torch tensor; cloned: no shared storage
            tensors[name] = x.detach().cpu().clone().contiguous()
            return {"__tensor__": name}
        if isinstance(x, Mapping):
            return {str(k): flat(v, f"{name}.{k}") for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [flat(v, f"{name}.{i}") for i, v in enumerate(x)]
        return x

    tree = flat(state, "s")
    tensor_file, json_file = stem.with_name(stem.name + ".safetensors"), stem.with_name(stem.name + ".json")
    part = tensor_file.with_name(f"{tensor_file.name}.part-{os.getpid()}")
    save_tensors(part, tensors)
    _replace_atomically(part, tensor_file)
    part = json_file.with_name(f"{json_file.name}.part-{os.getpid()}")
    part.write_text(
        json.dumps({"format": FORMAT_VERSION, "sha256": _sha256(tensor_file), "state": tree}, default=_json_default)
    )
    _replace_atomically(part, json_file)


def load_state(stem: str | Path) -> Any | None:
    """The state saved by :func:`save_state` at ``stem``, or None when it is missing, incomplete or corrupt."""
    from safetensors import SafetensorError

    stem = Path(stem)
    tensor_file = stem.with_name(stem.name + ".safetensors")
    try:
        meta = json.loads(stem.with_name(stem.name + ".json").read_text())
        if meta["format"] != FORMAT_VERSION or meta["sha256"] != _sha256(tensor_file):
            return None
        tensors = load_tensors(tensor_file)

        def unflat(x: Any) -> Any:
            if isinstance(x, dict):
                return tensors[x["__tensor__"]] if set(x) == {"__tensor__"} else {k: unflat(v) for k, v in x.items()}
            if isinstance(x, list):
                return [unflat(v) for v in x]
            return x

        return unflat(meta["state"])
    except (OSError, ValueError, KeyError, TypeError, SafetensorError):
        return None


def save_json(path: str | Path, obj: Any) -> None:
    Path(path).write_text(json.dumps(obj, indent=2, sort_keys=True, default=_json_default))


def load_json(path: str | Path) -> Any:
    return json.loads(Path(path).read_text())


def memo(
    kind: ArtifactKind,
    config: Mapping[str, Any],
    compute: Callable[[], Any],
    save: Callable[[Any, Path], None],
    load: Callable[[Path], Any],
    cache: "ArtifactCache | None" = None,
) -> Any:
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
