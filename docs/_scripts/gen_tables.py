"""Fill the pages' generated tables at build time (mkdocs-gen-files): see ``doc_tables.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_tables import fill, pages  # noqa: E402

for page in pages():
    with mkdocs_gen_files.open(page, "r") as f:
        text = f.read()
    with mkdocs_gen_files.open(page, "w") as f:
        f.write(fill(text, page))
