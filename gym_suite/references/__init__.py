"""The reference policies the baselines table is normalized by, installed with the package.

A reference policy needs no training: the optimum where it is computed exactly, an oracle where
it reads what an agent cannot see (push-v1's knows each notification's true open probability: an
agent may beat it), the best policy known where neither is (heartpole's dynamic programming on a
grid), a searched policy family (heartpole-v1's threshold policies) and the supervised baselines
of the push ids; each :class:`Reference` says which (``kind``). They ship with the package, so
that a Ray node with only ``pip install "gym-suite[baselines]"`` plays them.

>>> from gym_suite.references import references
>>> sorted(references("target-v1"))
['optimum']
>>> references("heartpole-v1")["optimum"].command
'python -m gym_suite.references.heartpole_optimum --ids heartpole-v1'

Each module runs as a script too (``python -m gym_suite.references.target_optimum --help``):

- :mod:`gym_suite.references.heartpole_optimum`: dynamic programming over heartpole's rules, on a grid;
- :mod:`gym_suite.references.heartpole_v1_reference`: heartpole-v1's threshold and time-aware policies;
- :mod:`gym_suite.references.example_v1_optimum`: example-v1's dynamic program over beliefs (an exact optimum);
- :mod:`gym_suite.references.target_optimum`: target-v1's earliest intercept (an exact optimum);
- :mod:`gym_suite.references.push_supervised`: push-v0's Bayes-optimal policy and supervised fits;
- :mod:`gym_suite.references.push_v1_optimum`: push-v1's online dynamic program and supervised fit;
- :mod:`gym_suite.references.push_v1_rule`: the choice of push-v1's heuristic's bar on the training log.

They need the ``baselines`` extra (SciPy, scikit-learn); this module imports none of them until a
policy is built.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from gym_suite.envs.checks import shown

__all__ = ["Reference", "reference_policy", "references"]


class BatchPolicy:
    """A policy that decides by batches (``act_batch``): one observation's action is a batch of one's."""

    def __call__(self, observation: Any) -> int:
        return int(self.act_batch([observation])[0])  # type: ignore[attr-defined]


def script_parser(doc: str, **options: Any) -> argparse.ArgumentParser:
    """The parser of a module run as a script: its docstring's first paragraph, and an option
    ``--NAME`` (``_`` read as ``-``) per keyword: its default, or ``(default, help)``, or
    ``(default, help, type)``; ``False`` is a flag, an integer a positive one unless ``type`` (an
    argparse type, such as :func:`gym_suite.cli.non_negative_int`) says otherwise. A bad value is
    a usage error naming the option (exit status 2), before any work."""
    from gym_suite.cli import ArgumentParser, positive_int

    parser = ArgumentParser(description=doc.split("\n\n")[0])
    for name, value in options.items():
        default, help, kind = (*value, None)[:3] if isinstance(value, tuple) else (value, None, None)
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true", help=help)
        else:
            kind = kind or (positive_int if isinstance(default, int) else type(default))
            parser.add_argument(flag, type=kind, default=default, help=help)
    return parser


def paired_text(result: Any, base: Any, digits: int = 4) -> str:
    """``result`` minus ``base`` episode by episode (``EvalResult.paired_difference``): ``+d ± se``."""
    difference, error = result.paired_difference(base)
    return f"{difference:+.{digits}f} ± {error:.{digits}f}"


def listed(item: Callable[[str], Any] = str, choices: Collection[str] = ()) -> Callable[[str], list]:
    """An argparse type: a comma-separated list of at least one item, each read by ``item`` (its
    ``ValueError`` or ``TypeError`` a usage error) and, given ``choices``, one of them."""

    def read(text: str) -> list:
        try:
            items = [item(part.strip()) for part in text.split(",") if part.strip()]
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        wrong = [part for part in items if choices and part not in choices]
        if wrong or not items:
            allowed = f" of {list(choices)}" if choices else ""
            raise argparse.ArgumentTypeError(f"must be a comma-separated list{allowed}, got {shown(text)}")
        return items

    return read


@dataclass(frozen=True)
class Reference:
    """A reference policy of one id: how to build it, what it is, and the command that reproduces it.

    ``build`` is ``"module:function"`` of this package with its positional arguments ``args``, or
    ``"heuristic"`` (the id's own, where it is optimal); ``on_training`` the arguments for the
    training data where they differ (an oracle reads the probabilities of the log it plays).
    """

    name: str
    build: str
    args: tuple[Any, ...] = ()
    note: str = ""
    command: str = ""
    on_training: tuple[Any, ...] | None = None
    #: what the row is: ``"optimum"`` (computed exactly: no policy does better in expectation),
    #: ``"oracle"`` (reads what an agent cannot see, so an agent may beat it), ``"grid DP"`` (the
    #: best policy known, optimal only on its grid) or the name of a policy family
    kind: str = "optimum"

    def policy(self, on_training_data: bool = False) -> Any:
        """The policy (a callable ``observation -> action``, or ``"heuristic"``), for the evaluation
        data or, with ``on_training_data``, for the training data."""
        if self.build == "heuristic":
            return "heuristic"
        args = self.on_training if on_training_data and self.on_training is not None else self.args
        module, _, function = self.build.partition(":")
        return getattr(importlib.import_module(f"{__name__}.{module}"), function)(*args)


_PYTHON = "python -m gym_suite.references."
_HEARTPOLE_NOTE = "dynamic programming on a {} grid, without beer: optimal to the grid, the best policy known"
_PUSH_V1_NOTE = (
    "online dynamic program over budget and notifications left, reading each notification's true open "
    "probability (the user's hidden offset included): not a bound"
)


def _table() -> dict[str, dict[str, Reference]]:
    table: dict[str, dict[str, Reference]] = {"heartpole-v1": {}}
    table["heartpole-v1"]["best-known"] = Reference(
        "best-known",
        "heartpole_v1_reference:best_known_policy",
        note="the best time-aware threshold policy found (searched on seeds 10,000-10,999)",
        command=_PYTHON + "heartpole_v1_reference",
        kind="threshold policy",
    )
    for env_id, grid in (("heartpole-v0", "0.2"), ("heartpole-v1", "0.07")):
        table.setdefault(env_id, {})["optimum"] = Reference(
            "optimum",
            "heartpole_optimum:optimal_policy",
            (env_id,),
            _HEARTPOLE_NOTE.format(grid),
            f"{_PYTHON}heartpole_optimum --ids {env_id}",
            kind="grid DP",
        )
    for env_id, expected in (("example-v0", "8.5"), ("target-v0", "1")):
        note = f"the heuristic, optimal: {expected} expected (optima.py)"
        table[env_id] = {"optimum": Reference("optimum", "heuristic", (), note, "python gym-suite/analyses/optima.py")}
    note = "dynamic programming over beliefs, exact (Bayes-optimal): 5.05 expected"
    table["example-v1"] = {
        "optimum": Reference("optimum", "example_v1_optimum:optimal_policy", (), note, _PYTHON + "example_v1_optimum")
    }
    note = "the earliest intercept, exact (target_optimum.py)"
    table["target-v1"] = {
        "optimum": Reference("optimum", "target_optimum:OptimalPolicy", (), note, _PYTHON + "target_optimum")
    }
    push, push_v1 = _PYTHON + "push_supervised", _PYTHON + "push_v1_optimum"
    table["push-v0"] = {
        "optimum": Reference(
            "optimum",
            "push_supervised:bayes_policy",
            ("test",),
            "Bayes-optimal: the generator's open probabilities",
            push,
            ("train",),
        ),
        "supervised": Reference(
            "supervised",
            "push_supervised:supervised_policy",
            ("logistic",),
            "fit on the training log",
            push,
            kind="supervised",
        ),
    }
    table["push-v1"] = {
        "optimum": Reference(
            "optimum", "push_v1_optimum:optimal_policy", ("test",), _PUSH_V1_NOTE, push_v1, ("train",), "oracle"
        ),
        "supervised": Reference(
            "supervised",
            "push_v1_optimum:supervised_policy",
            (),
            "fit on the training log, with the oracle's thresholds",
            push_v1,
            kind="supervised",
        ),
    }
    return table


_TABLE = _table()


def references(env_id: str) -> dict[str, Reference]:
    """The reference policies of ``env_id`` beyond random and the heuristic, by row name
    (``"optimum"``, ``"best-known"``, ``"supervised"``); ``{}`` for an id without any."""
    if not isinstance(env_id, str):
        raise TypeError(f"references: env_id must be a string, got {type(env_id).__name__}")
    return dict(_TABLE.get(env_id.removeprefix("gym_suite:"), {}))


def reference_policy(env_id: str, name: str, on_training_data: bool = False) -> Any:
    """The reference policy ``name`` of ``env_id`` (:func:`references`), ready for
    :func:`gym_suite.evaluate`; ``on_training_data``: the version for the training data."""
    found = references(env_id)
    if name not in found:
        raise ValueError(f"reference_policy: {env_id!r} has no reference {name!r}; it has {sorted(found)}")
    return found[name].policy(on_training_data)
