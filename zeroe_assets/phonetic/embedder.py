"""The phonetic word embedder (paper §3.3, appendix A.1).

An InferSent-style Siamese encoder over characters: words that sound alike get close 100-d
vectors, and a small classifier over ``[u, v, |u−v|, u⊙v]`` says whether two spellings sound
identical, very similar, similar or different (``respell.sound_alikes`` filters with it).

Needs torch; ``zeroe_assets`` imports this module only inside the functions that need it.
Training lives in ``train.phonetic.siamese``; the exported form is ``embedder.npz`` + JSON.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from ..validate import require_torch

require_torch("the phonetic embedder")
import torch  # noqa: E402
from torch import nn  # noqa: E402

from ..assets import ArtifactError, json_bytes, load_component, rebuild_hint
from .names import CLASSES, COMPONENT, SOUND_ALIKE

PAD, UNK = 0, 1


class CharVocab:
    """Character ↔ id; 0 pads, 1 stands for any character training never saw."""

    def __init__(self, symbols: Sequence[str]):
        self.symbols = tuple(symbols)
        if len(set(self.symbols)) != len(self.symbols) or any(len(s) != 1 for s in self.symbols):
            raise ValueError("vocabulary symbols must be distinct single characters")
        self.index = {s: i + 2 for i, s in enumerate(self.symbols)}

    def __len__(self) -> int:
        return len(self.symbols) + 2

    def encode(self, word: str) -> list[int]:
        get = self.index.get
        return [get(c, UNK) for c in word.lower()] or [UNK]


def pad(seqs: Sequence[Sequence[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.long)
    ids = torch.zeros((len(seqs), int(lengths.max())), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
    return ids, lengths


class SiameseNet(nn.Module):
    """Shared character BiLSTM with max pooling (InferSent's best encoder) and a pair classifier."""

    def __init__(self, vocab_size: int, emb_dim: int = 32, dim: int = 100, mlp: int = 128,
                 dropout: float = 0.1, classes: int = len(CLASSES)):
        super().__init__()
        if dim % 2:
            raise ValueError(f"the word vector size must be even (two LSTM directions), got {dim}")
        self.emb = nn.Embedding(vocab_size, emb_dim, padding_idx=PAD)
        self.lstm = nn.LSTM(emb_dim, dim // 2, batch_first=True, bidirectional=True)
        self.mlp = nn.Sequential(nn.Linear(4 * dim, mlp), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(mlp, classes))
        self.drop = nn.Dropout(dropout)

    def encode(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Word vectors: the element-wise max over the BiLSTM states of the real characters."""
        packed = nn.utils.rnn.pack_padded_sequence(self.drop(self.emb(ids)), lengths.cpu(),
                                                   batch_first=True, enforce_sorted=False)
        states, _ = self.lstm(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True,
                                                     padding_value=float("-inf"),
                                                     total_length=ids.size(1))
        return states.max(1).values

    def classify(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return self.mlp(torch.cat([u, v, (u - v).abs(), u * v], -1))

    def forward(self, a, a_len, b, b_len) -> torch.Tensor:
        return self.classify(self.encode(a, a_len), self.encode(b, b_len))


class Judgement(NamedTuple):
    label: str     # the most likely class
    score: float   # P(identical) + P(very similar)


@dataclass
class Embedder:
    """A trained embedder with its character vocabulary, for batched embedding and judging."""

    vocab: CharVocab
    net: SiameseNet
    meta: dict

    @property
    def dim(self) -> int:
        return self.net.lstm.hidden_size * 2

    @torch.no_grad()
    def embed(self, words: Sequence[str], batch_size: int = 4096) -> np.ndarray:
        """Word vectors (not normalised), one row per word, in input order."""
        self.net.eval()
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        order = sorted(range(len(words)), key=lambda i: len(words[i]))  # little padding
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            ids, lengths = pad([self.vocab.encode(words[i]) for i in rows])
            out[rows] = self.net.encode(ids, lengths).numpy()
        return out

    @torch.no_grad()
    def probabilities(self, u: np.ndarray, v: np.ndarray, batch_size: int = 65536) -> np.ndarray:
        """Class probabilities (columns in ``CLASSES`` order) for pairs of word vectors."""
        self.net.eval()
        out = np.zeros((len(u), len(CLASSES)), dtype=np.float32)
        for s in range(0, len(u), batch_size):
            logits = self.net.classify(torch.from_numpy(u[s:s + batch_size]),
                                       torch.from_numpy(v[s:s + batch_size]))
            out[s:s + batch_size] = torch.softmax(logits, -1).numpy()
        return out

    def judge(self, words: Sequence[str], candidates: Sequence[Sequence[str]],
              vectors: np.ndarray | None = None) -> list[list[Judgement]]:
        """Judge every ``(words[i], c)`` for ``c`` in ``candidates[i]``; each distinct string is
        embedded once. ``vectors`` may hold the words' vectors already."""
        strings = {c for cands in candidates for c in cands}
        pool = sorted(strings | set(words) if vectors is None else strings)
        at = {s: i for i, s in enumerate(pool)}
        pool_vectors = self.embed(pool)
        word_rows = np.array([i for i, cands in enumerate(candidates) for _ in cands], dtype=np.int64)
        cand_rows = np.array([at[c] for cands in candidates for c in cands], dtype=np.int64)
        if not len(cand_rows):
            return [[] for _ in candidates]
        u = (vectors[word_rows] if vectors is not None
             else pool_vectors[[at[words[i]] for i in word_rows.tolist()]])
        probs = self.probabilities(np.ascontiguousarray(u), pool_vectors[cand_rows])
        labels, scores = probs.argmax(1).tolist(), (probs[:, 0] + probs[:, 1]).tolist()
        out, k = [], 0
        for cands in candidates:
            out.append([Judgement(CLASSES[labels[k + j]], scores[k + j]) for j in range(len(cands))])
            k += len(cands)
        return out

    def judge_pairs(self, pairs) -> dict[tuple[str, str], Judgement]:
        """``judge`` for ``(word, candidate)`` pairs, each word's candidates in one list."""
        per_word: dict[str, list[str]] = {}
        for a, b in pairs:
            per_word.setdefault(a, []).append(b)
        words = sorted(per_word)
        candidates = [per_word[w] for w in words]
        return {(w, b): j for w, cands, js in zip(words, candidates, self.judge(words, candidates))
                for b, j in zip(cands, js)}

    def to_files(self) -> dict[str, bytes]:
        buf = io.BytesIO()
        np.savez(buf, **{k: v.detach().cpu().numpy() for k, v in self.net.state_dict().items()})
        return {"embedder.npz": buf.getvalue(),
                "embedder.json": json_bytes({"vocab": list(self.vocab.symbols), **self.meta})}

    @classmethod
    def from_files(cls, weights: Path, spec: dict) -> "Embedder":
        vocab = CharVocab(spec["vocab"])
        net = SiameseNet(len(vocab), **spec["net"])
        with np.load(weights, allow_pickle=False) as arrays:
            net.load_state_dict({k: torch.from_numpy(arrays[k]) for k in arrays.files})
        return cls(vocab, net.eval(), {k: v for k, v in spec.items() if k != "vocab"})


def load_embedder(root: Path | None = None) -> Embedder:
    """The exported embedder of the ``phonetic`` component (checksums verified)."""
    component = load_component(COMPONENT, root)
    if "embedder.npz" not in component.files:
        raise ArtifactError(f"no embedder in {component.path}; {rebuild_hint(COMPONENT)}")
    weights = component.file("embedder.npz")
    try:
        return Embedder.from_files(weights, component.load_json("embedder.json"))
    except (KeyError, TypeError, ValueError, RuntimeError, OSError) as e:
        raise ArtifactError(f"{weights} and embedder.json do not make a model "
                            f"({type(e).__name__}: {e}); {rebuild_hint(COMPONENT)}") from e


__all__ = ["CLASSES", "SOUND_ALIKE", "CharVocab", "Embedder", "Judgement", "SiameseNet",
           "load_embedder", "pad"]
