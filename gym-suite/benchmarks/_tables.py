"""The Markdown of the benchmark scripts: tables written without pandas' ``to_markdown`` (which needs
``tabulate``, an optional package: a script that has measured never fails for want of it), and the
prose of their pages, kept in Markdown files beside them."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path
from string import Template


def page(path: Path, name: str, **values: object) -> str:
    """The section ``name`` of the page prose at ``path`` (each section follows its ``<!-- name -->``
    line), its ``$names`` filled in with ``values``."""
    parts = re.split(r"^<!-- ([\w:-]+) -->\n", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    sections = {key: text.rstrip("\n") for key, text in zip(parts[1::2], parts[2::2])}
    return Template(sections[name]).substitute(values)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[int] = ()) -> str:
    """A GitHub Markdown table of the cells as written (``None``: an empty cell), the columns padded to
    one width; the columns whose index is in ``right`` right-aligned, the others left-aligned."""
    cells = [[str(h) for h in header]] + [["" if c is None else str(c) for c in row] for row in rows]
    if any(len(row) != len(header) for row in cells):
        raise ValueError("every row needs as many cells as the header")
    # as tabulate's "pipe" format: a column as wide as its widest cell and its header plus 2
    widths = [max([len(cells[0][i]) + 2] + [len(row[i]) for row in cells[1:]]) for i in range(len(header))]

    def line(row: list[str]) -> str:
        return (
            "| "
            + " | ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
            + " |"
        )

    rule = (
        "|"
        + "|".join(("-" * (w + 1) + ":") if i in right else (":" + "-" * (w + 1)) for i, w in enumerate(widths))
        + "|"
    )
    return "\n".join([line(cells[0]), rule, *(line(row) for row in cells[1:])])
