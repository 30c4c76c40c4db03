"""The package metadata is in pyproject.toml; this file gives it the long description.

The package index shows README.md without the repository's files, so a picture there
(``![...](docs/img/...)``, a path in the repository) would be a broken image: the long
description is README.md with its pictures left out (GitHub and the documentation site show them).
"""

import re
from pathlib import Path

from setuptools import setup

#: A Markdown picture on a line of its own whose source is a path in the repository.
REPOSITORY_PICTURE = re.compile(r"^!\[[^\]]*\]\((?!https?:)[^)]+\)\s*$\n?", re.MULTILINE)


def long_description() -> str:
    readme = (Path(__file__).resolve().parent / "README.md").read_text(encoding="utf-8")
    return REPOSITORY_PICTURE.sub("", readme)


setup(long_description=long_description(), long_description_content_type="text/markdown")
