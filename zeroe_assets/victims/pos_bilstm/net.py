"""The tagger network: character BiLSTM word vectors + word embeddings → BiLSTM → UPOS logits."""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .vocab import N_CHAR_SPECIALS, N_WORD_SPECIALS, UNK


def _drop_to_unk(ids: torch.Tensor, first_real: int, p: float) -> torch.Tensor:
    """Replace real ids by UNK with probability ``p``, so the UNK embedding is trained on
    the contexts where unseen (or perturbed) words and characters appear."""
    drop = (torch.rand(ids.shape, device=ids.device) < p) & (ids >= first_real)
    return ids.masked_fill(drop, UNK)


class CharEncoder(nn.Module):
    """A word's spelling → one vector (final states of a BiLSTM over its characters).

    This keeps the tagger useful on out-of-vocabulary and perturbed words, so it is a fair
    CPU stand-in for the paper's subword RoBERTa victim (§4.1) under character-level attacks.
    """

    def __init__(self, n_chars: int, dim: int, hidden: int, char_dropout: float = 0.0):
        super().__init__()
        self.embed = nn.Embedding(n_chars, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        self.char_dropout = char_dropout
        self.out_dim = 2 * hidden

    def forward(self, forms: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if self.training and self.char_dropout > 0:
            forms = _drop_to_unk(forms, N_CHAR_SPECIALS, self.char_dropout)
        packed = pack_padded_sequence(self.embed(forms), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return torch.cat([h[0], h[1]], dim=-1)


class BiLSTMTagger(nn.Module):
    """Sentence tagger in the style of Plank et al. (2016): per-token ``[word; chars]`` vectors
    through a stacked BiLSTM, one linear layer to the tags."""

    def __init__(self, n_words: int, n_chars: int, n_tags: int, word_dim: int = 100,
                 char_dim: int = 32, char_hidden: int = 64, hidden: int = 128, layers: int = 2,
                 dropout: float = 0.33, word_dropout: float = 0.1, char_dropout: float = 0.01):
        super().__init__()
        self.words = nn.Embedding(n_words, word_dim, padding_idx=0)
        self.chars = CharEncoder(n_chars, char_dim, char_hidden, char_dropout)
        self.lstm = nn.LSTM(word_dim + self.chars.out_dim, hidden, num_layers=layers,
                            batch_first=True, bidirectional=True, dropout=dropout if layers > 1 else 0.0)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, n_tags)
        self.word_dropout = word_dropout

    def forward(self, words: torch.Tensor, lengths: torch.Tensor, forms: torch.Tensor,
                form_lengths: torch.Tensor, form_index: torch.Tensor) -> torch.Tensor:
        """Tag logits ``[B, T, n_tags]`` (padding positions are garbage; mask them)."""
        if self.training and self.word_dropout > 0:
            words = _drop_to_unk(words, N_WORD_SPECIALS, self.word_dropout)
        spelled = self.chars(forms, form_lengths)[form_index]
        x = self.dropout(torch.cat([self.words(words), spelled], dim=-1))
        packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        h, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=True, total_length=words.size(1))
        return self.out(self.dropout(h))
