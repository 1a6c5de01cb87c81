"""Grapheme↔phoneme seq2seq models (paper §3.3): the network, batched beam search, exported models.

The phonetic attack back-transliterates a word (G2P, then P2G n-best). This module needs torch;
``zeroe_assets`` never imports it at package import, callers import it where they decode.
Training lives in ``train.phonetic.seq2seq``; the exported weights are ``.npz`` arrays plus a JSON
of vocabularies and hyper-parameters (no pickle anywhere).
"""
from __future__ import annotations

import functools
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from ..validate import require_torch

require_torch("the G2P/P2G models")
import torch  # noqa: E402
from torch import nn  # noqa: E402

from ..assets import ArtifactError, json_bytes, load_component, rebuild_hint
from .names import SEQ2SEQ as COMPONENT

PAD, BOS, EOS = 0, 1, 2
SPECIALS = ("<pad>", "<s>", "</s>")
DIRECTIONS = ("g2p", "p2g")
PRECISIONS = ("auto", "bf16", "fp32")


class Vocab:
    """Symbol ↔ id table; ids 0–2 are padding, start and end."""

    def __init__(self, symbols: Sequence[str]):
        self.symbols = tuple(symbols)
        if len(set(self.symbols)) != len(self.symbols) or set(self.symbols) & set(SPECIALS):
            raise ValueError("vocabulary symbols must be distinct and not special tokens")
        self.index = {s: i + len(SPECIALS) for i, s in enumerate(self.symbols)}

    def __len__(self) -> int:
        return len(self.symbols) + len(SPECIALS)

    def knows(self, tokens: Sequence[str]) -> bool:
        """Whether every token is in the vocabulary (``encode`` would not refuse them)."""
        return set(tokens) <= self.index.keys()

    def encode(self, tokens: Sequence[str]) -> list[int]:
        try:
            return [self.index[t] for t in tokens]
        except KeyError:
            unknown = sorted({t for t in tokens if t not in self.index})
            raise ValueError(f"unknown symbol(s) {unknown} in {' '.join(tokens)!r}; this model knows "
                             f"{' '.join(self.symbols)}") from None

    def decode(self, ids: Sequence[int]) -> tuple[str, ...]:
        return tuple(self.symbols[i - len(SPECIALS)] for i in ids if i >= len(SPECIALS))


class Seq2SeqNet(nn.Module):
    """Bi-GRU encoder, GRU decoder with Luong attention and input feeding.

    Input feeding (the previous attentional state is part of the next input) lets the decoder
    track which letters it has already pronounced, which is what G2P alignment needs.
    ``reverse``: the decoder writes the target right to left (its ids come out reversed); such a
    net errs on other words than a left-to-right one, which a bidirectional ensemble exploits.
    """

    def __init__(self, src_size: int, tgt_size: int, emb_dim: int = 128, hidden: int = 256,
                 enc_layers: int = 2, dropout: float = 0.2, reverse: bool = False):
        super().__init__()
        self.config = {"emb_dim": emb_dim, "hidden": hidden, "enc_layers": enc_layers,
                       "dropout": dropout, "reverse": reverse}
        self.reverse = reverse
        self.src_emb = nn.Embedding(src_size, emb_dim, padding_idx=PAD)
        self.encoder = nn.GRU(emb_dim, hidden // 2, enc_layers, batch_first=True,
                              bidirectional=True, dropout=dropout if enc_layers > 1 else 0.0)
        self.bridge = nn.Linear(hidden, hidden)
        self.tgt_emb = nn.Embedding(tgt_size, emb_dim, padding_idx=PAD)
        self.cell = nn.GRUCell(emb_dim + hidden, hidden)
        self.attn = nn.Linear(hidden, hidden, bias=False)
        self.combine = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, tgt_size)
        self.drop = nn.Dropout(dropout)

    def encode(self, src: torch.Tensor, lengths: torch.Tensor):
        """Memory, attention keys, source mask and the initial decoder state."""
        emb = self.drop(self.src_emb(src))
        if bool((lengths == src.size(1)).all()):
            # no padding (most length-sorted batches): the unpacked GRU, 15% faster
            memory, _ = self.encoder(emb)
        else:
            packed = nn.utils.rnn.pack_padded_sequence(emb, lengths.cpu(), batch_first=True,
                                                       enforce_sorted=False)
            memory, _ = self.encoder(packed)
            memory, _ = nn.utils.rnn.pad_packed_sequence(memory, batch_first=True,
                                                         total_length=src.size(1))
        mask = src != PAD
        mean = (memory * mask.unsqueeze(-1)).sum(1) / lengths.to(memory.dtype).unsqueeze(-1)
        h = torch.tanh(self.bridge(mean))
        return memory, self.attn(memory), mask, h, torch.zeros_like(h)

    def step(self, y: torch.Tensor, h, feed, memory, keys, mask):
        """One decoder step: previous symbol ids → logits, new state, new attentional state."""
        h = self.cell(torch.cat([self.drop(self.tgt_emb(y)), feed], -1), h)
        # elementwise products, not bmm: a batch of (length × hidden) · (hidden) products is a
        # poor fit for batched GEMM on CPUs, and this is 8% of a training step and of decoding
        scores = (keys * h.unsqueeze(1)).sum(-1).masked_fill(~mask, float("-inf"))
        ctx = (torch.softmax(scores, -1).unsqueeze(-1) * memory).sum(1)
        feed = torch.tanh(self.combine(torch.cat([h, ctx], -1)))
        return self.out(self.drop(feed)), h, feed

    def forward(self, src, lengths, tgt_in):
        """Teacher-forced logits, shape (batch, target length, target vocabulary)."""
        return self.teacher_forced(*self.start(src, lengths), tgt_in)

    def teacher_forced(self, context, state, tgt_in):
        """``forward`` from an encoded source (``start``'s output), so a caller that already
        encoded it (beam search, then re-scoring) does not encode it again."""
        logits = []
        for t in range(tgt_in.size(1)):
            out, *state = self.step(tgt_in[:, t], *state, *context)
            logits.append(out)
        return torch.stack(logits, 1)

    # the decoding interface beam search drives (shared with Ensemble): a context that stays fixed
    # per input, a state that follows the hypotheses, both flat tuples of batch-first tensors
    CONTEXT, STATE = 3, 2  # their lengths, as ``start`` returns them

    def start(self, src: torch.Tensor, lengths: torch.Tensor):
        memory, keys, mask, h, feed = self.encode(src, lengths)
        return (memory, keys, mask), (h, feed)

    def advance(self, y: torch.Tensor, state, context):
        """Log-probabilities of the next symbol after ``y``, and the new state."""
        logits, h, feed = self.step(y, *state, *context)
        return torch.log_softmax(logits.float(), -1), (h, feed)


class Ensemble(nn.Module):
    """Several nets over the same vocabularies, decoded together (independently trained members
    disagree on different words, so together they correct some of each one's errors).

    Members that write in the same order are searched as one: the next-symbol distribution is the
    mean of theirs. With members of both orders, see ``decode``.
    """

    def __init__(self, members: Sequence[Seq2SeqNet]):
        super().__init__()
        if len(members) < 2:
            raise ValueError("an ensemble needs at least two members")
        self.members = nn.ModuleList(members)
        orders = {m.reverse for m in members}
        self.reverse = orders.pop() if len(orders) == 1 else None  # None: both orders

    def start(self, src: torch.Tensor, lengths: torch.Tensor):
        if self.reverse is None:
            raise ValueError("members write in both orders: decode them with decode(), "
                             "not one step-wise search")
        context, state = (), ()
        for m in self.members:
            c, s = m.start(src, lengths)
            context, state = context + c, state + s
        return context, state

    def advance(self, y: torch.Tensor, state, context):
        logps, new = [], ()
        for i, m in enumerate(self.members):
            logp, s = m.advance(y, state[i * m.STATE:(i + 1) * m.STATE],
                                context[i * m.CONTEXT:(i + 1) * m.CONTEXT])
            logps.append(logp)
            new += s
        return torch.logsumexp(torch.stack(logps), 0) - math.log(len(logps)), new


class Hypothesis(NamedTuple):
    tokens: tuple[str, ...]
    score: float  # total log-probability


@torch.no_grad()
def beam_search(net: "Seq2SeqNet | Ensemble", src: torch.Tensor, lengths: torch.Tensor,
                beam: int = 5, n: int = 1, max_len: int = 40,
                start=None) -> list[list[tuple[list[int], float]]]:
    """Batched beam search; per input, the ``n`` best distinct outputs (ids, log-prob), best first.

    Every hypothesis is a distinct path of the search tree, so n-best lists have no duplicates.
    ``beam=1`` is greedy decoding. Outputs are capped at ``max_len`` and at twice the input's
    length + 5, so each input's cost is bounded; a hypothesis cut off there (no end symbol) is
    incomplete and dropped, so an input may get fewer than ``n`` outputs, or none. An input
    leaves the batch as soon as all its hypotheses have ended, so the steps after the typical
    output length only compute the long outputs.
    ``start``: ``net.start(src, lengths)`` when the caller already has it.
    """
    beam = max(beam, n)
    batch, dev = src.size(0), src.device
    context, state = start if start is not None else net.start(src, lengths)
    context = tuple(x.repeat_interleave(beam, 0) for x in context)
    state = tuple(x.repeat_interleave(beam, 0) for x in state)
    caps = (2 * lengths.to(dev) + 5).clamp(max=max_len)  # per input, whatever else is batched
    steps = int(caps.max()) if batch else 0
    final_scores = torch.full((batch, beam), float("-inf"))
    final_history = torch.full((batch * beam, steps), PAD, dtype=torch.long)
    alive = torch.arange(batch, device=dev)  # inputs still searching
    scores = torch.full((batch, beam), float("-inf"), device=dev)
    scores[:, 0] = 0.0
    y = torch.full((batch * beam,), BOS, dtype=torch.long, device=dev)
    done = torch.zeros(batch * beam, dtype=torch.bool, device=dev)
    history = torch.zeros((batch * beam, 0), dtype=torch.long, device=dev)
    for t in range(steps):
        logp, state = net.advance(y, state, context)
        # a finished hypothesis only extends by padding, at no cost, so it keeps its score
        logp[done] = float("-inf")
        logp[done, PAD] = 0.0
        logp[~done, PAD] = float("-inf")
        logp[:, BOS] = float("-inf")
        vocab, live = logp.size(-1), alive.numel()
        total = (scores.view(-1, 1) + logp).view(live, beam * vocab)
        scores, flat = total.topk(beam, -1)
        origin = (flat // vocab + torch.arange(live, device=dev).unsqueeze(1) * beam).view(-1)
        y = (flat % vocab).view(-1)
        state = tuple(x[origin] for x in state)
        history = torch.cat([history[origin], y[:, None]], 1)
        done = done[origin] | (y == EOS) | (y == PAD)
        ended = done.view(live, beam).all(1) | (caps[alive] <= t + 1)
        if ended.any():
            inputs = alive[ended].cpu()
            rows = (inputs.unsqueeze(1) * beam + torch.arange(beam)).view(-1)
            final_scores[inputs] = scores[ended].cpu()
            final_history[rows, :t + 1] = history.view(live, beam, -1)[ended].flatten(0, 1).cpu()
            if ended.all():
                break
            keep = ~ended
            kept_rows = keep.repeat_interleave(beam)
            alive, scores = alive[keep], scores[keep]
            y, done, history = y[kept_rows], done[kept_rows], history[kept_rows]
            state = tuple(x[kept_rows] for x in state)
            context = tuple(x[kept_rows] for x in context)
    out = []
    for b in range(batch):
        finished = []
        for k in range(beam):
            score = final_scores[b, k].item()
            if score == float("-inf"):
                break
            ids = final_history[b * beam + k].tolist()
            if EOS in ids:  # else stopped by the cap: a cut-off word is no respelling
                finished.append((ids[:ids.index(EOS)], score))
        out.append(finished[:n])
    return out


@torch.no_grad()
def sequence_logprob(net: Seq2SeqNet, src: torch.Tensor, lengths: torch.Tensor,
                     targets: Sequence[Sequence[int]], start=None) -> torch.Tensor:
    """log P(target | source) under one net, teacher-forced, for each row (targets in reading
    order, without start or end; the net's own order is applied here). ``start``:
    ``net.start(src, lengths)`` when the caller already has it."""
    if net.reverse:
        targets = [t[::-1] for t in targets]
    # longest target first, so that the rows still scoring at step t are the first ``live[t]``:
    # each step runs only those (padding was half of the re-scoring decode's rows × steps)
    order = sorted(range(len(targets)), key=lambda i: -len(targets[i]))
    tgt, _ = pad_batch([[BOS, *targets[i], EOS] for i in order])
    gold = tgt[:, 1:]
    live = (gold != PAD).sum(0).tolist()
    index = torch.tensor(order)
    context, state = start if start is not None else net.start(src, lengths)
    context, state = tuple(x[index] for x in context), tuple(x[index] for x in state)
    picked = torch.zeros(gold.shape)
    for t, rows in enumerate(live):
        out, *state = net.step(tgt[:rows, t], *(x[:rows] for x in state),
                               *(x[:rows] for x in context))
        picked[:rows, t] = torch.log_softmax(out.float(), -1).gather(
            -1, gold[:rows, t, None]).squeeze(-1)
    scores = torch.empty(len(order))
    scores[index] = picked.sum(1)  # the padded sum of before: the same additions, in order
    return scores


def decode(net: "Seq2SeqNet | Ensemble", src: torch.Tensor, lengths: torch.Tensor,
           beam: int = 5, n: int = 1, max_len: int = 40) -> list[list[tuple[list[int], float]]]:
    """Per input, the ``n`` best outputs (ids in reading order, log-prob), best first.

    One order: ``beam_search``. Both orders (a bidirectional ensemble): each order's members
    propose their ``beam`` best, and every proposal is ranked by the mean log-probability all
    members give it, so a right-to-left member vetoes endings the left-to-right ones got wrong
    and the other way round. Each member encodes the batch once, for its search and re-scoring.
    """
    if net.reverse is not None:
        return _search(net, src, lengths, beam, n, max_len)
    beam = max(beam, n)
    members = list(net.members)
    starts = [m.start(src, lengths) for m in members]
    # what each member is known to give each (input, output): a lone member's own search scores
    known: list[dict[tuple[int, tuple[int, ...]], float]] = [{} for _ in members]
    proposals: list[dict[tuple[int, ...], None]] = [{} for _ in range(src.size(0))]
    for order in (False, True):
        group = [j for j, m in enumerate(members) if m.reverse == order]
        lone = group[0] if len(group) == 1 else None
        searcher = members[lone] if lone is not None else Ensemble([members[j] for j in group])
        start = (sum((starts[j][0] for j in group), ()), sum((starts[j][1] for j in group), ()))
        for i, hyps in enumerate(_search(searcher, src, lengths, beam, beam, max_len, start)):
            for ids, score in hyps:
                proposals[i][tuple(ids)] = None
                if lone is not None:
                    known[lone][i, tuple(ids)] = score
    pairs = [(i, ids) for i, p in enumerate(proposals) for ids in p]
    total = torch.zeros(len(pairs))
    for member, (context, state), scores in zip(members, starts, known):
        todo = [pair for pair in pairs if pair not in scores]
        if todo:
            index = torch.tensor([i for i, _ in todo])
            encoded = tuple(x[index] for x in context), tuple(x[index] for x in state)
            found = sequence_logprob(member, src[index], lengths[index],
                                     [list(t) for _, t in todo], encoded)
            scores.update(zip(todo, found.tolist()))
        total += torch.tensor([scores[pair] for pair in pairs])
    ranked: list[list[tuple[list[int], float]]] = [[] for _ in proposals]
    for (i, ids), score in zip(pairs, (total / len(members)).tolist()):
        ranked[i].append((list(ids), score))
    return [sorted(r, key=lambda h: -h[1])[:n] for r in ranked]


def _search(net: "Seq2SeqNet | Ensemble", src, lengths, beam, n, max_len, start=None):
    """``beam_search`` for nets of one order, with the outputs put in reading order."""
    hyps = beam_search(net, src, lengths, beam, n, max_len, start)
    return [[(ids[::-1], s) for ids, s in h] for h in hyps] if net.reverse else hyps


@functools.cache
def native_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AVX-512 BF16 or AMX). There, bf16
    decoding is 1.2–1.4× faster at the same WER; elsewhere bf16 is emulated and slower."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:  # not Linux: stay in float32
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def uses_bf16(precision: str) -> bool:
    """Whether a ``precision`` ("auto", "bf16" or "fp32") decodes in bf16 on this machine."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    return precision == "bf16" or (precision == "auto" and native_bf16())


def pad_batch(seqs: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.long)
    src = torch.full((len(seqs), int(lengths.max())), PAD, dtype=torch.long)
    for i, s in enumerate(seqs):
        src[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return src, lengths


@dataclass
class Transliterator:
    """A trained G2P or P2G model (one net or an ensemble) with its vocabularies, ready for
    batched n-best decoding."""

    direction: str
    src_vocab: Vocab
    tgt_vocab: Vocab
    net: Seq2SeqNet | Ensemble
    meta: dict

    @property
    def nets(self) -> list[Seq2SeqNet]:
        return list(self.net.members) if isinstance(self.net, Ensemble) else [self.net]

    @property
    def longest_word(self) -> int:
        """The longest word the model was trained on (its lexicon filter, as the manifest records
        it; else the output cap): the runtime respells nothing much longer."""
        return int(self.meta.get("longest_word") or self.meta.get("max_len", 40))

    @property
    def silent(self) -> frozenset[str]:
        """Phone symbols that mark silent letters (Combilex ``+``/``0``): not sounds."""
        return frozenset(self.meta.get("silent", ()))

    def tokens(self, text: str) -> tuple[str, ...]:
        """Split user input: a word into letters (G2P); phones on whitespace (P2G), or into
        characters when the model's phone symbols are single characters (Combilex)."""
        if self.direction == "g2p":
            return tuple(text.lower())
        if text.split() == [text] and all(len(s) == 1 for s in self.src_vocab.symbols):
            return tuple(text)
        # a stress-free model reads ARPAbet with stress digits (CMUdict's AY1) as AY
        return tuple(p if p in self.src_vocab.index or len(p) < 2 else p.rstrip("012")
                     for p in text.split())

    def pronounce(self, words: Sequence[str], n: int = 1, beam: int = 5,
                  **options) -> list[tuple[tuple[str, ...], ...]]:
        """A G2P model's ``n`` best pronunciations of each word, best first, silent-letter marks
        dropped and repeats merged; () for a word with a letter the model does not know."""
        readable = [i for i, w in enumerate(words) if w and self.src_vocab.knows(self.tokens(w))]
        found = self.translate([self.tokens(words[i]) for i in readable], n=n, beam=beam,
                               **options)
        out: list[tuple[tuple[str, ...], ...]] = [() for _ in words]
        silent = self.silent
        for i, hyps in zip(readable, found):
            prons = (tuple(p for p in h.tokens if p not in silent) for h in hyps)
            out[i] = tuple(dict.fromkeys(p for p in prons if p))
        return out

    def translate(self, inputs: Sequence[Sequence[str]], n: int = 1, beam: int = 5,
                  batch_size: int = 512, precision: str = "auto") -> list[list[Hypothesis]]:
        """n-best outputs for each token sequence, best first; unknown symbols are a ValueError.

        ``precision``: "bf16" multiplies in bfloat16 (as the nets were trained), "fp32" in float32,
        "auto" picks bf16 where the CPU has it in hardware (``native_bf16``).
        """
        if n < 1 or beam < 1:
            raise ValueError("n and beam must be at least 1")
        bf16 = uses_bf16(precision)
        encoded = []
        for seq in inputs:
            if not seq:
                raise ValueError("cannot transliterate an empty input")
            encoded.append(self.src_vocab.encode(seq))
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
        results: list[list[Hypothesis]] = [[] for _ in encoded]
        self.net.eval()
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            src, lengths = pad_batch([encoded[i] for i in idx])
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                found = decode(self.net, src, lengths, beam, n, self.meta.get("max_len", 40))
            for i, hyps in zip(idx, found):
                results[i] = [Hypothesis(self.tgt_vocab.decode(ids), s) for ids, s in hyps]
        return results

    def to_files(self) -> dict[str, bytes]:
        """The exported form: ``<direction>.npz`` (weights, stored as float16 to halve the file;
        loading casts them back to the nets' float32) and ``<direction>.json`` (the rest)."""
        buf = io.BytesIO()
        np.savez(buf, **{k: v.detach().cpu().to(torch.float16 if v.is_floating_point() else v.dtype)
                         .numpy() for k, v in self.net.state_dict().items()})
        spec = {"direction": self.direction, "src_vocab": list(self.src_vocab.symbols),
                "tgt_vocab": list(self.tgt_vocab.symbols), **self.meta,
                "nets": [m.config for m in self.nets]}
        return {f"{self.direction}.npz": buf.getvalue(), f"{self.direction}.json": json_bytes(spec)}

    @classmethod
    def from_files(cls, weights: Path, spec: dict) -> "Transliterator":
        src, tgt = Vocab(spec["src_vocab"]), Vocab(spec["tgt_vocab"])
        members = [Seq2SeqNet(len(src), len(tgt), **config) for config in spec["nets"]]
        net = members[0] if len(members) == 1 else Ensemble(members)
        with np.load(weights, allow_pickle=False) as arrays:
            state = {k: torch.from_numpy(arrays[k]) for k in arrays.files}
        net.load_state_dict(state)
        meta = {k: v for k, v in spec.items()
                if k not in ("direction", "src_vocab", "tgt_vocab", "nets")}
        return cls(spec["direction"], src, tgt, net.eval(), meta)


def load_transliterator(direction: str, root: Path | None = None) -> Transliterator:
    """The exported G2P or P2G model from the artifacts (checksums verified)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    component = load_component(COMPONENT, root)
    if f"{direction}.npz" not in component.files:
        raise ArtifactError(f"no {direction} model in {component.path}; {rebuild_hint(COMPONENT)}")
    weights = component.file(f"{direction}.npz")
    trained = component.meta.get(direction, {}).get("config", {}).get("lexicon", {})
    try:
        model = Transliterator.from_files(weights, component.load_json(f"{direction}.json"))
        model.meta["longest_word"] = trained.get("filter", {}).get("max_len")
        return model
    except (KeyError, TypeError, ValueError, RuntimeError, OSError) as e:
        raise ArtifactError(f"{weights} and {direction}.json do not make a model "
                            f"({type(e).__name__}: {e}); {rebuild_hint(COMPONENT)}") from e
