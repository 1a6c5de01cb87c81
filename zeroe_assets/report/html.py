"""One self-contained HTML page per report (``zeroe bench evaluate``, ``zeroe search``, the shield
benchmark): inline CSS, plots as ``data:`` PNGs, a few lines of inline JS that sort tables, and
a Content-Security-Policy that forbids every request, so the page opens offline anywhere.

The texts are adversarial Unicode, so every string goes through :func:`escape`: HTML-escaped,
and the characters a reader cannot see or that reorder the line (controls, bidi overrides,
zero-widths, odd spaces, lone surrogates) shown as ``U+XXXX`` boxes. Changed characters are
marked per grapheme-like cluster (a base with its combining marks), so a ``<mark>`` never
separates an accent from its letter.
"""
from __future__ import annotations

import base64
import difflib
import html
import io
import unicodedata
from pathlib import Path
from typing import Iterable, Sequence

PLOT_WIDTH = 600  # px: two plots side by side fit a 1280-wide window
HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"}  # shown as U+XXXX (but the space)
MARKS = {"Mn", "Mc", "Me"}  # combining marks (variation selectors are Mn): kept with their base

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;
margin:0;color:#1b1f24;background:#fff}
main{max-width:1240px;margin:0 auto;padding:12px 20px 40px}
h1{font-size:1.5em;margin:.4em 0}
h2{font-size:1.2em;margin:1.2em 0 .4em;border-bottom:1px solid #d0d7de}
h3{font-size:1.05em;margin:1em 0 .3em}p{margin:.4em 0;max-width:75em}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:14px}
th,td{border:1px solid #d0d7de;padding:3px 8px;vertical-align:top}
th{background:#f3f5f7;text-align:left;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th::after{content:" \\2195";color:#8b949e;font-size:.8em}
th[aria-sort=ascending]::after{content:" \\25B2";color:#1b1f24}
th[aria-sort=descending]::after{content:" \\25BC";color:#1b1f24}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:nth-child(even){background:#f8f9fa}
td.text{max-width:30em;unicode-bidi:plaintext;overflow-wrap:anywhere}
mark{background:#ffe08a;border-radius:2px}mark.old{background:#ffc9c9}
.cp{font:10px/1 ui-monospace,monospace;border:1px solid #8b949e;border-radius:2px;padding:0 2px;
margin:0 1px;color:#57606a;unicode-bidi:isolate}
.sep{color:#8b949e;padding:0 .4em}.pred{font-size:12px;color:#57606a;margin-top:2px}
.ok{color:#1a7f37}.bad{color:#cf222e;font-weight:600}
.row{display:flex;flex-wrap:wrap;gap:0 24px;align-items:flex-start}figure{margin:0}
figcaption{font-size:12px;color:#57606a;max-width:600px}
img{max-width:100%;height:auto;border:1px solid #eaeef2}
details>summary{cursor:pointer;font-weight:600;margin:.6em 0}
"""

# click a header: sort its table's rows by that column (data-v: the number), again: reversed
JS = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
    var up = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    function key(row) {
      var c = row.cells[i], v = c.getAttribute("data-v");
      return v === null ? c.textContent : parseFloat(v);
    }
    Array.from(body.rows).sort(function (a, b) {
      var x = key(a), y = key(b);
      var d = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
      return up ? d : -d;
    }).forEach(function (row) { body.appendChild(row); });
  });
});
"""

CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'")


class Markup(str):
    """HTML already escaped: goes into a page as it is."""


def _hidden(c: str) -> bool:
    return c != " " and unicodedata.category(c) in HIDDEN


def escape(value) -> Markup:
    """``value`` as text in HTML; invisible and reordering characters as ``U+XXXX`` boxes."""
    if isinstance(value, Markup):
        return value
    out = []
    for c in str(value):
        if _hidden(c):
            name = unicodedata.name(c, "") if unicodedata.category(c) != "Cs" else "surrogate"
            out.append(f'<span class="cp" title="{plain(name)}">U+{ord(c):04X}</span>')
        else:
            out.append(html.escape(c))
    return Markup("".join(out))


def plain(value) -> str:
    """``value`` for an attribute or the ``<title>`` (no markup there): escaped, quotes too,
    hidden characters as ``U+XXXX`` text."""
    return html.escape("".join(f"U+{ord(c):04X}" if _hidden(c) else c for c in str(value)))


def clusters(text: str) -> list[str]:
    """``text`` in clusters: a character with the combining marks and variation selectors
    after it (a mark after a boxed character, or first, stands alone)."""
    out: list[str] = []
    for c in text:
        if out and unicodedata.category(c) in MARKS and not _hidden(out[-1][-1]):
            out[-1] += c
        else:
            out.append(c)
    return out


def _marked(parts: Iterable[tuple[bool, str]], cls: str = "") -> Markup:
    attr = f' class="{cls}"' if cls else ""
    return Markup("".join(f"<mark{attr}>{escape(t)}</mark>" if changed else escape(t)
                          for changed, t in parts if t))


def diff(old: str, new: str) -> tuple[Markup, Markup]:
    """(``old``, ``new``) with the clusters that differ marked: removed or replaced ones in
    ``old`` (``mark.old``), inserted or replacing ones in ``new``."""
    a, b = clusters(old), clusters(new)
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        left.append((op != "equal", "".join(a[i1:i2])))
        right.append((op != "equal", "".join(b[j1:j2])))
    return _marked(left, "old"), _marked(right)


def _cell(value, digits: int) -> str:
    """A ``<td>``: numbers right-aligned with their value to sort by, text escaped."""
    if isinstance(value, bool) or not isinstance(value, (int, float, type(None))):
        return f'<td class="text">{escape(value)}</td>'
    if value is None:
        return '<td class="num" data-v="-Infinity">—</td>'
    shown = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    return f'<td class="num" data-v="{value!r}">{shown}</td>'


def table(header: Sequence[str], rows: Iterable[Sequence], digits: int | Sequence[int] = 3,
          sortable: bool = True) -> Markup:
    """A table; a click on a header sorts it (numbers by value, None last when descending).
    ``digits``: of the floats, for all columns or per column."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    per = [digits] * len(header) if isinstance(digits, int) else list(digits)
    body = "".join("<tr>" + "".join(_cell(v, d) for v, d in zip(row, per)) + "</tr>\n"
                   for row in rows)
    cls = ' class="sortable"' if sortable else ""
    return Markup(f"<table{cls}><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>")


def png(data: bytes | Path, width: int = PLOT_WIDTH) -> bytes:
    """A plot's PNG at most ``width`` pixels wide, in 256 colours (a fraction of the bytes);
    the PNG as it is without Pillow."""
    raw = Path(data).read_bytes() if isinstance(data, Path) else data
    try:
        from PIL import Image
    except ImportError:
        return raw
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    if image.width > width:
        image = image.resize((width, round(image.height * width / image.width)),
                             Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, "PNG", optimize=True)
    return out.getvalue() if out.tell() < len(raw) else raw


def figure(data: bytes | Path, caption: str, width: int = PLOT_WIDTH) -> Markup:
    """An embedded plot with its caption."""
    encoded = base64.b64encode(png(data, width)).decode("ascii")
    return Markup(f'<figure><img src="data:image/png;base64,{encoded}" alt="{plain(caption)}">'
                  f"<figcaption>{escape(caption)}</figcaption></figure>")


def row(*items: Markup) -> Markup:
    """Tables or plots side by side, wrapping when the window is narrow."""
    return Markup('<div class="row">' + "".join(f"<div>{item}</div>" for item in items)
                  + "</div>")


def heading(text: str, level: int = 2) -> Markup:
    return Markup(f"<h{level}>{escape(text)}</h{level}>")


def paragraph(text: str) -> Markup:
    return Markup(f"<p>{escape(text)}</p>")


def details(summary: str, *parts: Markup) -> Markup:
    """A folded block (long example tables), so the headline fits the first screen."""
    return Markup(f"<details><summary>{escape(summary)}</summary>" + "".join(parts)
                  + "</details>")


def _parts(value, inputs: str) -> list[str]:
    """A victim input as texts to show: a pair's two texts, a token list joined by spaces."""
    if inputs == "pair" and isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    if isinstance(value, (list, tuple)):
        return [" ".join(map(str, value))]
    return [str(value)]


def _joined(parts: list[Markup]) -> Markup:
    return Markup('<span class="sep">‖</span>'.join(parts))


def _prediction(value, gold) -> Markup:
    """What the victim said: a label (green when right, red when wrong), tags right out of
    all, or a score."""
    if value is None:
        return Markup("")
    if isinstance(value, (list, tuple)) and isinstance(gold, (list, tuple)) \
            and len(value) == len(gold) and not all(isinstance(v, float) for v in value):
        right = sum(str(v) == str(g) for v, g in zip(value, gold))
        cls = "ok" if right == len(gold) else "bad"
        return Markup(f'<div class="pred">→ <span class="{cls}">{right}/{len(gold)} tags '
                      "right</span></div>")
    if isinstance(value, float) or (isinstance(value, (list, tuple)) and value
                                    and all(isinstance(v, float) for v in value)):
        scores = value if isinstance(value, (list, tuple)) else [value]
        return Markup('<div class="pred">→ score ' + escape(", ".join(f"{v:.3f}" for v in scores))
                      + "</div>")
    cls = "ok" if str(value) == str(gold) else "bad"
    return Markup(f'<div class="pred">→ <span class="{cls}">{escape(value)}</span></div>')


def _gold(value) -> Markup:
    if isinstance(value, (list, tuple)):
        return escape(" ".join(map(str, value)))
    return escape(value)


def examples(rows: Sequence[dict], inputs: str = "text", lead: Sequence[str] = ()) -> Markup:
    """Examples side by side: original, attacked (changed clusters marked), restored by the
    shield (where one was in front of the victim: still-wrong clusters marked against the
    original), gold, and under each text the victim's prediction for it.

    A row: ``original``, ``attacked``, optional ``restored``, ``gold``, ``before`` (the
    prediction for the original), ``after`` (for what the victim got: the attacked or the
    restored input); ``lead`` names leading columns, taken from the row by name."""
    shielded = any(r.get("restored") is not None for r in rows)
    has_gold = any(r.get("gold") is not None for r in rows)
    header = [*lead, "original", "attacked", *(["restored by the shield"] if shielded else []),
              *(["gold"] if has_gold else [])]
    body = []
    for r in rows:
        original, gold = _parts(r["original"], inputs), r.get("gold")
        marked = [diff(o, a) for o, a in zip(original, _parts(r["attacked"], inputs))]
        before, after = _prediction(r.get("before"), gold), _prediction(r.get("after"), gold)
        restored = r.get("restored")
        cells = [*(r.get(name) for name in lead),
                 Markup(_joined([old for old, _ in marked]) + before),
                 Markup(_joined([new for _, new in marked]) + (after if restored is None else ""))]
        if shielded:  # marked: what still differs from the original
            cells.append("—" if restored is None else Markup(_joined(
                [diff(o, t)[1] for o, t in zip(original, _parts(restored, inputs))]) + after))
        if has_gold:
            cells.append(_gold(gold))
        body.append(cells)
    return table(header, body)


def page(title: str, *parts: Markup) -> str:
    """The whole document: ``title`` as heading, then ``parts`` in order."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
            f"<title>{plain(title)}</title><style>{CSS}</style></head>\n<body><main>"
            f"{heading(title, 1)}\n" + "\n".join(parts) +
            f"\n</main><script>{JS}</script></body></html>\n")
