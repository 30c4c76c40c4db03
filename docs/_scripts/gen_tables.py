"""Fill the pages' generated tables at build time (mkdocs-gen-files): see ``doc_tables.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_tables import fill, pages  # noqa: E402

for page in pages():
    if not page.startswith("docs/"):
        continue  # README.md: not a page of the site
    with mkdocs_gen_files.open(page.removeprefix("docs/"), "r") as f:
        text = f.read()
    with mkdocs_gen_files.open(page.removeprefix("docs/"), "w") as f:
        f.write(fill(text, page))
