"""The book's notebooks: where they are, their titles and parameter specs.

Each notebook's papermill ``parameters`` cell must declare exactly the
parameters listed here, with the same defaults (a test checks it). The CLI
validates ``-p`` values against these specs before starting a kernel, and the
notebook's second cell validates them again through :func:`resolve`, which returns the
:class:`RunContext` the rest of the notebook reads (profile, seed, device, model, its own knobs).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import bertology_lib.training  # noqa: F401 - registers the embedded models "mini-bert" and "english-bert"
from bertology_lib.errors import ParameterError
from bertology_lib.models.registry import check_mlm_model_name, check_model_name
from bertology_lib.profiles import PROFILE_PARAM, SEED_PARAM, profile_device
from bertology_lib.runtime import apply_thread_policy, resolve_device
from bertology_lib.validation import Param


@dataclass(frozen=True)
class NotebookSpec:
    name: str  # file stem under notebooks/
    title: str
    part: str  # "survey" | "physics" | "duplication"
    params: tuple[Param, ...]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def model_param(default: str, doc: str = "embedded name, local folder, or hub name") -> Param:
    return Param("model", default, doc, str, check=check_model_name)


SPECS: dict[str, NotebookSpec] = {}


def register(spec: NotebookSpec) -> NotebookSpec:
    SPECS[spec.name] = spec
    return spec


register(
    NotebookSpec(
        name="survey_02_architecture",
        title="§2 BERT's architecture",
        part="survey",
        params=(
            PROFILE_PARAM,
            SEED_PARAM,
            model_param("minilm", "a BERT-family encoder: embedded name, local folder or hub name"),
        ),
    )
)


def _survey3(name: str, title: str, real: bool, needs_mlm: bool = False) -> NotebookSpec:
    if needs_mlm:  # every section scores masked words: refuse encoders without a head up front
        model = Param(
            "model",
            "mini-bert",
            "an MLM to test: mini-bert (trained here), a local folder or hub name of a masked LM",
            str,
            check=check_mlm_model_name,
        )
    else:  # sections that need an MLM head explain themselves; the rest run on any encoder
        model = model_param("mini-bert", "a model to test: mini-bert (trained here), a local folder or hub name")
    params = [PROFILE_PARAM, SEED_PARAM, model]
    if real:
        params.append(
            Param(
                "real_model",
                "minilm",
                "a real pretrained encoder for the UD English EWT check",
                str,
                check=check_model_name,
            )
        )
    return register(NotebookSpec(name=name, title=title, part="survey", params=tuple(params)))


_survey3("survey_03_1_syntax", "§3.1 Syntactic knowledge", real=True)
_survey3("survey_03_2_semantics", "§3.2 Semantic knowledge", real=False, needs_mlm=True)
_survey3("survey_03_3_world_knowledge", "§3.3 World knowledge", real=False, needs_mlm=True)
_survey3("survey_03_4_probing_limits", "§3.4 Limitations of probing", real=True)

# The notebooks on a masked LM of English (a loop, not a helper function: the registry's top-level registrations
# are hashed per notebook, stamps.notebook_spec_text; a new function would stale every notebook).
for _name, _title in (
    ("survey_03b_english_bert", "§3–§4 II: the claims on a masked language model of English"),
    ("survey_03c_english_perturbed", "§3.1 III: perturbed masking on real English trees"),
):
    register(
        NotebookSpec(
            name=_name,
            title=_title,
            part="survey",
            params=(
                PROFILE_PARAM,
                SEED_PARAM,
                Param(
                    "model",
                    "english-bert",
                    "a masked LM of English: english-bert (trained here), a local folder or hub name (bert-base-uncased)",
                    str,
                    check=check_mlm_model_name,
                ),
            ),
        )
    )


register(
    NotebookSpec(
        name="duplication_01_reconstruction",
        title="Reconstructing the input from every layer",
        part="duplication",
        params=(
            PROFILE_PARAM,
            SEED_PARAM,
            Param(
                "model",
                "mini-bert",
                "an MLM with a trained head: mini-bert, a local folder or hub name",
                str,
                check=check_mlm_model_name,
            ),
            Param(
                "duplicate_k", 2, "how many of the first blocks to duplicate (no training)", int, minimum=0, maximum=48
            ),
        ),
    )
)


register(
    NotebookSpec(
        name="physics_01_biographies",
        title="The bioS biographies",
        part="physics",
        params=(
            PROFILE_PARAM,
            SEED_PARAM,
            Param("n_people", 0, "people to generate; 0 = the profile's size", int, minimum=0, maximum=200_000),
        ),
    )
)


register(
    NotebookSpec(
        name="duplication_02_boost",
        title="Duplicating layers to boost fine-tuning",
        part="duplication",
        params=(
            PROFILE_PARAM,
            SEED_PARAM,
            model_param("mini-bert", "the encoder to duplicate on toy tasks: mini-bert, a local folder or hub name"),
        ),
    )
)


register(
    NotebookSpec(
        name="duplication_02b_nli_classification",
        title="Duplicating layers II: NLI and sentence classification",
        part="duplication",
        params=(
            PROFILE_PARAM,
            SEED_PARAM,
            model_param("mini-bert", "the encoder to duplicate on toy tasks: mini-bert, a local folder or hub name"),
        ),
    )
)


for _name, _title in (
    ("physics_02_mixed_training", "Mixed training: biographies and questions together"),
    ("physics_03_pretrain_finetune", "Pretrain, then fine-tune: knowledge augmentation"),
    ("physics_04_celebrities", "Celebrities help the minority"),
    ("physics_05_probing", "Where the knowledge is stored: P- and Q-probing"),
    ("physics_06_bert", "BERT: what a masked language model can extract"),
):
    register(NotebookSpec(name=_name, title=_title, part="physics", params=(PROFILE_PARAM, SEED_PARAM)))


_survey3("survey_04_1_embeddings", "§4.1 BERT embeddings", real=True)
_survey3("survey_04_2_attention_heads", "§4.2 Self-attention heads", real=True)
_survey3("survey_04_3_layers", "§4.3 BERT layers", real=True)
_survey3("survey_05_training", "§5 Training BERT", real=True)
register(
    NotebookSpec(
        name="survey_05b_architecture",
        title="§5 Pre-training choices I: depth vs heads",
        part="survey",
        params=(PROFILE_PARAM, SEED_PARAM),
    )
)
register(
    NotebookSpec(
        name="survey_05c_objectives",
        title="§5 Pre-training choices II: what to mask",
        part="survey",
        params=(PROFILE_PARAM, SEED_PARAM),
    )
)
register(
    NotebookSpec(
        name="survey_05d_nsp",
        title="§5 Pre-training choices III: next-sentence prediction",
        part="survey",
        params=(PROFILE_PARAM, SEED_PARAM),
    )
)
_survey3("survey_06_model_size", "§6 How big should BERT be?", real=False)
_survey3("survey_07_directions", "§7 Directions: behavioural tests and shallow heuristics", real=False)


def _real_encoder(name: str, title: str, part: str) -> NotebookSpec:
    """A notebook that fine-tunes a real pretrained encoder on SST-2 (split from its section's notebook,
    whose budget the real encoder's fine-tunings would exceed)."""
    model = model_param("minilm", "a real pretrained encoder to fine-tune on SST-2: minilm, a local folder or hub name")
    return register(NotebookSpec(name=name, title=title, part=part, params=(PROFILE_PARAM, SEED_PARAM, model)))


_real_encoder("survey_06b_real_encoder", "§6 II: pruning and quantising a real encoder", "survey")
_real_encoder("survey_07b_real_encoder", "§7 II: a behavioural suite for a real encoder", "survey")
_real_encoder("duplication_03_real_encoder", "Duplicating the layers of a real encoder", "duplication")


# The English lab BERT fine-tuned on SST-2 with a real-encoder notebook's protocol (notebooks of their own: the
# fine-tunings of both encoders together exceed one notebook's budget). A loop, not a helper function: the
# registry's top-level registrations are hashed per notebook (stamps.hashed_source), a new function would not be.
for _name, _title, _part in (
    ("survey_06c_english_bert", "§6 III: pruning and quantising the English lab BERT", "survey"),
    ("duplication_04_english_bert", "Duplicating the layers of the English lab BERT", "duplication"),
):
    register(
        NotebookSpec(
            name=_name,
            title=_title,
            part=_part,
            params=(
                PROFILE_PARAM,
                SEED_PARAM,
                model_param(
                    "english-bert",
                    "a masked LM of English to fine-tune on SST-2: english-bert, minilm, a local folder or hub name",
                ),
            ),
        )
    )


def get_spec(name: str) -> NotebookSpec:
    stem = Path(name).stem
    if stem not in SPECS:
        raise ParameterError(f"notebook {name!r} is not part of the book; allowed: {', '.join(sorted(SPECS))}")
    return SPECS[stem]


def repo_root() -> Path:
    """The project root (the folder holding ``_toc.yml``), found from the cwd upwards."""
    here = Path.cwd().resolve()
    for p in (here, *here.parents):
        if (p / "_toc.yml").is_file() and (p / "notebooks").is_dir():
            return p
    raise FileNotFoundError(f"no BERTology Lab checkout (a folder with _toc.yml and notebooks/) at or above {here}")


def notebook_paths(root: Path | None = None) -> list[Path]:
    """The book's notebooks in ``_toc.yml`` order (those registered in :data:`SPECS`)."""
    root = root or repo_root()
    order = toc_order(root)
    paths = [root / "notebooks" / f"{n}.ipynb" for n in order if n in SPECS]
    return [p for p in paths if p.is_file()]


def toc_order(root: Path) -> list[str]:
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    out: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("notebooks/"):
                out.append(Path(f).stem)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    return out


# ---------------------------------------------------------------------------------
# Validating a run's parameters and the run context
# ---------------------------------------------------------------------------------


def validate_values(
    notebook: str, specs: tuple[Param, ...], values: Mapping[str, Any], coerce: bool = False
) -> dict[str, Any]:
    """Check every value against ``specs``; unknown names are rejected too.

    With ``coerce=True`` string values (from the command line) are first converted to the declared
    type. Returns the full mapping with defaults filled in.
    """
    by_name = {p.name: p for p in specs}
    unknown = sorted(set(values) - set(by_name))
    if unknown:
        raise ParameterError(f"{notebook}: unknown parameter(s) {', '.join(unknown)}; allowed: {', '.join(by_name)}")
    out: dict[str, Any] = {}
    for p in specs:
        v = values.get(p.name, p.default)
        if coerce:
            v = p.coerce(v)
        out[p.name] = p.validate(v)
    return out


def _papermill_injected_names() -> set[str]:
    """Names papermill injected into the running kernel (its "# Parameters" cell), if any.

    Papermill adds parameters as a new cell; a misspelt name would otherwise be silently ignored by
    the notebook. Outside IPython this returns an empty set.
    """
    import ast

    try:
        from IPython import get_ipython

        ip = get_ipython()
        history = ip.user_ns.get("In", []) if ip is not None else []
    except ImportError:  # pragma: no cover
        return set()
    for src in reversed(history):
        if isinstance(src, str) and src.lstrip().startswith("# Parameters"):
            try:
                tree = ast.parse(src)
            except SyntaxError:
                return set()
            return {
                t.id
                for node in tree.body
                if isinstance(node, ast.Assign)
                for t in node.targets
                if isinstance(t, ast.Name)
            }
    return set()


@dataclass(frozen=True)
class RunContext:
    """The validated parameters of one notebook run, one way down from the parameters cell.

    ``profile`` is the profile's name, ``device`` the resolved device (``cpu`` or ``cuda``); the
    notebook's own parameters read as attributes (``run.model``, ``run.real_model``, ...). Models are
    loaded through :meth:`load` (profile and seed always travel with the name), size tables through
    :meth:`sizes`.
    """

    notebook: str
    profile: str
    seed: int
    device: str
    values: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:  # run.model, run.n_people, ...
        values = object.__getattribute__(self, "values")
        if name in values:
            return values[name]
        raise AttributeError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"notebook": self.notebook, **dict(self.values)}

    def sizes(self, table: Any) -> Any:
        """``table.for_profile(self.profile)``: a size table of this run's profile."""
        return table.for_profile(self.profile)

    def source(self, name: str | None = None):
        """A :class:`~bertology_lib.models.sources.ModelSource` for ``name`` (default: the run's model)."""
        from bertology_lib.models.sources import ModelSource

        return ModelSource(name or self.values["model"], self.profile, self.seed)

    def load(self, name: str | None = None, head: str = "base"):
        """(model, tokenizer) of ``name`` (default: the run's model) at this run's profile, seed and device."""
        from bertology_lib.models.registry import load_model, load_tokenizer

        name = name or self.values["model"]
        kw = dict(profile=self.profile, seed=self.seed)
        return load_model(name, head=head, device=self.device, **kw), load_tokenizer(name, **kw)

    def load_under_test(self, name: str | None = None):
        """``(model, tokenizer, has_mlm)``: the masked LM when ``name`` has a trained head, else its encoder.

        Probing sections run on any encoder; cloze sections check ``has_mlm`` and explain themselves
        (:func:`~bertology_lib.models.registry.explain_no_mlm`) instead of crashing.
        """
        from bertology_lib.models.registry import has_mlm_head

        name = name or self.values["model"]
        mlm = has_mlm_head(name)
        model, tok = self.load(name, head="mlm" if mlm else "base")
        if not mlm:
            print(
                f"{name}: no trained masked-LM head; sections that score masked words are skipped "
                "with a note, the others run on its encoder states"
            )
        return model, tok, mlm


def resolve(notebook: str, **values: Any) -> RunContext:
    """Validate a notebook's parameters and return its :class:`RunContext`.

    Called in the cell after every notebook's parameters cell::

        run = resolve("survey_02_architecture", profile=profile, seed=seed, model=model)
    """
    spec = get_spec(notebook)
    unknown = sorted(_papermill_injected_names() - {p.name for p in spec.params})
    if unknown:
        raise ParameterError(
            f"{notebook}: unknown parameter(s) {', '.join(unknown)}; allowed: {', '.join(p.name for p in spec.params)}"
        )
    checked = validate_values(notebook, spec.params, values)
    apply_thread_policy()  # BERTOLOGY_THREADS, else the free cores: two threads on a busy core stall
    return RunContext(
        notebook=notebook,
        profile=checked["profile"],
        seed=checked["seed"],
        device=resolve_device(profile_device(checked["profile"])),
        values=checked,
    )
