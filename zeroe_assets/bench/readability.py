"""Do people still read attacked words? Words are rendered at reading size with font fallback
(`visual.render`) and read back by a stand-in reader (Tesseract 5, or RapidOCR's PP-OCRv4
recogniser as a second opinion), in four conditions: nothing
substituted (the reader's ceiling), the attack, a UTS #39 confusable of each letter the attack
changed (same positions), and a random letter of another script there (the floor).

A word is read back when the OCR text, stripped of surrounding punctuation, equals it ignoring
case (a reader takes "booK" for "book"; the summary also gives the rates in the same case); the
pieces of a word the OCR splits are joined.
"""
from __future__ import annotations

import difflib
import functools
import importlib.metadata
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..assets import atomic_write
from ..data import numbered_lines
from ..visual.confusables import reads_as, skeleton
from ..visual.render import WordRenderer
from ..visual.space import is_candidate

CONDITIONS = ("clean", "attacked", "tr39", "other_script")
WORD = re.compile(r"[A-Za-z]{4,10}")  # held-out words: 4–10 ASCII letters
PX = 48  # pixels per em for the reader: 12 pt at 288 dpi, where Tesseract reads best
PAGE = 40  # words per page given to the OCR at once
# scripts whose letters stand in for "a random letter of another script"
OTHER_SCRIPTS = (range(0x370, 0x400), range(0x400, 0x500), range(0x531, 0x588),
                 range(0x10A0, 0x1100), range(0x5D0, 0x5EB), range(0x905, 0x93A))
PUNCTUATION = ".,;:!?'\"`‘’“”()[]-_|"
READERS = ("tesseract", "rapidocr")


def words_in(path: Path) -> list[str]:
    """The distinct words of 4-10 letters in ``path`` (distinct ignoring case, the first
    spelling kept): the FORM column of a .conllu file, else every whitespace-separated token
    without surrounding punctuation."""
    conllu = path.suffix.lower() == ".conllu"
    seen: dict[str, str] = {}
    for _, line in numbered_lines(path):
        if conllu:
            cols = line.split("\t")
            tokens = [cols[1]] if len(cols) == 10 and cols[0].isdigit() else []
        else:
            tokens = [t.strip(PUNCTUATION) for t in line.split()]
        for token in tokens:
            if WORD.fullmatch(token):
                seen.setdefault(token.lower(), token)
    return list(seen.values())


def held_out_words(path: Path, n: int, seed: int = 0, exclude=frozenset()) -> list[str]:
    """``n`` of `words_in` ``path`` drawn at random, none of ``exclude`` (lower case)."""
    pool = [w for w in words_in(path) if w.lower() not in exclude]
    if len(pool) < n:
        raise ValueError(f"{path} has {len(pool)} distinct words of 4-10 letters, fewer than "
                         f"the {n} asked for")
    return [pool[i] for i in np.random.default_rng(seed).choice(len(pool), n, replace=False)]


def changed_positions(old: str, new: str) -> list[int]:
    """The positions of ``old`` an attack replaced or deleted (or inserted before)."""
    out: list[int] = []
    for op, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op != "equal":
            out.extend(range(i1, i2) if i2 > i1 else [min(i1, len(old) - 1)])
    return sorted(set(out))


def tr39_lookalikes(ch: str, renderer: WordRenderer) -> list[str]:
    """Characters UTS #39 lists as confusable with ``ch`` that the fonts draw."""
    return sorted(c for c in _confusables().get(ch, ()) if c != ch and is_candidate(c)
                  and renderer.covers(c))


def other_script_letters(renderer: WordRenderer) -> list[str]:
    """Letters of `OTHER_SCRIPTS` the fonts draw that read as no Latin letter."""
    return [chr(cp) for r in OTHER_SCRIPTS for cp in r
            if unicodedata.category(chr(cp)).startswith("L") and not reads_as(chr(cp))
            and renderer.covers(chr(cp))]


@functools.lru_cache(maxsize=1)
def _confusables() -> dict[str, list[str]]:
    from confusable_homoglyphs.confusables import confusables_data

    return {c: [e["c"] for e in entries if len(e["c"]) == 1]
            for c, entries in confusables_data.items() if len(c) == 1}


def substitute(word: str, positions: list[int], options, rng: np.random.Generator) -> str:
    """``word`` with each of ``positions`` replaced by a random one of ``options(char)`` (kept
    when there is none)."""
    chars = list(word)
    for i in positions:
        found = options(chars[i])
        if found:
            chars[i] = found[rng.integers(len(found))]
    return "".join(chars)


def tesseract() -> str:
    """The Tesseract binary, or a ValueError that says how to install it."""
    found = shutil.which("tesseract")
    if found is None:
        raise ValueError("the readability bench reads words back with Tesseract 5, which is not "
                         "installed here: apt-get install tesseract-ocr (or `make tesseract`)")
    return found


def check_reader(reader: str) -> str:
    """``reader`` if it is one of `READERS`, else a one-line ValueError naming them."""
    if reader not in READERS:
        raise ValueError(f"unknown reader {reader!r}; choose one of {', '.join(READERS)}")
    return reader


def reader_version(reader: str = "tesseract") -> str:
    """The reader's name and version, or a ValueError that says how to install it (asked before
    any work, so a missing reader costs one line)."""
    if check_reader(reader) == "rapidocr":
        _rapidocr()
        return (f"RapidOCR {importlib.metadata.version('rapidocr-onnxruntime')} (PP-OCRv4 "
                f"recognition of the word image, onnxruntime "
                f"{importlib.metadata.version('onnxruntime')})")
    out = subprocess.run([tesseract(), "--version"], capture_output=True, text=True, check=True)
    return (out.stdout or out.stderr).splitlines()[0].strip()


@functools.lru_cache(maxsize=1)
def _rapidocr():
    """RapidOCR's engine (its models ship in the wheel), one thread: the machine is shared."""
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        raise ValueError("the rapidocr reader needs RapidOCR, which is not installed here: "
                         "pip install rapidocr-onnxruntime") from None
    return RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)


def read_back_rapidocr(images: list[np.ndarray]) -> list[str]:
    """What RapidOCR's recogniser reads in each image (one word each; no detection step, the
    image is the word's line), the pieces it separates by spaces joined."""
    engine, texts = _rapidocr(), []
    for im in images:
        found, _ = engine(np.repeat((255 - im)[:, :, None], 3, axis=2), use_det=False,
                          use_cls=False, use_rec=True)
        texts.append("".join(found[0][0].split()) if found else "")
    return texts


def read_words(images: list[np.ndarray], band: int, reader: str = "tesseract") -> list[str]:
    """What ``reader`` reads in each image (``band`` pixels high)."""
    if check_reader(reader) == "rapidocr":
        return read_back_rapidocr(images)
    return read_back(images, band)


def read_back(images: list[np.ndarray], band: int) -> list[str]:
    """What Tesseract reads in each image (one word each, ``band`` pixels high), a page of
    `PAGE` words at a time, each word on its own line."""
    from PIL import Image

    binary, texts = tesseract(), []
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one core per page: the machine is shared
    with tempfile.TemporaryDirectory(prefix="zeroe-ocr-") as tmp:
        for start in range(0, len(images), PAGE):
            page_images = images[start:start + PAGE]
            page = np.zeros((band * len(page_images), max(im.shape[1] for im in page_images)),
                            np.uint8)
            for k, im in enumerate(page_images):
                page[k * band:k * band + im.shape[0], :im.shape[1]] = im
            path = Path(tmp) / "page.png"
            Image.fromarray(255 - page).save(path)  # dark ink on white, as the OCR expects
            out = subprocess.run([binary, str(path), "stdout", "-l", "eng", "--psm", "6", "tsv"],
                                 capture_output=True, text=True, env=env)
            if out.returncode:
                last = (out.stderr.strip().splitlines() or ["no message"])[-1]
                raise ValueError(f"tesseract failed on a page of words: {last}")
            lines = [""] * len(page_images)
            for row in out.stdout.splitlines()[1:]:
                cols = row.split("\t")
                if len(cols) == 12 and cols[0] == "5" and cols[11].strip():
                    line = int((int(cols[7]) + int(cols[9]) / 2) // band)
                    if 0 <= line < len(lines):
                        lines[line] += cols[11].strip()
            texts.extend(lines)
    return texts


def reads_as_word(text: str, word: str, fold: bool = True) -> bool:
    """Whether the OCR ``text`` is ``word`` (ignoring case unless ``fold`` is False)."""
    text = text.strip().strip(PUNCTUATION)
    return text.casefold() == word.casefold() if fold else text == word


@dataclass
class Readability:
    """The words, their versions in each of `CONDITIONS`, and what the reader read."""

    words: list[str]
    versions: dict[str, list[str]]
    read: dict[str, list[str]]

    def rate(self, condition: str, only=None, fold: bool = True) -> float | None:
        rows = [i for i in range(len(self.words)) if only is None or only[i]]
        if not rows:
            return None
        return round(sum(reads_as_word(self.read[condition][i], self.words[i], fold)
                         for i in rows) / len(rows), 4)

    def summary(self) -> dict:
        attacked = self.versions["attacked"]
        changed = [a != w for w, a in zip(self.words, attacked)]
        subs = [(w[i], a[i]) for w, a in zip(self.words, attacked) if len(a) == len(w)
                for i in range(len(w)) if a[i] != w[i]]
        outside = sum(skeleton(new) != skeleton(old) for old, new in subs)
        return {
            "words": len(self.words), "words_changed_by_the_attack": sum(changed),
            "read_back": {c: self.rate(c) for c in CONDITIONS},
            "read_back_of_changed_words": {c: self.rate(c, changed) for c in CONDITIONS},
            "read_back_in_the_same_case": {c: self.rate(c, fold=False) for c in CONDITIONS},
            "characters_substituted": len(subs),
            "attack_characters_outside_tr39": round(outside / len(subs), 4) if subs else None}


def measure(words: list[str], attack, seed: int = 0, px: int = PX,
            renderer: WordRenderer | None = None, reader: str = "tesseract") -> Readability:
    """Attack ``words`` (each its own sample), build the other conditions at the positions the
    attack changed, render all four and read them back with ``reader`` (one of `READERS`)."""
    renderer = renderer or WordRenderer(px)
    attacked = attack(words, seed=seed)
    rng = np.random.default_rng([seed, 1])
    others = other_script_letters(renderer)
    positions = [changed_positions(w, a) for w, a in zip(words, attacked)]
    versions = {
        "clean": list(words), "attacked": attacked,
        "tr39": [substitute(w, p, lambda c: tr39_lookalikes(c, renderer), rng)
                 for w, p in zip(words, positions)],
        "other_script": [substitute(w, p, lambda c: others, rng)
                         for w, p in zip(words, positions)]}
    read = {c: read_words([renderer.render(v) for v in versions[c]], 2 * renderer.px, reader)
            for c in CONDITIONS}
    return Readability(list(words), versions, read)


def example_sheet(result: Readability, renderer: WordRenderer, path: Path, rows: int = 12) -> Path:
    """A PNG: for the first ``rows`` words the attack changed, each condition as rendered, with
    what the reader read under it ("ok" when it read the word back, "no" when not)."""
    from PIL import Image, ImageDraw, ImageFont

    picked = [i for i, w in enumerate(result.words) if result.versions["attacked"][i] != w][:rows]
    cell_w = max([renderer.render(result.versions[c][i]).shape[1] for c in CONDITIONS
                  for i in picked] + [renderer.px * 4])
    band, label = 2 * renderer.px, renderer.px // 2
    label_font = ImageFont.truetype(str(renderer.chain[0]), label)
    sheet = Image.new("L", (cell_w * len(CONDITIONS), (band + 2 * label) * (len(picked) + 1)),
                      255)
    draw = ImageDraw.Draw(sheet)
    for j, c in enumerate(CONDITIONS):
        draw.text((j * cell_w + 8, label // 2), c.replace("_", " "), font=label_font, fill=0)
    for r, i in enumerate(picked, 1):
        top = r * (band + 2 * label)
        for j, c in enumerate(CONDITIONS):
            ink = renderer.render(result.versions[c][i])
            sheet.paste(Image.fromarray(255 - ink), (j * cell_w, top))
            ok = "ok" if reads_as_word(result.read[c][i], result.words[i]) else "no"
            draw.text((j * cell_w + 8, top + band), f"{ok} {result.read[c][i]!r}"[:40],
                      font=label_font, fill=0)
    buf = io.BytesIO()
    sheet.save(buf, format="PNG")
    atomic_write(path, buf.getvalue())
    return path


def write(result: Readability, settings: dict, renderer: WordRenderer, out: Path) -> list[Path]:
    """``readability.json`` (settings, rates, every word in every condition) and
    ``readability.png`` (examples) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    report = {**settings, **result.summary(),
              "examples": [{"word": w, **{c: [result.versions[c][i], result.read[c][i]]
                                          for c in CONDITIONS}}
                           for i, w in enumerate(result.words)]}
    json_path = out / "readability.json"
    atomic_write(json_path, (json.dumps(report, indent=1, ensure_ascii=False) + "\n").encode())
    return [json_path, example_sheet(result, renderer, out / "readability.png")]


__all__ = ["CONDITIONS", "READERS", "Readability", "changed_positions", "held_out_words",
           "measure", "read_back", "read_back_rapidocr", "read_words", "reader_version",
           "tesseract", "words_in", "write"]
