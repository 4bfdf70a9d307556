"""Batch builders for causal-LM objectives: packed windows, QA with loss on the answer, mixed pools.

=====================  ==========================================================================
:class:`LMBatches`     causal LM on packed windows (:func:`pack_windows`): no padding at all
:class:`QABatches`     prompt + completion; loss only on the completion (labels -100 elsewhere)
:class:`MixedBatches`  rows drawn from several window pools (e.g. BIO and QA) with given shares
=====================  ==========================================================================

Masked-LM batches live in :mod:`bertology_lib.training.masking`. Every builder walks its examples in
epochs reshuffled by a private generator (:func:`bertology_lib.training.loop.generator`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

import torch

from bertology_lib.errors import ParameterError
from bertology_lib.training.loop import generator

IGNORE_INDEX = -100  # label value ignored by HF losses


def pack_sequences(token_lists: Iterable[Sequence[int]], seq_len: int, eos_id: int) -> list[list[int]]:
    """Concatenate (already shuffled) token lists, each followed by eos, and cut into seq_len windows.

    The final partial window is kept (shorter). Feed a globally shuffled order (e.g. ``dataset.bios``).
    """
    if seq_len < 1:
        raise ParameterError(f"seq_len={seq_len!r} is out of range; allowed: >= 1")
    flat: list[int] = []
    for toks in token_lists:
        flat.extend(toks)
        flat.append(eos_id)
    return [flat[i : i + seq_len] for i in range(0, len(flat), seq_len)]


def pack_windows(token_lists: Iterable[Sequence[int]], seq_len: int, eos_id: int) -> torch.Tensor:
    """(n_windows, seq_len) long tensor: token lists joined with ``eos_id`` and cut into full windows.

    No padding anywhere: the final partial window is dropped (at most seq_len - 1 tokens; pass the
    lists in shuffled order so that nobody is always the one dropped). Raises if not one window fits.
    """
    windows = pack_sequences(token_lists, seq_len, eos_id)
    if windows and len(windows[-1]) < seq_len:
        windows.pop()
    if not windows:
        raise ParameterError(
            f"seq_len={seq_len} is longer than the whole token stream; allowed: a shorter seq_len or more text"
        )
    return torch.tensor(windows, dtype=torch.long)


def pack_whole(token_lists: Iterable[Sequence[int]], seq_len: int, eos_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Pack whole token lists into (n_windows, seq_len) windows without cutting any: (ids, labels).

    Each window is ``eos list eos list eos …`` (every list has ``eos`` in front, as in the stream of
    :func:`pack_windows`), filled greedily in the given order; the rest of a window is ``eos`` filler whose
    labels are -100, so no loss is spent on it. Unlike :func:`pack_windows`, a list never starts in one window
    and ends in the next, so what follows a list's opening words is always in their context. A list longer
    than ``seq_len - 2`` tokens is refused: its opening and closing ``eos`` must fit in the window.
    """
    if seq_len < 2:
        raise ParameterError(f"seq_len={seq_len!r} is out of range; allowed: >= 2")
    windows: list[list[int]] = []
    labels: list[list[int]] = []
    cur: list[int] = []
    for toks in token_lists:
        toks = list(toks)
        if len(toks) + 2 > seq_len:
            raise ParameterError(
                f"a token list of {len(toks)} tokens does not fit seq_len={seq_len} with an eos on each side; "
                "allowed: lists of at most seq_len - 2 tokens"
            )
        if len(cur) + 1 + len(toks) + 1 > seq_len and cur:  # keep room for the closing eos of the last list
            windows.append(cur + [eos_id] * (seq_len - len(cur)))
            labels.append(cur + [eos_id] + [IGNORE_INDEX] * (seq_len - len(cur) - 1))
            cur = []
        cur += [eos_id, *toks]
    if cur:
        windows.append(cur + [eos_id] * (seq_len - len(cur)))
        labels.append(cur + [eos_id] + [IGNORE_INDEX] * (seq_len - len(cur) - 1))
    if not windows:
        raise ParameterError("no token lists to pack; allowed: at least one")
    return torch.tensor(windows, dtype=torch.long), torch.tensor(labels, dtype=torch.long)


def pack_labeled(
    examples: Iterable[tuple[Sequence[int], Sequence[int]]], seq_len: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Pack (input_ids, labels) examples back to back into full windows; returns (ids, labels).

    For objectives that weigh parts of a text differently (e.g. QA with loss on the answer only) but
    still want padding-free windows. Examples should already end with EOS (see :func:`encode_qa`).
    """
    ids: list[int] = []
    labels: list[int] = []
    for x, y in examples:
        if len(x) != len(y):
            raise ParameterError(f"input_ids ({len(x)}) and labels ({len(y)}) differ in length")
        ids.extend(x)
        labels.extend(y)
    n = len(ids) // seq_len
    if n == 0:
        raise ParameterError(
            f"seq_len={seq_len} is longer than all examples together ({len(ids)} tokens); "
            "allowed: a shorter seq_len or more examples"
        )
    return (torch.tensor(ids[: n * seq_len]).view(n, seq_len), torch.tensor(labels[: n * seq_len]).view(n, seq_len))


class GeneratorState:
    """For batch builders whose randomness is their private generator ``_g``: its state, so that a resumed
    training (:class:`bertology_lib.training.loop.Resume`) continues the same stream of batches."""

    _g: torch.Generator

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {"generator": self._g.get_state()}

    def load_state_dict(self, state: Mapping[str, torch.Tensor]) -> None:
        self._g.set_state(state["generator"])


class LMBatches(GeneratorState):
    """Causal-LM batches of packed windows (labels = inputs; HF shifts them). One pass = one epoch.

    Windows are reshuffled every epoch with a private generator; a last short batch is kept.
    """

    def __init__(
        self, windows: torch.Tensor, batch_size: int, seed: int = 0, labels: torch.Tensor | None = None
    ) -> None:
        if windows.ndim != 2 or len(windows) == 0:
            raise ParameterError(f"windows must be a non-empty (n, seq_len) tensor, got shape {tuple(windows.shape)}")
        if labels is not None and labels.shape != windows.shape:
            raise ParameterError(f"labels shape {tuple(labels.shape)} must equal windows shape {tuple(windows.shape)}")
        self.windows, self.labels, self.batch_size = windows, labels, batch_size
        self._g = generator(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.windows) / self.batch_size)

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        order = torch.randperm(len(self.windows), generator=self._g)
        for i in range(0, len(order), self.batch_size):
            idx = order[i : i + self.batch_size]
            x = self.windows[idx]
            yield {"input_ids": x, "labels": (x if self.labels is None else self.labels[idx]).clone()}


def encode_qa(tokenizer, prompt: str, completion: str, eos: bool = True) -> tuple[list[int], list[int]]:
    """(input_ids, labels) of ``prompt completion [eos]``; labels are -100 on the prompt.

    The ids are those of the joined text ``prompt + " " + completion``, and the prompt's own ids are
    their prefix (checked), so training and evaluation (which feeds the prompt alone and generates)
    see the same tokens with word-level and with subword tokenizers (GPT-2 BPE puts the space into the
    completion's first token).
    """
    p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    full = tokenizer(f"{prompt} {completion}", add_special_tokens=False)["input_ids"]
    if full[: len(p)] != p:
        raise ParameterError(
            f"the tokens of prompt {prompt!r} are not a prefix of those of the prompt followed by "
            f"its completion; allowed: a prompt that ends at a token boundary (e.g. after a colon)"
        )
    c = full[len(p) :] + ([tokenizer.eos_token_id] if eos else [])
    return p + c, [IGNORE_INDEX] * len(p) + c


class QABatches(GeneratorState):
    """Padded (right) batches of (input_ids, labels) examples, shuffled per epoch; loss where labels != -100."""

    def __init__(
        self, examples: Sequence[tuple[Sequence[int], Sequence[int]]], batch_size: int, pad_id: int, seed: int = 0
    ) -> None:
        if not examples:
            raise ParameterError("examples is empty; allowed: at least one (input_ids, labels) pair")
        self.examples, self.batch_size, self.pad_id = list(examples), batch_size, pad_id
        self._g = generator(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.examples) / self.batch_size)

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        order = torch.randperm(len(self.examples), generator=self._g).tolist()
        for i in range(0, len(order), self.batch_size):
            yield pad_batch([self.examples[j] for j in order[i : i + self.batch_size]], self.pad_id)


def pad_batch(examples: Sequence[tuple[Sequence[int], Sequence[int]]], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-pad (input_ids, labels) pairs to the longest: pad_id / -100, attention_mask 0 on padding."""
    t = max(len(x) for x, _ in examples)
    ids = torch.full((len(examples), t), pad_id, dtype=torch.long)
    labels = torch.full((len(examples), t), IGNORE_INDEX, dtype=torch.long)
    mask = torch.zeros((len(examples), t), dtype=torch.long)
    for i, (x, y) in enumerate(examples):
        ids[i, : len(x)] = torch.as_tensor(x)
        labels[i, : len(y)] = torch.as_tensor(y)
        mask[i, : len(x)] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def check_shares(shares: Mapping[str, float], sources: Mapping, what: str) -> None:
    """Raise unless ``shares`` has one non-negative share per key of ``sources`` (named ``what``), summing to 1.

    The one check behind every mixed batch builder (:class:`MixedBatches` and the physics part's re-packed and
    alternating builders).
    """
    if set(sources) != set(shares):
        raise ParameterError(f"shares keys {sorted(shares)} must equal {what} keys {sorted(sources)}")
    if any(v < 0 for v in shares.values()) or not math.isclose(sum(shares.values()), 1.0, abs_tol=1e-6):
        raise ParameterError(f"shares={dict(shares)!r} are invalid; allowed: non-negative, summing to 1")


class PooledBatches(GeneratorState):
    """Endless batches whose rows come from several named pools with given shares: each batch draws every row's
    pool (``probs``, the private generator ``_g``) and takes that many rows from each pool in ``names`` order.

    The one drawing loop behind :class:`MixedBatches` and the physics part's re-packed mixed batches
    (:class:`bertology_lib.experiments.physics.training.RepackMixedBatches`); a subclass says how a pool hands
    out its next ``n`` rows (``_take``).
    """

    names: list[str]
    probs: torch.Tensor
    batch_size: int

    def _take(self, name: str, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The next ``n`` rows of pool ``name``: (input_ids, labels)."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        while True:
            source = torch.multinomial(self.probs, self.batch_size, replacement=True, generator=self._g)
            xs, ys = [], []
            for i, name in enumerate(self.names):
                n = int((source == i).sum())
                if n:
                    x, y = self._take(name, n)
                    xs.append(x)
                    ys.append(y)
            yield {"input_ids": torch.cat(xs), "labels": torch.cat(ys).clone()}


class MixedBatches(PooledBatches):
    """Endless batches whose rows come from several pools of full windows with given shares.

    ``pools``: name -> (ids, labels) tensors of shape (n, seq_len) (labels may be None = ids), e.g.
    ``{"bio": (bio_windows, None), "qa": pack_labeled(qa_examples, seq_len)}``; ``shares``: name ->
    probability that a row comes from that pool (summing to 1). Each pool is walked in reshuffled
    epochs, so every window is used equally often. Used for mixed training (BIO + QA in one run).
    """

    def __init__(
        self,
        pools: Mapping[str, tuple[torch.Tensor, torch.Tensor | None]],
        shares: Mapping[str, float],
        batch_size: int,
        seed: int = 0,
    ) -> None:
        check_shares(shares, pools, "pools")
        lengths = {pools[k][0].shape[1] for k in pools}
        if len(lengths) != 1:
            raise ParameterError(f"all pools need the same window length, got {sorted(lengths)}")
        self.names = list(pools)
        self.pools = {k: (x, x if y is None else y) for k, (x, y) in pools.items()}
        self.probs = torch.tensor([float(shares[k]) for k in self.names])
        self.batch_size = batch_size
        self._g = generator(seed)
        self._orders = {k: torch.empty(0, dtype=torch.long) for k in self.names}

    def state_dict(self) -> dict:
        return {"generator": self._g.get_state(), "orders": dict(self._orders)}

    def load_state_dict(self, state: Mapping) -> None:
        self._g.set_state(state["generator"])
        self._orders = {k: state["orders"][k].clone() for k in self.names}

    def _take(self, name: str, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        out = []
        while n > 0:
            if len(self._orders[name]) == 0:
                self._orders[name] = torch.randperm(len(self.pools[name][0]), generator=self._g)
            k = min(n, len(self._orders[name]))
            out.append(self._orders[name][:k])
            self._orders[name] = self._orders[name][k:]
            n -= k
        idx = torch.cat(out)
        return self.pools[name][0][idx], self.pools[name][1][idx]
