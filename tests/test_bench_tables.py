"""The benchmark scripts' Markdown tables (gym-suite/benchmarks/_tables.py), written without tabulate."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "gym-suite" / "benchmarks" / "_tables.py"
_spec = importlib.util.spec_from_file_location("_bench_tables", PATH)
assert _spec is not None and _spec.loader is not None
tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tables)


def test_columns_are_padded_and_aligned():
    text = tables.markdown_table(["id", "N", "µs"], [["example-v0", "4,096", "1.5"], ["x", "1", None]], right={1, 2})
    assert text.splitlines() == [
        "| id         |     N |   µs |",
        "|:-----------|------:|-----:|",
        "| example-v0 | 4,096 |  1.5 |",
        "| x          |     1 |      |",
    ]
    assert tables.markdown_table(["a"], []) == "| a   |\n|:----|"  # no rows: the header alone
    with pytest.raises(ValueError, match="as many cells"):
        tables.markdown_table(["a", "b"], [["1"]])


def test_same_text_as_pandas_to_markdown():
    pytest.importorskip("tabulate")
    pd = pytest.importorskip("pandas")
    header, rows = ["a", "long header"], [["1", "x"], ["22,000", "yy"]]
    ours = tables.markdown_table(header, rows, right={0})
    theirs = pd.DataFrame(rows, columns=header).to_markdown(
        index=False, colalign=["right", "left"], disable_numparse=True
    )
    assert ours == theirs
