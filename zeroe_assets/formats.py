"""Dataset formats that survive attack intact: only the attacked text fields change.

Every reader streams ``Record``s: the record's original text (``raw``, written back byte for byte
when nothing changed) and the texts an attacker sees. ``render(record, new_texts)`` rebuilds the
record. Token-aligned formats (CoNLL-U, token/tag) give the attacker one text per sentence, its
tokens joined by newlines, so the protocol counts words per sentence and the token count (and
every other column) is kept. ``write`` puts the rendered records in place through a temporary, so
a reader sees the old output or the new one. Hugging Face datasets (a ``save_to_disk`` folder, a
Parquet file) are read and written as datasets: rows in, rows out, the features kept.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .assets import temp_prefix
from .assets.victim import staged_folder
from .validate import NeedsExtra

TOKEN_SEP = "\n"  # no perturber inserts or removes a line break
BOM = "\ufeff"
_UMASK = os.umask(0o022)  # read once (setting it is the only way): outputs get the usual mode
os.umask(_UMASK)


@dataclass
class Record:
    raw: str
    texts: list[str]
    parts: list = field(default_factory=list)  # format-specific parsed pieces


def _split_ending(line: str) -> tuple[str, str]:
    body = line.rstrip("\r\n")
    return body, line[len(body):]


def _open_lines(path: Path) -> Iterator[str]:
    """The file's lines, endings kept, without a leading byte-order mark (``Format.read`` keeps
    it as a record of its own)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            yield from f
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 ({e})") from None


class Format:
    """Base: ``read`` streams records, ``render`` writes one back."""

    name = ""
    token_aligned = False

    def __init__(self, fields: Sequence[str] | None = None):
        self.fields = list(fields) if fields else []

    def read(self, path: Path) -> Iterator[Record]:
        """The file's records. A byte-order mark comes first as a text-less record, so it is
        written back as it was but never reaches a parser (a header would not match its names)."""
        with open(path, "rb") as f:
            if f.read(3) == BOM.encode():
                yield Record(BOM, [], [])
        yield from self._read(path)

    def _read(self, path: Path) -> Iterator[Record]:
        raise NotImplementedError

    def render(self, record: Record, texts: list[str]) -> str:
        raise NotImplementedError

    def write(self, out: Path, pieces: Iterable, source: Path) -> None:
        """Write ``pieces`` (records rendered, or ``raw`` where nothing changed), streamed, to
        ``out`` through a temporary file; ``source``: the input they come from."""
        with _replacing(out) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
            for piece in pieces:
                f.write(piece)


@contextlib.contextmanager
def _replacing(out: Path) -> Iterator[str]:
    """A temporary file next to ``out`` that becomes ``out`` when the block ends without error
    (removed otherwise)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=temp_prefix(out.name))
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp made it private, like no other new file
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ConlluFormat(Format):
    """CoNLL-U: FORM (column 2) of word lines is attacked; comments, multiword-token ranges,
    empty nodes and all other columns are kept. UPOS (column 4) is the POS label."""

    name = "conllu"
    token_aligned = True
    form_column, tag_column, columns = 1, 3, 10
    comments = True  # lines starting with # are comments

    def _read(self, path):
        block: list[str] = []
        first = 1  # line number of the block's first line, for errors
        for number, line in enumerate(_open_lines(path), 1):
            block.append(line)
            if not line.strip():
                yield self._record(block, path, first)
                block, first = [], number + 1
        if block:
            yield self._record(block, path, first)

    def _is_token(self, cols: list[str]) -> bool:
        return cols[0].isdigit()

    def _record(self, block: list[str], path: Path, first: int) -> Record:
        rows = []  # (line index, columns, ending) of word lines
        for i, line in enumerate(block):
            body, ending = _split_ending(line)
            if not body.strip() or (self.comments and body.startswith("#")):
                continue
            cols = body.split("\t")
            if len(cols) != self.columns:
                raise ValueError(f"{path}:{first + i}: expected {self.columns} "
                                 f"tab-separated {self.name} columns, got {len(cols)}")
            if self._is_token(cols):
                if not cols[self.form_column]:  # render would take it for a token an attack ate
                    raise ValueError(f"{path}:{first + i}: token {len(rows) + 1} of the sentence "
                                     f"at line {first} has an empty form; every word line "
                                     "needs one (_ if there is none)")
                rows.append((i, cols, ending))
        texts = [TOKEN_SEP.join(cols[self.form_column] for _, cols, _ in rows)] if rows else []
        return Record("".join(block), texts, [block, rows])

    def tokens(self, record: Record) -> tuple[list[str], list[str]]:
        """(forms, tags) of the word lines."""
        rows = record.parts[1]
        return ([c[self.form_column] for _, c, _ in rows], [c[self.tag_column] for _, c, _ in rows])

    def render(self, record, texts):
        if texts == record.texts:
            return record.raw
        block, rows = list(record.parts[0]), record.parts[1]
        forms = texts[0].split(TOKEN_SEP)
        if len(forms) != len(rows) or not all(forms):
            raise ValueError(f"a perturbation changed the token count of a sentence "
                             f"({len(rows)} → {len(forms)}); token-aligned data needs "
                             "token-preserving perturbers")
        for (i, cols, ending), form in zip(rows, forms):
            cols = list(cols)
            cols[self.form_column] = form
            block[i] = "\t".join(cols) + ending
        return "".join(block)


class TagsFormat(ConlluFormat):
    """Two columns ``token<TAB>tag``, sentences separated by blank lines."""

    name = "tags"
    form_column, tag_column, columns = 0, 1, 2
    comments = False  # "#" is a token (a hashtag, a number sign)

    def _is_token(self, cols):
        return True


class TsvFormat(Format):
    """Tab-separated with a header line; the named columns are attacked (no quoting, as in the
    SNLI and OLID distributions)."""

    name = "tsv"

    def _read(self, path):
        lines = _open_lines(path)
        header_line = next(lines, None)
        if header_line is None:
            return
        header = _split_ending(header_line)[0].split("\t")
        missing = [f for f in self.fields if f not in header]
        if missing:
            raise ValueError(f"{path}: no column(s) {', '.join(missing)} in header {header}")
        index = [header.index(f) for f in self.fields]
        yield Record(header_line, [], [header])
        for number, line in enumerate(lines, 2):
            body, ending = _split_ending(line)
            if not body:
                yield Record(line, [], [])
                continue
            cols = body.split("\t")
            if len(cols) != len(header):
                raise ValueError(f"{path}:{number}: {len(cols)} columns, header has {len(header)}")
            yield Record(line, [cols[i] for i in index], [cols, index, ending, header])

    def render(self, record, texts):
        if texts == record.texts:
            return record.raw
        cols, index, ending, _ = record.parts
        cols = list(cols)
        for i, text in zip(index, texts):
            if "\t" in text or "\n" in text:
                raise ValueError("a perturbation inserted a tab or line break into a TSV field")
            cols[i] = text
        return "\t".join(cols) + ending

    @staticmethod
    def columns(record: Record) -> dict[str, str] | None:
        if len(record.parts) < 4:
            return None
        cols, _, _, header = record.parts
        return dict(zip(header, cols))


class CsvFormat(Format):
    """CSV with a header (the Jigsaw layout: ``comment_text`` and label columns). Records may
    span lines inside quotes; unchanged records are written back as read."""

    name = "csv"

    def _read(self, path):
        header = None
        for raw in self._raw_records(path):
            row = next(csv.reader(io.StringIO(raw)), [])
            if header is None:
                header = row
                missing = [f for f in self.fields if f not in header]
                if missing:
                    raise ValueError(f"{path}: no column(s) {', '.join(missing)} in {header}")
                index = [header.index(f) for f in self.fields]
                yield Record(raw, [], [header])
                continue
            if not row:
                yield Record(raw, [], [])
                continue
            yield Record(raw, [row[i] for i in index], [row, index, header])

    @staticmethod
    def _raw_records(path):
        pending, quoted = "", False
        for line in _open_lines(path):
            pending += line
            quoted = _ends_quoted(line, quoted)
            if not quoted:
                yield pending
                pending = ""
        if pending:
            raise ValueError(f"{path}: unterminated quoted field at the end of the file")

    def render(self, record, texts):
        if texts == record.texts:
            return record.raw
        row, index, _ = record.parts
        row = list(row)
        for i, text in zip(index, texts):
            row[i] = text
        out = io.StringIO()  # the record's own line ending, none for a last line without one
        csv.writer(out, lineterminator=_split_ending(record.raw)[1]).writerow(row)
        return out.getvalue()

    @staticmethod
    def columns(record: Record) -> dict[str, str] | None:
        if len(record.parts) < 3:
            return None
        row, _, header = record.parts
        return dict(zip(header, row))


def _ends_quoted(line: str, quoted: bool) -> bool:
    """Whether a CSV line ends inside a quoted field, given whether it starts inside one. As in
    the csv module, a quote opens a quoted field only at the field's start: ``5" screen`` is
    plain text."""
    state = "quoted" if quoted else "start"
    for ch in line:
        if state == "quoted":
            if ch == '"':
                state = "closed"  # the field's end, or the first quote of an escaped ""
        elif state == "closed" and ch == '"':
            state = "quoted"
        elif ch == ",":
            state = "start"
        elif ch == '"' and state == "start":
            state = "quoted"
        else:
            state = "field"
    return state == "quoted"


class JsonlFormat(Format):
    """JSON lines; the named string fields are attacked, everything else kept byte for byte (the
    changed values are replaced where they stand: no number, escape or space is rewritten)."""

    name = "jsonl"

    def _read(self, path):
        for number, line in enumerate(_open_lines(path), 1):
            yield self.parse(line, f"{path}:{number}")

    def parse(self, line: str, where: str) -> Record:
        """One line as a record; ``where`` names it in errors (``file:line``)."""
        body, ending = _split_ending(line)
        if not body.strip():
            return Record(line, [], [])
        try:
            members = _members(body)
        except json.JSONDecodeError as e:
            raise ValueError(f"{where}: invalid JSON at column {e.colno} ({e.msg})") from None
        except RecursionError:
            raise ValueError(f"{where}: JSON nested too deeply to read") from None
        if members is None:
            raise ValueError(f"{where}: expected a JSON object")
        obj, spans = members
        for f in self.fields:
            if not isinstance(obj.get(f), str):
                raise ValueError(f"{where}: no string field {f!r}")
        return Record(line, [obj[f] for f in self.fields], [obj, ending, body, spans])

    def render(self, record, texts):
        if texts == record.texts:
            return record.raw
        _, ending, body, spans = record.parts
        changed = sorted((spans[f], new) for f, new, old in zip(self.fields, texts, record.texts)
                         if new != old)
        for (start, end), new in reversed(changed):  # from the end: earlier spans stay valid
            body = body[:start] + json_text(new) + body[end:]
        return body + ending

    @staticmethod
    def columns(record: Record) -> dict | None:
        return record.parts[0] if record.parts else None


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value, **options) -> str:
    """``value`` as JSON with its non-ASCII characters as they are, except a lone surrogate
    (JSON's ``"\\ud800"`` reads as one, and no UTF-8 can carry it), written as its escape."""
    text = json.dumps(value, ensure_ascii=False, **options)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_VALUE = json.JSONDecoder().scan_once  # one JSON value at an index: (value, end)
_SPACE = re.compile(r"[ \t\n\r]*").match  # JSON's whitespace, as json.decoder skips it


def _members(body: str) -> tuple[dict, dict[str, tuple[int, int]]] | None:
    """The JSON object ``body`` and where each member's value lies in it, (start, end), the
    last of a repeated key as ``json.loads`` keeps it; None for JSON that is no object. Errors
    are ``json.loads``'s (``JSONDecodeError``)."""
    i = _SPACE(body, 0).end()
    if body[i:i + 1] != "{":
        json.loads(body)  # invalid JSON raises here; valid JSON is another kind of value
        return None
    obj, spans = {}, {}
    i = _SPACE(body, i + 1).end()
    while body[i:i + 1] != "}" or obj:  # "}" ends an empty object; members end with a break
        if body[i:i + 1] != '"':
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes",
                                       body, i)
        key, i = json.decoder.scanstring(body, i + 1)
        i = _SPACE(body, i).end()
        if body[i:i + 1] != ":":
            raise json.JSONDecodeError("Expecting ':' delimiter", body, i)
        start = _SPACE(body, i + 1).end()
        try:
            obj[key], i = _VALUE(body, start)
        except StopIteration as e:
            raise json.JSONDecodeError("Expecting value", body, e.value) from None
        spans[key] = (start, i)
        i = _SPACE(body, i).end()
        if body[i:i + 1] == "}":
            break
        if body[i:i + 1] != ",":
            raise json.JSONDecodeError("Expecting ',' delimiter", body, i)
        i = _SPACE(body, i + 1).end()
    end = _SPACE(body, i + 1).end()
    if end != len(body):
        raise json.JSONDecodeError("Extra data", body, end)
    return obj, spans


class DatasetFormat(Format):
    """A Hugging Face dataset: a folder written by ``Dataset.save_to_disk`` or a Parquet file.
    A record is a row (``raw``); the named string columns are attacked, the output is a dataset
    of the same kind with the input's features (Parquet: its schema). ``columns`` gives class
    labels by name (-1, no label, as None), as the text formats have them."""

    name = "dataset"
    _labels: dict = {}  # the class-label features of the dataset read last

    def read(self, path):
        for number, row in enumerate(self._rows(path)):
            for f in self.fields:
                if not isinstance(row.get(f), str):
                    raise ValueError(f"{path}: row {number}: no string column {f!r}")
            yield Record(row, [row[f] for f in self.fields], [row])

    def render(self, record, texts):
        row = dict(record.raw)
        row.update(zip(self.fields, texts))
        return row

    def columns(self, record):
        row, labels = record.parts[0], self._labels
        return {k: (labels[k].int2str(v) if v is not None and v >= 0 else None)
                if k in labels else v for k, v in row.items()}

    def write(self, out, pieces, source):
        rows = list(pieces)
        if Path(source).is_dir():
            datasets = _datasets()
            features = datasets.load_from_disk(str(source)).features
            with staged_folder(out) as stage:
                datasets.Dataset.from_list(rows, features=features).save_to_disk(str(stage))
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist(rows, schema=pq.read_schema(source))
        with _replacing(out) as tmp:
            pq.write_table(table, tmp)

    def _rows(self, path: Path) -> Iterator[dict]:
        if path.is_dir():
            ds = _datasets().load_from_disk(str(path))
            if not hasattr(ds, "features"):
                raise ValueError(f"{path} is a DatasetDict: give its splits as hf:{path} (all) "
                                 f"or one split folder")
            self._labels = {k: f for k, f in ds.features.items()
                            if type(f).__name__ == "ClassLabel"}
            yield from ds
            return
        import pyarrow.parquet as pq

        try:
            batches = pq.ParquetFile(path).iter_batches()
        except Exception as e:  # noqa: BLE001 - pyarrow's errors name no file
            raise ValueError(f"{path} is not a Parquet file ({e})") from None
        for batch in batches:
            yield from batch.to_pylist()

    @staticmethod
    def column_names(path: Path) -> list[str]:
        if path.is_dir():
            ds = _datasets().load_from_disk(str(path))
            return list(getattr(ds, "column_names", []))
        import pyarrow.parquet as pq

        return pq.read_schema(path).names


def _datasets():
    try:
        import datasets
    except ImportError:
        raise NeedsExtra("Hugging Face datasets need the datasets library: "
                          "pip install 'zeroe[hf]'") from None
    return datasets


def is_dataset(path: Path) -> bool:
    """Whether ``path`` is read as a Hugging Face dataset (a folder or a Parquet file)."""
    return Path(path).is_dir() or Path(path).suffix.lower() == ".parquet"


FORMATS = {f.name: f for f in (ConlluFormat, TagsFormat, TsvFormat, CsvFormat, JsonlFormat,
                               DatasetFormat)}
SUFFIXES = {".conllu": "conllu", ".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl",
            ".json": "jsonl", ".parquet": "dataset"}


def header_of(path: Path, fmt: str) -> list[str]:
    """Column names of a TSV/CSV file or a dataset, keys of the first JSONL object."""
    if fmt == "dataset":
        return DatasetFormat.column_names(path)
    first = next(iter(_open_lines(path)), "")
    body = _split_ending(first)[0]
    if fmt == "tsv":
        return body.split("\t")
    if fmt == "csv":
        return next(csv.reader([body]), [])
    if fmt == "jsonl":  # a first line that is no JSON object is named, not taken for no fields
        record = JsonlFormat().parse(first, f"{path}:1")
        return list(record.parts[0]) if record.parts else []
    return []
