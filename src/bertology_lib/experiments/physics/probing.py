"""P-probing and Q-probing of Physics of Language Models 3.1 (arXiv 2309.14316).

Used by the ``physics_05_probing`` and ``physics_06_bert`` notebooks. Builds on
:mod:`bertology_lib.experiments.physics.training` (the decoders) and :func:`bertology_lib.analysis.probing.probe_sweep`
(one linear probe per layer, all layers fitted together).

* :func:`p_probe` (paper §5, App. E): a *frozen* model reads whole biographies; at the last token of the
  person's name and at the token just before each attribute's value (the six "attribute positions"),
  a linear probe per (position, layer) predicts each of the six attributes. Probes train on the
  biographies of half of the people and are tested on the other half. :func:`probe_table` pivots the
  result into the paper's 6 x 6 table (position x attribute).
* :func:`q_probe` (paper §6): the input is only the person's full name; a linear probe at the name's last
  token predicts each attribute.

Conventions. ``layer`` indexes HF ``hidden_states``: 0 is the embedding output, ``l`` the output of block
``l - 1`` (0-based blocks), the last one the model's final hidden state (after the final norm for Llama).
Every sequence starts the way the model saw text in training: decoders get ``<eos>`` in front (packed
pretraining windows put ``<eos>`` before every biography), BERTs get ``[CLS] ... [SEP]``. So the
"position before the value" always exists, even when a biography opens with a value.

Labels (:func:`attribute_label`): the attribute's value as a class, except birth date, whose default
label is the birth *month* (12 classes; ``birth_date_label`` picks year, day or the full date). A probe
can only predict classes it saw in training, so at small N the many-valued attributes (university:
300 values) have an accuracy ceiling below 1; the ``majority`` column is the floor.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis.probing import ProbeConfig, probe_sweep
from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics.evaluation import (
    encode_words,
    pad_right,
    token_index,
)
from bertology_lib.validation import check_float, check_fraction, check_int

BIRTH_DATE_LABELS: tuple[str, ...] = ("month", "year", "day", "full")


POSITION_BY: tuple[str, ...] = ("order", "attribute")


NAME_POSITION = "name"


_STREAM_SPLIT = 11  # private RNG stream of the probe people split


def attribute_label(person: bios.Person, attribute: str, birth_date_label: str = "month") -> str:
    """The class a probe predicts for ``attribute`` of ``person``.

    The value itself ("Princeton, NJ"), except ``birth_date``: its month (the first word of the answer,
    12 classes), year (200 classes), day (28) or the full date, per ``birth_date_label``.
    """
    if birth_date_label not in BIRTH_DATE_LABELS:
        raise ParameterError(
            f"birth_date_label={birth_date_label!r} is unknown; allowed: {', '.join(BIRTH_DATE_LABELS)}"
        )
    if attribute != "birth_date":
        return person.value(attribute)  # validates the attribute name
    if birth_date_label == "month":
        return bios.MONTHS[person.birth_month - 1]
    if birth_date_label == "year":
        return str(person.birth_year)
    if birth_date_label == "day":
        return str(person.birth_day)
    return person.birth_date


def position_labels(position_by: str = "order") -> list[str]:
    """Names of the seven probed positions: ``name``, then ``pos1..pos6`` (text order) or the attributes.

    ``order``: ``posK`` is the token before the K-th attribute value in the text (for bioS single, text
    order is :data:`bertology_lib.data.bios.ATTRIBUTES`); ``attribute``: the position is named by the
    attribute whose value follows it, wherever it stands in the text.
    """
    if position_by not in POSITION_BY:
        raise ParameterError(f"position_by={position_by!r} is unknown; allowed: {', '.join(POSITION_BY)}")
    if position_by == "order":
        return [NAME_POSITION, *(f"pos{k}" for k in range(1, len(bios.ATTRIBUTES) + 1))]
    return [NAME_POSITION, *bios.ATTRIBUTES]


def bio_positions(entry: bios.BioEntry, position_by: str = "order") -> list[tuple[str, str, int]]:
    """``(position, where, word)`` for the seven probed positions of one biography, in :func:`position_labels` order.

    ``where`` is ``"last"`` (the last token of word ``word``: the name's last word) or ``"before"`` (the
    token just before word ``word``: the value's first word). Word indices index ``bios.words(entry.text)``.
    """
    labels = position_labels(position_by)
    name_start, name_end = entry.span(NAME_POSITION)
    values = sorted((s, lab) for lab, s, _ in entry.spans if lab != NAME_POSITION)  # text order
    out = [(NAME_POSITION, "last", name_end - 1)]
    if position_by == "order":
        out += [(f"pos{k}", "before", s) for k, (s, _) in enumerate(values, start=1)]
    else:
        first = {lab: s for s, lab in reversed(values)}
        out += [(a, "before", first[a]) for a in bios.ATTRIBUTES]
    assert [p for p, _, _ in out] == labels, (out, labels)
    return out


@torch.no_grad()
def states_at(
    model, tokenizer, texts: Sequence[str], positions: Sequence[Sequence[tuple[str, int]]], batch_size: int = 64
) -> torch.Tensor:
    """Hidden states of every layer at given word positions: ``(n_layers + 1, n_texts, K, d_model)``.

    ``positions[i]``: K ``(where, word)`` pairs for ``texts[i]`` (``where``: ``"last"`` token of the word or
    the token ``"before"`` it). One forward per batch with ``output_hidden_states=True`` on the model's
    body (no LM head); right padding, so causal models see exactly the unpadded prefix.
    """
    if len(texts) != len(positions) or not texts:
        raise ParameterError(f"len(texts)={len(texts)} and len(positions)={len(positions)} must be equal and > 0")
    ks = {len(p) for p in positions}
    if len(ks) != 1:
        raise ParameterError(f"every text needs the same number of positions, got {sorted(ks)}")
    ids, word_ids = encode_words(tokenizer, texts)
    tok_pos = [[token_index(w, word, where) for where, word in pos] for w, pos in zip(word_ids, positions)]
    body = getattr(model, "base_model", model)
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    chunks = []
    for s in range(0, len(ids), batch_size):
        rows = ids[s : s + batch_size]
        x, mask = pad_right(rows, pad)
        out = body(input_ids=x.to(device), attention_mask=mask.to(device), output_hidden_states=True)
        hs = torch.stack(tuple(out.hidden_states))  # (L+1, B, T, d)
        pos = torch.tensor(tok_pos[s : s + batch_size], device=device)  # (B, K)
        chunks.append(hs[:, torch.arange(len(rows), device=device)[:, None], pos].float().cpu())  # (L+1, B, K, d)
    model.train(was_training)
    return torch.cat(chunks, dim=1)


def _n_states(model) -> int | None:
    """Number of hidden states (embeddings + blocks) from the model's config, if it says."""
    n = getattr(getattr(model, "config", None), "num_hidden_layers", None)
    return n + 1 if isinstance(n, int) else None


def _select_layers(layers, n_states: int | None) -> list[int]:
    """Validate ``layers`` ('all' or ints in 0..n_states-1); ``n_states=None`` (unknown yet) checks >= 0 only."""
    hi = "" if n_states is None else f" in 0..{n_states - 1}"
    if isinstance(layers, str):
        if layers != "all":
            raise ParameterError(f"layers={layers!r} is invalid; allowed: 'all' or a list of ints{hi} (0 = embeddings)")
        return list(range(n_states or 0))
    chosen = list(layers)
    bad = [
        x
        for x in chosen
        if isinstance(x, bool)
        or not isinstance(x, (int, np.integer))
        or x < 0
        or (n_states is not None and x >= n_states)
    ]
    if bad or not chosen:
        raise ParameterError(
            f"layers={layers!r} is invalid; allowed: 'all' or a non-empty list of ints{hi} (0 = embeddings)"
        )
    return [int(x) for x in chosen]


def people_split(n_total: int, n_people: int | None, train_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train people, test people): a seeded random subset of ``n_people``, split ``train_fraction``."""
    check_int("seed", seed, minimum=0)
    check_fraction("train_fraction", train_fraction)
    n = n_total if n_people is None else n_people
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= n_total:
        raise ParameterError(f"n_people={n_people!r} is out of range; allowed: None (all) or an int in 2..{n_total}")
    rng = np.random.default_rng([int(seed), _STREAM_SPLIT])
    chosen = rng.permutation(n_total)[:n]
    n_train = min(n - 1, max(1, int(round(train_fraction * n))))
    return np.sort(chosen[:n_train]), np.sort(chosen[n_train:])


def val_split(test_people: np.ndarray, val_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(validation people, test people): a seeded ``val_fraction`` of the probe's held-out people chooses the
    layer, the rest scores it once, so no reported accuracy is a maximum over layers on its own items.
    ``val_fraction`` 0 gives no validation people (the layer is then chosen on the test people; the rows say
    so with ``val_accuracy`` NaN)."""
    check_fraction("val_fraction", val_fraction, open_min=False)
    test_people = np.asarray(test_people)
    n_val = int(round(val_fraction * len(test_people)))
    if val_fraction and not 1 <= n_val < len(test_people):
        raise ParameterError(
            f"val_fraction={val_fraction!r} leaves {n_val} of {len(test_people)} held-out people for "
            "validation; allowed: a fraction that keeps at least one person on each side"
        )
    rng = np.random.default_rng([int(seed), _STREAM_SPLIT + 1])
    order = rng.permutation(len(test_people))
    return np.sort(test_people[order[:n_val]]), np.sort(test_people[order[n_val:]])


def _majority(labels: Sequence[str], tr: np.ndarray, te: np.ndarray) -> float:
    """Test accuracy of always guessing the most common training label (ties: alphabetically first)."""
    counts = Counter(labels[i] for i in tr)
    guess = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return float(np.mean([labels[i] == guess for i in te]))


def p_probe(
    model,
    tokenizer,
    dataset: bios.BioDataset,
    layers: str | Sequence[int] = "all",
    n_people: int | None = None,
    cfg: ProbeConfig | None = None,
    seed: int = 0,
    position_by: str = "order",
    birth_date_label: str = "month",
    bios_per_person: int | None = None,
    train_fraction: float = 0.5,
    batch_size: int = 64,
    val_fraction: float = 0.5,
) -> pd.DataFrame:
    """P-probing (paper §5, App. E): linear probes on a frozen model's states inside biographies.

    For every biography of ``n_people`` people (default: all; ``bios_per_person`` caps copies per person),
    take every layer's hidden state at the seven positions of :func:`bio_positions` (``name`` and
    ``pos1..pos6`` in text order, or named by attribute with ``position_by="attribute"``), and fit one
    linear probe per (position, layer) for each attribute's label (:func:`attribute_label`). The probes
    train on the biographies of ``train_fraction`` of the people and are tested on the rest (a split
    seeded by ``seed``, by person, so a test person's facts are never seen by the probe). ``val_fraction`` of
    the held-out people (:func:`val_split`) only choose the layer.

    Returns one row per (position, attribute, layer): ``accuracy`` (test), ``val_accuracy``,
    ``train_accuracy``, ``majority`` (test accuracy of the most common training label), ``n_train``,
    ``n_val``, ``n_test`` (rows). :func:`probe_table` turns it into the 7 x 6 table (layer chosen on
    ``val_accuracy``).
    """
    cfg = cfg or ProbeConfig()
    labels_pos = position_labels(position_by)
    attribute_label(dataset.people[0], "birth_date", birth_date_label)  # validates before any work
    if bios_per_person is not None:
        check_int("bios_per_person", bios_per_person, minimum=1)
    _select_layers(layers, _n_states(model))  # validates before any work
    tr_people, held_out = people_split(len(dataset.people), n_people, train_fraction, seed)
    va_people, te_people = val_split(held_out, val_fraction, seed)
    role = (
        {int(p): "train" for p in tr_people} | {int(p): "val" for p in va_people} | {int(p): "test" for p in te_people}
    )
    entries, seen = [], Counter()
    for e in dataset.bios:  # dataset order (shuffled), capped per person
        if e.person in role and (bios_per_person is None or seen[e.person] < bios_per_person):
            entries.append(e)
            seen[e.person] += 1
    pos = [[(where, word) for _, where, word in bio_positions(e, position_by)] for e in entries]
    H = states_at(model, tokenizer, [e.text for e in entries], pos, batch_size)  # (L+1, n, 7, d)
    chosen = _select_layers(layers, H.shape[0])
    H = H[chosen]  # (L', n, 7, d)
    n_l, n, n_p, d = H.shape
    X = H.permute(2, 0, 1, 3).reshape(n_p * n_l, n, d)  # probe index = position * L' + layer
    tr, va, te = (
        np.array([i for i, e in enumerate(entries) if role[e.person] == r], dtype=int) for r in ("train", "val", "test")
    )
    rows = []
    for a in bios.ATTRIBUTES:
        y = [attribute_label(dataset.people[e.person], a, birth_date_label) for e in entries]
        res = probe_sweep(X, y, tr, te, cfg, val_idx=va if len(va) else None)
        maj = _majority(y, tr, te)
        for k in range(n_p * n_l):
            rows.append(
                {
                    "position": labels_pos[k // n_l],
                    "attribute": a,
                    "layer": chosen[k % n_l],
                    "accuracy": float(res.test_acc[k]),
                    "val_accuracy": float(res.val_acc[k]) if len(va) else math.nan,
                    "train_accuracy": float(res.train_acc[k]),
                    "majority": maj,
                    "n_train": len(tr),
                    "n_val": len(va),
                    "n_test": len(te),
                }
            )
    return pd.DataFrame(rows)


def _name_states(
    model,
    tokenizer,
    dataset: bios.BioDataset,
    n_people: int | None,
    train_fraction: float,
    seed: int,
    batch_size: int,
    val_fraction: float = 0.0,
) -> tuple[torch.Tensor, list[int], int, int]:
    """Every layer's state at the last token of each bare full name (the Q-probe input): ``(L+1, n, d)``,
    the people in that order (probe-training people, then validation people, then test people), how many
    train the probe and how many validate (:func:`val_split`)."""
    tr_people, held_out = people_split(len(dataset.people), n_people, train_fraction, seed)
    va_people, te_people = val_split(held_out, val_fraction, seed)
    people = np.concatenate([tr_people, va_people, te_people]).tolist()
    names = [dataset.people[i].full_name for i in people]
    pos = [[("last", len(bios.words(s)) - 1)] for s in names]
    return states_at(model, tokenizer, names, pos, batch_size)[:, :, 0], people, len(tr_people), len(va_people)


def q_probe(
    model,
    tokenizer,
    dataset: bios.BioDataset,
    layers: str | Sequence[int] = "all",
    n_people: int | None = None,
    cfg: ProbeConfig | None = None,
    seed: int = 0,
    birth_date_label: str = "month",
    train_fraction: float = 0.5,
    batch_size: int = 256,
    val_fraction: float = 0.5,
) -> pd.DataFrame:
    """Q-probing (paper §6): predict each attribute from the state at the last token of the bare full name.

    The input is only ``"<eos> First Middle Last"`` (decoders) or ``"[CLS] First Middle Last [SEP]"``
    (BERT). One row per person; probes train on ``train_fraction`` of the people (seeded split, as in
    :func:`p_probe`) and are tested on the rest, of which ``val_fraction`` only choose the layer
    (:func:`val_split`). Returns one row per (attribute, layer): ``accuracy``, ``val_accuracy``,
    ``train_accuracy``, ``majority`` (the per-attribute baseline), ``n_train``, ``n_val``, ``n_test``.
    """
    cfg = cfg or ProbeConfig()
    attribute_label(dataset.people[0], "birth_date", birth_date_label)  # validates before any work
    _select_layers(layers, _n_states(model))  # validates before any work
    H, people, n_train, n_val = _name_states(
        model, tokenizer, dataset, n_people, train_fraction, seed, batch_size, val_fraction
    )
    chosen = _select_layers(layers, H.shape[0])
    X = H[chosen]
    tr, va, te = np.arange(n_train), np.arange(n_train, n_train + n_val), np.arange(n_train + n_val, len(people))
    rows = []
    for a in bios.ATTRIBUTES:
        y = [attribute_label(dataset.people[i], a, birth_date_label) for i in people]
        res = probe_sweep(X, y, tr, te, cfg, val_idx=va if n_val else None)
        maj = _majority(y, tr, te)
        for k, layer in enumerate(chosen):
            rows.append(
                {
                    "attribute": a,
                    "layer": layer,
                    "accuracy": float(res.test_acc[k]),
                    "val_accuracy": float(res.val_acc[k]) if n_val else math.nan,
                    "train_accuracy": float(res.train_acc[k]),
                    "majority": maj,
                    "n_train": len(tr),
                    "n_val": n_val,
                    "n_test": len(te),
                }
            )
    return pd.DataFrame(rows)


def q_probe_rank(
    model,
    tokenizer,
    dataset: bios.BioDataset,
    rank: int = 8,
    steps: int = 300,
    lr: float = 3e-3,
    weight_decay: float = 0.01,
    n_people: int | None = None,
    seed: int = 0,
    birth_date_label: str = "month",
    train_fraction: float = 0.5,
) -> pd.DataFrame:
    """Q-probing with a rank-``rank`` update of the input embeddings (paper App. E: "nearly linear" probing).

    Per attribute: the model stays frozen; a trainable low-rank term ``A[token] @ B`` (``A``: vocab x rank,
    zero at the start, ``B``: rank x d) is added to the embeddings of the bare name ``<eos> First Middle
    Last``, and a linear head on the final hidden state at the name's last token predicts the attribute.
    Both train together (AdamW, full batch, ``steps`` steps) on ``train_fraction`` of the people (the split
    of :func:`q_probe`) and are tested on the rest. The update lets the probe adjust *how the name is read*
    without rewriting what the model stores. Returns one row per attribute: ``accuracy`` (test),
    ``train_accuracy``, ``majority``, ``n_train``, ``n_test``, ``rank``.
    """
    check_int("rank", rank, minimum=1)
    check_int("steps", steps, minimum=1)
    check_float("lr", lr, minimum=0.0, open_min=True)
    attribute_label(dataset.people[0], "birth_date", birth_date_label)  # validates before any work
    tr_people, te_people = people_split(len(dataset.people), n_people, train_fraction, seed)
    people = np.concatenate([tr_people, te_people]).tolist()
    ids, word_ids = encode_words(tokenizer, [dataset.people[i].full_name for i in people])
    last = [token_index(w, len(bios.words(dataset.people[i].full_name)) - 1, "last") for w, i in zip(word_ids, people)]
    x, mask = pad_right(ids, tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0)
    body = getattr(model, "base_model", model)
    emb = model.get_input_embeddings()
    dev = emb.weight.device  # the probe's tensors live beside the frozen model (a GPU at `full`)
    x, mask, last_t = x.to(dev), mask.to(dev), torch.tensor(last, device=dev)
    was_training = model.training
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    d = emb.weight.shape[1]
    tr, te = torch.arange(len(tr_people)), torch.arange(len(tr_people), len(people))
    rows_idx = torch.arange(len(people))
    rows = []
    try:
        for a in bios.ATTRIBUTES:
            labels = [attribute_label(dataset.people[i], a, birth_date_label) for i in people]
            classes = sorted(set(labels[k] for k in tr.tolist()))
            index = {c: k for k, c in enumerate(classes)}
            y = torch.tensor([index.get(lab, -1) for lab in labels], device=dev)  # -1: no training person has it
            g = torch.Generator().manual_seed(seed)
            A = torch.zeros(emb.weight.shape[0], rank, device=dev, requires_grad=True)
            B = (torch.randn(rank, d, generator=g) * 0.02).to(dev).requires_grad_(True)
            head = torch.nn.Linear(d, len(classes)).to(dev)
            opt = torch.optim.AdamW([A, B, *head.parameters()], lr=lr, weight_decay=weight_decay)

            def logits(rows_sel):
                e = emb(x[rows_sel]) + A[x[rows_sel]] @ B
                h = body(inputs_embeds=e, attention_mask=mask[rows_sel]).last_hidden_state
                return head(h[torch.arange(len(rows_sel), device=dev), last_t[rows_sel]])

            for _ in range(steps):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(logits(tr), y[tr])
                loss.backward()
                opt.step()
            with torch.no_grad():
                pred = logits(rows_idx).argmax(-1)
            rows.append(
                {
                    "attribute": a,
                    "accuracy": float((pred[te] == y[te]).float().mean()),
                    "train_accuracy": float((pred[tr] == y[tr]).float().mean()),
                    "majority": _majority(labels, tr.numpy(), te.numpy()),
                    "n_train": len(tr),
                    "n_test": len(te),
                    "rank": rank,
                }
            )
    finally:
        for p in model.parameters():
            p.requires_grad_(True)
        model.train(was_training)
    return pd.DataFrame(rows)


def attribute_pool(attribute: str, birth_date_label: str = "month", config: bios.BioConfig | None = None) -> list[str]:
    """Every label the bioS generator can give ``attribute`` (:func:`attribute_label`) in datasets of ``config``
    (default: the paper's pools), not only those of the people drawn: the candidate answers of
    :func:`q_probe_vocab`."""
    pools = (config or bios.BioConfig(n_people=1)).value_pools()
    if attribute not in bios.ATTRIBUTES:
        raise ParameterError(f"attribute={attribute!r} is unknown; allowed: {', '.join(bios.ATTRIBUTES)}")
    if attribute != "birth_date":
        return list(pools[attribute])
    if birth_date_label == "month":
        return list(bios.MONTHS)
    if birth_date_label == "year":
        return [str(y) for y in range(bios.YEARS[0], bios.YEARS[1] + 1)]
    if birth_date_label == "day":
        return [str(d) for d in range(bios.DAYS[0], bios.DAYS[1] + 1)]
    raise ParameterError(f"birth_date_label={birth_date_label!r} has no candidate pool; allowed: month, year, day")


def q_probe_vocab(
    model,
    tokenizer,
    dataset: bios.BioDataset,
    layers: str | Sequence[int] = "all",
    rank: int = 16,
    steps: int = 300,
    lr: float = 3e-3,
    weight_decay: float = 0.01,
    n_people: int | None = None,
    seed: int = 0,
    birth_date_label: str = "month",
    train_fraction: float = 0.5,
    batch_size: int = 256,
    val_fraction: float = 0.5,
) -> pd.DataFrame:
    """Q-probing through the model's own output embeddings, so a probe can name values it never saw.

    A linear probe (:func:`q_probe`) can only predict classes present among its training people; at small
    N most universities, majors and companies of the test people are absent (``ex-physics05-ceiling``).
    Here every candidate value ``c`` of :func:`attribute_pool` is represented by ``e_c``, the mean of the
    model's output-embedding rows of the value's words (centred over the pool, so words that all values
    share, like "University", cancel), and the probe scores ``s_c = e_c . (x U V)``, with ``x`` the
    standardised state at the name's last token (bare name, as in :func:`q_probe`) and ``U V`` a trainable
    rank-``rank`` linear map (no per-class weights, so nothing is specific to training values). The model
    stays frozen; ``U``, ``V`` of every layer train together (AdamW, full batch, ``steps`` steps) on the
    training people's cross-entropy over the whole pool and are tested on the other people, of which
    ``val_fraction`` only choose the layer (:func:`val_split`). Returns one row per (attribute, layer):
    ``accuracy``, ``val_accuracy``, ``train_accuracy``, ``majority``, ``n_classes``, ``n_train``, ``n_val``,
    ``n_test``.
    """
    check_int("rank", rank, minimum=1)
    check_int("steps", steps, minimum=1)
    check_float("lr", lr, minimum=0.0, open_min=True)
    attribute_pool("birth_date", birth_date_label)  # validates before any work
    _select_layers(layers, _n_states(model))
    out_emb = model.get_output_embeddings()
    if out_emb is None:
        raise ParameterError("the model has no output embeddings; allowed: a causal LM or masked LM with its head")
    H, people, n_train, n_val = _name_states(
        model, tokenizer, dataset, n_people, train_fraction, seed, batch_size, val_fraction
    )
    chosen = _select_layers(layers, H.shape[0])
    X = H[chosen]  # (L', n, d)
    tr, va = torch.arange(n_train), torch.arange(n_train, n_train + n_val)
    te = torch.arange(n_train + n_val, len(people))
    mu, sd = X[:, tr].mean(1, keepdim=True), X[:, tr].std(1, keepdim=True) + 1e-6
    X = (X - mu) / sd
    W = out_emb.weight.detach().float().cpu()  # (vocab, d), beside the name states (on the CPU)
    n_l, _, d = X.shape
    rows = []
    for a in bios.ATTRIBUTES:
        pool = attribute_pool(a, birth_date_label, dataset.config)
        ids = tokenizer([" ".join(bios.words(c)) for c in pool], add_special_tokens=False)["input_ids"]
        E = torch.stack([W[torch.tensor(t)].mean(0) for t in ids])  # (C, d)
        E = E - E.mean(0, keepdim=True)
        labels = [attribute_label(dataset.people[i], a, birth_date_label) for i in people]
        index = {c: k for k, c in enumerate(pool)}
        y = torch.tensor([index[lab] for lab in labels])
        g = torch.Generator().manual_seed(seed)
        U = (torch.randn(n_l, d, rank, generator=g) / math.sqrt(d)).requires_grad_(True)
        V = (torch.randn(n_l, rank, d, generator=g) / math.sqrt(rank)).requires_grad_(True)
        opt = torch.optim.AdamW([U, V], lr=lr, weight_decay=weight_decay)

        def scores(sel: torch.Tensor) -> torch.Tensor:  # (L', n_sel, C)
            return (X[:, sel] @ U @ V) @ E.T

        with torch.enable_grad():
            for _ in range(steps):
                opt.zero_grad()
                s_tr = scores(tr)
                loss = torch.nn.functional.cross_entropy(s_tr.reshape(-1, len(pool)), y[tr].repeat(n_l))
                loss.backward()
                opt.step()
        with torch.no_grad():
            pred = scores(torch.arange(len(people))).argmax(-1)  # (L', n)
        maj = _majority(labels, tr.numpy(), te.numpy())
        for k, layer in enumerate(chosen):
            rows.append(
                {
                    "attribute": a,
                    "layer": layer,
                    "accuracy": float((pred[k, te] == y[te]).float().mean()),
                    "val_accuracy": float((pred[k, va] == y[va]).float().mean()) if n_val else math.nan,
                    "train_accuracy": float((pred[k, tr] == y[tr]).float().mean()),
                    "majority": maj,
                    "n_classes": len(pool),
                    "n_train": len(tr),
                    "n_val": n_val,
                    "n_test": len(te),
                }
            )
    return pd.DataFrame(rows)


def best_layer_rows(result: pd.DataFrame) -> pd.DataFrame:
    """One row per (position,) attribute of a :func:`p_probe` / :func:`q_probe` result: the layer with the best
    ``val_accuracy`` (ties: the shallower layer), scored by its test ``accuracy``. Results without validation
    people (``val_accuracy`` missing or NaN) fall back to the best test accuracy, a maximum over layers on the
    test items themselves, which overstates it."""
    keys = [c for c in ("position", "attribute") if c in result.columns]
    by = "val_accuracy" if "val_accuracy" in result.columns and result["val_accuracy"].notna().all() else "accuracy"
    ordered = result.sort_values([by, "layer"], ascending=[False, True], kind="stable")
    return (
        ordered.groupby(keys, sort=False)
        .head(1)
        .set_index(keys)
        .reindex(result[keys].drop_duplicates().set_index(keys).index)
        .reset_index()
    )


def probe_table(result: pd.DataFrame, layer: str | int = "best", value: str = "accuracy") -> pd.DataFrame:
    """Pivot a :func:`p_probe` / :func:`q_probe` result to positions x attributes (or attributes x 1).

    ``layer``: ``"best"`` (per cell, the layer chosen on the validation people, :func:`best_layer_rows`),
    ``"last"`` (the deepest probed layer) or a layer index.
    """
    if value not in result.columns:
        raise ParameterError(f"value={value!r} is not a column; allowed: {', '.join(map(str, result.columns))}")
    if layer == "best":
        sub = best_layer_rows(result)
    else:
        target = result["layer"].max() if layer == "last" else layer
        if isinstance(target, str) or target not in set(result["layer"]):
            raise ParameterError(
                f"layer={layer!r} is not probed; allowed: 'best', 'last' or one of {sorted(set(result['layer']))}"
            )
        sub = result[result["layer"] == target]
    attrs = [a for a in bios.ATTRIBUTES if a in set(sub["attribute"])]
    if "position" not in sub.columns:
        return sub.set_index("attribute")[[value]].reindex(attrs)
    positions = list(dict.fromkeys(sub["position"]))
    return sub.pivot(index="position", columns="attribute", values=value).reindex(index=positions, columns=attrs)
