"""Griffe extension for the API reference: the package's docstrings use Sphinx roles
(:func:`play`, :class:`HeartPoleEnv`) and ``::`` before literal blocks; Markdown shows them as
inline code and a colon."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const):`~?([^`]+)`")
LITERAL_INTRO = re.compile(r"::$", re.MULTILINE)


def markdown_docstring(text: str) -> str:
    """``text`` with Sphinx roles as inline code and ``::`` literal-block introductions as ``:``."""
    return LITERAL_INTRO.sub(":", ROLE.sub(r"`\1`", text))


class SphinxRolesToMarkdown(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
