"""Your agent on the baselines table: its normalized score, interval and paired differences.

The baselines table (the documentation's Baselines page, ``docs/baselines.csv``) scores every
policy on the same evaluation episodes: episode ``i`` reset with seed ``i``, ``i = 0 .. N - 1``
(``N = 1000``), on the held-out test log where an id replays data. :func:`score` scores an agent
the same way and places it among the table's rows::

    import gym_suite

    print(gym_suite.score("heartpole-v1", policy))  # a callable obs -> action, or per-episode returns

The table's reference numbers ship with the package (``gym_suite/data/baselines.csv``, written
from ``docs/baselines.csv`` by ``gym-suite/benchmarks/baselines.py``): no checkout is needed.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from gym_suite.envs.checks import shown
from gym_suite.evaluate import BUILTIN_POLICIES, EvalResult, _check_run, evaluate, find_spec

#: The two-sided 95 % normal quantile: the table's intervals of a mean over episodes.
Z95 = 1.959964

#: The columns of ``docs/baselines.csv`` the package keeps (:func:`reference_table_text`).
TABLE_FIELDS = tuple(
    "env_id policy seeds iqm ci_low ci_high normalized normalized_ci_low normalized_ci_high eval_episodes reference".split()
)

#: The largest return (in size) :func:`score` takes: past it a mean or an interval of 1,000 overflows.
MAX_RETURN = 1e100

#: The table's rows that define the scale (0 and 1) rather than place an agent.
SCALE_POLICIES = ("random", "optimum")


def reference_table_text(summary_csv: str) -> str:
    """The package's reference table (``gym_suite/data/baselines.csv``) from the text of
    ``docs/baselines.csv``: its rows, the columns of :data:`TABLE_FIELDS`."""
    rows = list(csv.DictReader(io.StringIO(summary_csv)))
    out = io.StringIO()
    writer = csv.DictWriter(out, TABLE_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


@dataclass(frozen=True)
class TableRow:
    """A row of the baselines table: a policy's return (a trained agent's IQM over training
    seeds, a reference's mean over episodes) with its 95 % interval, and the same normalized."""

    policy: str
    seeds: int
    value: float
    ci_low: float
    ci_high: float
    normalized: float
    normalized_ci_low: float
    normalized_ci_high: float


@dataclass(frozen=True)
class Difference:
    """Your agent's mean return minus a table row's, with a 95 % interval. ``paired``: computed
    episode by episode on the same episodes (the row's per-episode returns are available);
    otherwise from the two intervals, unpaired."""

    policy: str
    difference: float
    ci_low: float
    ci_high: float
    paired: bool

    def describe(self) -> str:
        how = "paired, episode by episode" if self.paired else "unpaired: the table keeps no per-episode returns"
        return f"minus {self.policy}: {self.difference:+.4g} [{self.ci_low:+.4g}, {self.ci_high:+.4g}] ({how})"


@dataclass(frozen=True)
class Score:
    """An agent placed in the baselines table of ``env_id`` (:func:`score`)."""

    env_id: str
    returns: np.ndarray
    mean: float
    ci_low: float
    ci_high: float
    random: float
    top: float
    top_policy: str
    normalized: float
    normalized_ci_low: float
    normalized_ci_high: float
    rows: tuple[TableRow, ...]
    differences: tuple[Difference, ...]
    notes: tuple[str, ...] = ()
    #: what the top of the scale is (:func:`reference_kind`): "optimum", "grid DP", "oracle"
    top_label: str = "optimum"

    @property
    def episodes(self) -> int:
        return len(self.returns)

    def placement(self) -> str:
        """Where the agent's normalized score falls among the table's rows (the scale's ends left
        out): the rows inside its 95 % interval are level with it, the nearest rows outside below and above."""
        ranked = sorted((r for r in self.rows if r.policy not in SCALE_POLICIES), key=lambda r: r.normalized)
        below = [r for r in ranked if r.normalized < self.normalized_ci_low]
        level = [r for r in ranked if self.normalized_ci_low <= r.normalized <= self.normalized_ci_high]
        above = [r for r in ranked if r.normalized > self.normalized_ci_high]
        parts = []
        if level:
            parts.append("level with " + ", ".join(f"{r.policy} ({r.normalized:.3f})" for r in level))
        parts.append(f"above {below[-1].policy} ({below[-1].normalized:.3f})" if below else "above no row")
        parts.append(f"below {above[0].policy} ({above[0].normalized:.3f})" if above else "below no row")
        return "; ".join(parts)

    def describe(self) -> str:
        lines = [
            f"{self.env_id}: return {self.mean:.4g} [{self.ci_low:.4g}, {self.ci_high:.4g}] over the table's "
            f"{self.episodes:,} evaluation episodes (95 % interval of the mean)",
            f"normalized: {self.normalized:.3f} [{self.normalized_ci_low:.3f}, {self.normalized_ci_high:.3f}] "
            f"(0: random {self.random:.4g}, 1: {self.top_label} {self.top:.4g})",
            f"in the table: {self.placement()}",
        ]
        lines += [d.describe() for d in self.differences]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()


def _table_rows(env_id: str) -> tuple[str, list[dict[str, str]]]:
    """``env_id``'s registered id and its rows of the package's reference table, as text."""
    spec_id = find_spec(env_id).id
    text = (resources.files("gym_suite") / "data" / "baselines.csv").read_text(encoding="utf-8")
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["env_id"] == spec_id]
    if not rows:
        raise ValueError(f"the baselines table has no rows for {spec_id}")
    if any(not r[field] for r in rows for field in TABLE_FIELDS[2:]):  # a row not yet played, or not normalized
        raise ValueError(f"the baselines table has no reference row for {spec_id}: its returns are not normalized")
    return spec_id, rows


def table(env_id: str) -> list[TableRow]:
    """The baselines table's rows of ``env_id``, from the package's reference table."""
    _, rows = _table_rows(env_id)
    return [TableRow(r["policy"], int(r["seeds"]), *(float(r[f]) for f in TABLE_FIELDS[3:9])) for r in rows]


def _one(env_id: str, column: str, read: Callable[[str], Any], what: str) -> Any:
    """The one value (``read`` of ``column``) every row of ``env_id`` in the table has."""
    spec_id, rows = _table_rows(env_id)
    found = {read(r[column]) for r in rows}
    if len(found) != 1:
        raise ValueError(f"the baselines table's rows of {spec_id} {what.format(sorted(found))}")
    return found.pop()


def reference_kind(env_id: str) -> str:
    """What the table's top of the scale (its ``optimum`` row) is for ``env_id``: ``"optimum"``
    where it is exact, ``"grid DP"`` (heartpole: the best policy known) or ``"oracle"`` (push-v1:
    a policy that reads what the agent cannot), the first words of the table's reference column."""
    return str(_one(env_id, "reference", lambda text: text.split(" (", 1)[0], "name {} as the reference, not one"))


def table_episodes(env_id: str) -> int:
    """How many evaluation episodes the table's rows of ``env_id`` played (seeds ``0 .. N - 1``)."""
    return int(_one(env_id, "eval_episodes", int, "played {} episodes, not one number"))


def eval_env_kwargs(env_id: str) -> dict[str, Any]:
    """The environment arguments of the table's evaluation episodes (push-v0 and push-v1: the
    held-out test log), the training recipes' ``eval_env_kwargs``."""
    from gym_suite.training.recipes import recipe_for

    return dict(recipe_for(find_spec(env_id).id).eval_env_kwargs)


def _returns(env_id: str, agent: object, episodes: int, n_jobs: int, progress: bool | None) -> np.ndarray:
    """The agent's per-episode returns on the table's episodes, evaluating it if it is a policy."""
    if isinstance(agent, EvalResult):
        spec_id = find_spec(env_id).id
        if agent.env_id != spec_id or agent.seed != 0:
            raise ValueError(
                f"agent is an evaluation of {agent.env_id} from seed {agent.seed}: the table's episodes of "
                f"{spec_id} are seeds 0 .. {episodes - 1} (gym_suite.evaluate(..., seed=0, "
                f"env_kwargs={eval_env_kwargs(env_id)}))"
            )
        _check_env_kwargs(env_id, agent.env_kwargs)
        values: Any = agent.returns
    elif isinstance(agent, str) or callable(agent):
        if isinstance(agent, str) and agent not in BUILTIN_POLICIES:
            raise ValueError(
                f"agent {agent!r} is not a policy: use a callable obs -> action, one of {list(BUILTIN_POLICIES)}, "
                "or per-episode returns"
            )
        values = _table_evaluation(env_id, agent, episodes, n_jobs, progress).returns
    elif isinstance(agent, (Sequence, np.ndarray)) and not isinstance(agent, (bytes, bytearray)):
        values = agent
    else:
        raise TypeError(
            "agent must be per-episode returns (a sequence or 1-D array of numbers), a gym_suite.evaluate "
            f"result, a callable obs -> action or one of {list(BUILTIN_POLICIES)}, got {type(agent).__name__}"
        )
    return _as_returns(values, episodes)


def _as_returns(values: Any, episodes: int) -> np.ndarray:
    """``values`` as float returns, one per episode: ``TypeError`` for a bool, a string, ...; ``ValueError``
    for another count, or a number too large to average."""
    if isinstance(values, np.ndarray) and values.dtype.kind != "O":
        odd = [] if values.dtype.kind in "iuf" else values.ravel()[:1].tolist()
    else:  # one by one: numpy reads [0.5, True] and [0.5, "1.5"] as floats
        items = values.ravel() if isinstance(values, np.ndarray) else values
        odd = [v for v in items if not _is_number(v)]
    if odd:
        raise TypeError(f"agent's returns must be numbers (not bools or strings), got {shown(odd[0])}")
    too_large = (
        f"agent's returns must be finite numbers, at most {MAX_RETURN:g} in size (a NaN, an infinity or "
        "±1e308 is not a return)"
    )
    try:
        returns = np.asarray(values, dtype=np.float64)
    except OverflowError:  # an int past the floats
        raise ValueError(too_large) from None
    except (TypeError, ValueError) as exc:
        raise TypeError(f"agent's returns must be numbers, got {values!r:.80}") from exc
    if returns.ndim != 1 or len(returns) != episodes:
        raise ValueError(
            f"agent's returns must be one per evaluation episode of the table: {episodes:,} (episode i reset "
            f"with seed i), got shape {returns.shape}"
        )
    if not np.all(np.abs(returns) <= MAX_RETURN):  # False for a NaN
        raise ValueError(too_large)
    return returns


def _is_number(value: Any) -> bool:
    """A real number, not a bool: a Python or numpy one, or a 0-d array of one (JAX's ``jnp.sum``)."""
    if isinstance(value, numbers.Real):
        return not isinstance(value, bool)
    return hasattr(value, "dtype") and np.ndim(value) == 0 and np.asarray(value).dtype.kind in "iuf"


def _check_env_kwargs(env_id: str, used: dict[str, Any] | None) -> None:
    """An evaluation's environment arguments (None: not known) are those of the table's episodes."""
    if used is None:
        return
    wanted, missing = eval_env_kwargs(env_id), object()
    differ = [
        k for k in sorted(wanted.keys() | used.keys()) if repr(wanted.get(k, missing)) != repr(used.get(k, missing))
    ]
    if differ:
        raise ValueError(
            f"agent is an evaluation of {find_spec(env_id).id} with env_kwargs={shown(used)}: the table's "
            f"episodes use env_kwargs={wanted} (they differ in {', '.join(differ)})"
        )


def _table_evaluation(env_id: str, policy: Any, episodes: int, n_jobs: int, progress: bool | None) -> EvalResult:
    """``policy`` evaluated on the table's episodes of ``env_id``."""
    kwargs = eval_env_kwargs(env_id) or None
    return evaluate(env_id, policy, episodes=episodes, seed=0, n_jobs=n_jobs, env_kwargs=kwargs, progress=progress)


def _half_width(returns: np.ndarray) -> float:
    return Z95 * float(returns.std(ddof=1)) / math.sqrt(len(returns)) if len(returns) > 1 else 0.0


def score(
    env_id: str,
    agent: object,
    *,
    n_jobs: int = 1,
    progress: bool | None = None,
    paired: bool = True,
) -> Score:
    """Place an agent in the baselines table of ``env_id``.

    ``agent``: its per-episode returns on the table's evaluation episodes (one per episode,
    episode ``i`` reset with seed ``i``, 1,000; push-v0 and push-v1 on the test log,
    ``env_kwargs={"split": "test"}``), a :func:`gym_suite.evaluate` result of them, or a policy
    (a callable, ``"random"`` or ``"heuristic"``) to evaluate there (``n_jobs``, ``progress`` as
    :func:`gym_suite.evaluate`'s).

    Returns a :class:`Score`: the mean return with its 95 % interval; the normalized score
    (return − random) / (optimum − random) with the table's random and optimum (or best known)
    returns; where it falls among the rows; the difference with the heuristic (paired, played on
    the same episodes, unless ``paired`` is false) and with the best row but the optimum
    (unpaired unless it is the heuristic: the table keeps no per-episode returns). ``ValueError``
    for returns that are not one finite number (at most :data:`MAX_RETURN` in size) per episode,
    or of other episodes (an evaluation's seed or environment arguments), ``TypeError`` for
    returns that are not numbers (a bool, a string) or an agent of another kind.
    """
    if not isinstance(paired, bool):
        raise TypeError(f"paired must be True or False, got {paired!r}")
    _check_run(n_jobs, progress)
    rows, episodes = table(env_id), table_episodes(env_id)
    returns = _returns(env_id, agent, episodes, n_jobs, progress)
    by_policy = {r.policy: r for r in rows}
    top_policy = "optimum" if "optimum" in by_policy else "best-known"
    if "random" not in by_policy or top_policy not in by_policy:
        raise ValueError(f"the baselines table of {env_id} has no random or optimum row to normalize with")
    random, top = by_policy["random"].value, by_policy[top_policy].value
    span, mean, half = top - random, float(returns.mean()), _half_width(returns)
    low, high = sorted(((mean - half - random) / span, (mean + half - random) / span))
    notes: list[str] = []
    differences: list[Difference] = []
    heuristic = by_policy.get("heuristic") if paired else None
    if heuristic is not None:
        heuristic_returns = _table_evaluation(env_id, "heuristic", episodes, n_jobs, None).returns
        here = float(heuristic_returns.mean())
        if not math.isclose(here, heuristic.value, rel_tol=1e-4, abs_tol=1e-3):
            notes.append(
                f"the heuristic returns {here:.6g} here against the table's {heuristic.value:.6g}: this installation "
                "plays other episodes than the table's (other versions of its dependencies?)"
            )
        d = returns - heuristic_returns
        d_mean, d_half = float(d.mean()), _half_width(d)
        differences.append(Difference("heuristic", d_mean, d_mean - d_half, d_mean + d_half, True))
    candidates = [r for r in rows if r.policy not in SCALE_POLICIES]
    best = max(candidates, key=lambda r: r.normalized) if candidates else None
    if best is not None and not (best.policy == "heuristic" and heuristic is not None):
        diff = mean - best.value
        low_gap, high_gap = math.hypot(half, best.ci_high - best.value), math.hypot(half, best.value - best.ci_low)
        differences.append(Difference(best.policy, diff, diff - low_gap, diff + high_gap, False))
    label = reference_kind(env_id) if top_policy == "optimum" else top_policy
    normalized = (mean, mean - half, mean + half, random, top, top_policy, (mean - random) / span, low, high)
    return Score(find_spec(env_id).id, returns, *normalized, tuple(rows), tuple(differences), tuple(notes), label)


def against_table_command(args: Any) -> int:
    """``gym-suite evaluate ID --policy P --against-table``: :func:`score` of the policy, printed.
    The table's episodes are fixed: ``--seed`` other than 0, ``--episodes`` other than the
    table's, or ``--env-kwargs`` are usage errors, as is an id the table has no rows of."""
    try:
        episodes = table_episodes(args.id)
    except ValueError as exc:
        args.parser.error(f"argument --against-table: {exc}")
    problem = None
    if args.seed != 0:
        problem = f"the table's episodes are seeds 0..{episodes - 1}: leave --seed at 0"
    elif args.episodes != episodes:
        problem = f"the table plays {episodes:,} episodes, not --episodes {args.episodes}"
    elif args.env_kwargs:
        problem = (
            "the table's episodes use their own environment arguments "
            f"({eval_env_kwargs(args.id) or 'the defaults'}): leave --env-kwargs out"
        )
    if problem:
        args.parser.error(f"argument --against-table: {problem}")
    print(score(args.id, args.policy, n_jobs=args.jobs, progress=True))
    return 0
