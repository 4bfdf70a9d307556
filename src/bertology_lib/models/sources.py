"""Model sources: what to fine-tune or evaluate, by name or as a factory of fresh models, with the key
of its weights (what a cached result derived from it is keyed by)."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from bertology_lib.errors import ParameterError
from bertology_lib.models.registry import EMBEDDED, canonical_name, load_model, load_tokenizer, model_path


@functools.lru_cache(maxsize=64)
def _folder_fingerprint(folder: str, stamp: tuple) -> str:
    h = hashlib.sha256()
    for p in sorted(Path(folder).iterdir()):
        if p.name == "config.json" or p.suffix == ".safetensors":
            h.update(p.name.encode())
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
    return h.hexdigest()[:20]


def weights_fingerprint(folder: str | Path) -> str:
    """SHA-256 (20 hex digits) of a model folder's ``config.json`` and ``*.safetensors`` files."""
    folder = str(Path(folder).resolve())
    stamp = tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(Path(folder).iterdir()))
    return _folder_fingerprint(folder, stamp)


@dataclass(frozen=True)
class ModelSource:
    """What to fine-tune or evaluate: a model name (embedded, local folder, hub) or a factory of fresh models.

    ``profile`` and ``seed`` pick the embedded model (e.g. which mini-BERT). A ``factory`` returns a
    new model on every call (any HF model whose ``base_model`` is an encoder); it needs a ``tokenizer``
    (an object, or a name / source resolved like a model name) and, to be cached, a ``key``
    (JSON-able) naming everything that determines its weights.
    """

    name: str
    profile: str = "quick"
    seed: int = 0
    factory: Callable[[], Any] | None = field(default=None, compare=False, repr=False)
    tokenizer: Any = field(default=None, compare=False, repr=False)
    key: Any = field(default=None, compare=False)

    def load_model(self, attn_implementation: str = "sdpa"):
        """A fresh model (weights loaded anew, never shared with an earlier call)."""
        if self.factory is not None:
            return self.factory()
        return load_model(
            self.name, head="base", attn_implementation=attn_implementation, profile=self.profile, seed=self.seed
        )

    def load_tokenizer(self):
        tok = self.tokenizer
        if isinstance(tok, ModelSource):
            return tok.load_tokenizer()
        if tok is None:
            if self.factory is not None:
                raise ParameterError(
                    f"model source {self.name!r} is a factory without a tokenizer; allowed: "
                    "ModelSource(name, factory=fn, tokenizer=<tokenizer or model name>)"
                )
            return load_tokenizer(self.name, profile=self.profile, seed=self.seed)
        if isinstance(tok, (str, Path)):
            return load_tokenizer(str(tok), profile=self.profile, seed=self.seed)
        return tok

    def cache_key(self) -> dict[str, Any] | None:
        """What determines this source's weights (None: not cacheable)."""
        if self.factory is not None:
            return None if self.key is None else {"factory_key": self.key}
        name = canonical_name(self.name)
        path = model_path(name, profile=self.profile, seed=self.seed)
        if Path(path).is_dir():
            return {"weights": weights_fingerprint(path)}
        return {"hub": name} if name not in EMBEDDED else {"embedded": name, "profile": self.profile, "seed": self.seed}


def as_source(source: Any, tokenizer: Any = None) -> ModelSource:
    """A :class:`ModelSource` from a source, a name/folder, or a zero-argument callable."""
    if isinstance(source, ModelSource):
        return source if tokenizer is None else dataclasses.replace(source, tokenizer=tokenizer)
    if isinstance(source, (str, Path)):
        return ModelSource(str(source), tokenizer=tokenizer)
    if callable(source):
        return ModelSource(getattr(source, "__name__", "factory"), factory=source, tokenizer=tokenizer)
    raise ParameterError(
        f"model source={source!r} is not usable; allowed: a model name or folder, "
        "a ModelSource, or a callable returning a fresh model"
    )
