"""How the agents of every suite environment are trained: budgets in environment steps and settings.

An id without a recipe gets ``Recipe()``, so a new environment trains as soon as it is registered.

Protocol: recipes are compared on tuning episodes seeded 100,000 onwards, never on the evaluation
episodes 0 .. 999 that the baselines table reports (``docs/baselines.md`` states it, and which
earlier choices predate it); heartpole-v1's are re-checked there (``docs/env-notes/heartpole-v1.md``).
``gym-suite/analyses/tune_recipe.py`` searches an id's settings with Ray Tune under that protocol and
writes the best to :data:`TUNED_RECIPES_FILE`, whose settings :func:`recipe_for` takes over the
recipes below (:func:`read_tuned_recipes`).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import hashlib
import json
import math
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gym_suite._registry import suite_id
from gym_suite.envs.heartpole_env import (
    DEFAULT_HEART_ATTACK_PROCLIVITY,
    HEART_ATTACK_HYPERTENSION,
    HEART_ATTACK_PENALTY,
)

#: The agents that train, by the names the recipes' budgets use.
TRAINED_AGENTS = ("sb3-ppo", "sb3-dqn", "rllib-ppo", "sb3-recurrent-ppo", "reward-model")

#: Stable-Baselines3 PPO settings for every id unless its recipe says otherwise.
SB3_PPO_DEFAULTS: dict[str, Any] = {
    "n_steps": 256,  # per environment copy: 1,024 steps per update with 4 copies
    "batch_size": 64,
    "n_epochs": 10,
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "ent_coef": 0.0,
    "policy_kwargs": {"net_arch": [64, 64]},
}
#: Stable-Baselines3 DQN settings for every id unless its recipe says otherwise.
SB3_DQN_DEFAULTS: dict[str, Any] = {
    "learning_rate": 1e-3,
    "buffer_size": 50_000,
    "learning_starts": 1_000,
    "batch_size": 64,
    "gamma": 0.99,
    "train_freq": 4,
    "gradient_steps": 1,
    "target_update_interval": 1_000,
    "exploration_fraction": 0.2,
    "exploration_final_eps": 0.02,
    "policy_kwargs": {"net_arch": [64, 64]},
}
#: Stable-Baselines3-contrib RecurrentPPO settings (``MlpLstmPolicy``) unless a recipe says otherwise.
SB3_RECURRENT_PPO_DEFAULTS: dict[str, Any] = {
    "n_steps": 128,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 1e-3,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "policy_kwargs": {"lstm_hidden_size": 32, "net_arch": {"pi": [32], "vf": [32]}},
}
#: Ray RLlib PPO settings (``PPOConfig.training`` keywords) unless a recipe says otherwise.
RLLIB_PPO_DEFAULTS: dict[str, Any] = {
    "lr": 3e-4,
    "gamma": 0.99,
    "lambda_": 0.95,
    "train_batch_size_per_learner": 2_000,
    "minibatch_size": 128,
    "num_epochs": 10,
}
RLLIB_HIDDENS = [64, 64]
DEFAULT_BUDGET = 100_000


@dataclass(frozen=True)
class ExpectedPenalty:
    """Deprecated: make the training env with its own expected-cost argument instead
    (:data:`DEPRECATED_PENALTY`). Where it is passed, the training reward adds back ``size *
    info[event]`` and takes off ``size * info[probability]``."""

    event: str
    probability: str
    size: float
    algos: tuple[str, ...] = ("ppo",)

    def __post_init__(self) -> None:
        warnings.warn(DEPRECATED_PENALTY, DeprecationWarning, stacklevel=3)


#: What to use instead of :class:`ExpectedPenalty` (the warning's text).
DEPRECATED_PENALTY = (
    "ExpectedPenalty is deprecated: make the env with its own expected-cost argument instead "
    "(heartpole: expected_cost=True; a recipe: Recipe(train_env_kwargs={'ppo': {'expected_cost': True}}), "
    "a training call: env_kwargs={'expected_cost': True})"
)


@dataclass(frozen=True)
class Recipe:
    """How the agents of one environment are trained: budgets in environment steps and settings.

    ``sb3_ppo``, ``sb3_dqn``, ``sb3_recurrent_ppo``, ``rllib_ppo`` and ``jax_ppo`` update their
    agent's defaults (JAX PPO's: :data:`gym_suite.training.jax.PPO_DEFAULTS`); ``jax_ppo_budget``
    is JAX PPO's budget (``None``: the ``sb3-ppo`` one). These map ``"ppo"``/``"dqn"`` to that
    algorithm's: ``vec_normalize``, ``VecNormalize`` keywords (the greedy policy applies the same
    frozen observation statistics); ``reward_offset`` then ``reward_scale``, added to and
    multiplying its training rewards (the best policy stays the same in episodes of a fixed
    length: an offset can take out a constant cost no policy avoids); ``train_env_kwargs``, the
    arguments of the env it trains on (:func:`training_env_kwargs`); ``truncation_is_terminal``,
    True where a truncated episode ends as a terminal one for the learner (an observation that
    shows the time left), as JAX PPO always treats it. Evaluation scores the env's own rewards, with
    ``eval_env_kwargs`` where it differs from training (push-v0: the held-out test log).
    ``expected_penalty`` is deprecated (:class:`ExpectedPenalty`).
    """

    budgets: dict[str, int] = field(default_factory=dict)  # agent -> steps, DEFAULT_BUDGET otherwise
    n_envs: int = 4
    vec_normalize: dict[str, dict[str, Any]] = field(default_factory=dict)
    reward_scale: dict[str, float] = field(default_factory=dict)
    reward_offset: dict[str, float] = field(default_factory=dict)
    train_env_kwargs: dict[str, dict[str, Any]] = field(default_factory=dict)
    expected_penalty: ExpectedPenalty | None = None  # deprecated: train_env_kwargs
    sb3_ppo: dict[str, Any] = field(default_factory=dict)
    sb3_dqn: dict[str, Any] = field(default_factory=dict)
    sb3_recurrent_ppo: dict[str, Any] = field(default_factory=dict)
    rllib_ppo: dict[str, Any] = field(default_factory=dict)
    eval_env_kwargs: dict[str, Any] = field(default_factory=dict)
    truncation_is_terminal: dict[str, bool] = field(default_factory=dict)
    jax_ppo: dict[str, Any] = field(default_factory=dict)
    jax_ppo_budget: int | None = None


#: heartpole-v0: the expected cost of the heart attacks at rest, 0.124 a step, that no policy avoids.
HEARTPOLE_RESTING_ATTACK_COST = (
    HEART_ATTACK_PENALTY * DEFAULT_HEART_ATTACK_PROCLIVITY / (1.0 + math.exp(HEART_ATTACK_HYPERTENSION))
)

#: Recipes of the ids that need more (or less) than the default one: every agent's settings and
#: budget, and the evaluation's env arguments, in one ``Recipe`` per id. How each number was
#: chosen, and what else was measured, is in the id's ``docs/env-notes/<id>.md``.
RECIPES: dict[str, Recipe] = {
    # 10-step walks: solved (the heuristic's return) within a few thousand steps
    "example-v0": Recipe(budgets={"sb3-ppo": 20_000, "sb3-dqn": 20_000, "rllib-ppo": 20_000}),
    # partly observed: RecurrentPPO reaches the optimum within 100k steps; memoryless agents plateau
    "example-v1": Recipe(n_envs=8, budgets={"sb3-recurrent-ppo": 100_000}),
    "push-v0": Recipe(
        eval_env_kwargs={"split": "test"},  # trained on the training log, scored on the held-out test log
        budgets={"sb3-ppo": 300_000, "sb3-dqn": 100_000, "rllib-ppo": 200_000},
        # raw features (text length up to 5,120, hour, battery): standardized
        vec_normalize={
            "ppo": {"norm_obs": True, "norm_reward": False},
            "dqn": {"norm_obs": True, "norm_reward": False},
        },
        jax_ppo={"normalize_observations": True, "learning_rate": 1e-4},  # 3e-4 scored 50.4, 1e-4 54.0
    ),
    "push-v1": Recipe(
        eval_env_kwargs={"split": "test"},
        # SB3 PPO at JAX PPO's 300k steps (compared at equal steps); the reward model explores 100k
        budgets={"sb3-ppo": 300_000, "reward-model": 100_000},
        vec_normalize={"ppo": {"norm_obs": True, "norm_reward": False}},
        sb3_ppo={"gamma": 1.0},  # the day ends by itself and the observation shows what is left
        jax_ppo={"normalize_observations": True, "gamma": 1.0},
        jax_ppo_budget=300_000,
    ),
    "heartpole-v0": Recipe(
        budgets={"sb3-ppo": 400_000, "sb3-dqn": 150_000, "rllib-ppo": 200_000},
        # DQN: -100 attacks kept in the Huber loss's quadratic part; PPO: score changes of order 0.1 to 1
        reward_scale={"dqn": 0.01, "ppo": 1000.0},
        reward_offset={"ppo": HEARTPOLE_RESTING_ATTACK_COST},  # the cost at rest that every policy pays
        train_env_kwargs={"ppo": {"expected_cost": True}},  # the attacks' expected cost, not their draws
        vec_normalize={"ppo": {"norm_obs": True, "norm_reward": False}},  # time_elapsed grows to 2,000
        sb3_ppo={"n_steps": 1024, "batch_size": 256},  # updates of 4,096 steps average the attacks out
        sb3_dqn={"batch_size": 256, "learning_rate": 3e-4, "target_update_interval": 5_000},  # same
        jax_ppo={"num_steps": 1024, "num_minibatches": 16, "normalize_observations": True},
    ),
    "heartpole-v1": Recipe(
        budgets={"sb3-ppo": 1_200_000, "rllib-ppo": 300_000},
        # unclipped value loss of returns in the hundreds (clipped at 10, RLlib learns to stay awake)
        rllib_ppo={
            "gamma": 0.99,
            "vf_clip_param": 10_000.0,
            "vf_loss_coeff": 0.01,
            "train_batch_size_per_learner": 4_000,
            "minibatch_size": 256,
        },
        n_envs=8,
        reward_scale={"ppo": 0.1},  # rewards of -2 to +2.5 a step, returns in the hundreds
        vec_normalize={"ppo": {"norm_obs": True, "norm_reward": False}},
        # updates of 4,096 steps (about ten episodes); no discounting: 453.8 against 443.6 for 0.999
        sb3_ppo={"n_steps": 512, "batch_size": 256, "gamma": 1.0},
        truncation_is_terminal={"ppo": True},  # the observation shows the time: nothing to bootstrap
        jax_ppo={
            "num_envs": 8,
            "num_steps": 512,
            "num_minibatches": 16,
            "gamma": 1.0,
            "normalize_observations": True,
            "reward_scale": 0.01,  # rejax clips the value function's change at clip_eps in reward units
            "agent_kwargs": {"hidden_layer_sizes": (32, 32)},  # the same return as 64 x 64, faster
        },
        jax_ppo_budget=1_200_000,
    ),
    # JAX PPO: positions up to 50 standardized (raw, the greedy policy missed now and then)
    "target-v0": Recipe(budgets={"sb3-ppo": 100_000, "rllib-ppo": 100_000}, jax_ppo={"normalize_observations": True}),
    "target-v1": Recipe(
        budgets={"sb3-ppo": 2_000_000, "rllib-ppo": 60_000},  # SB3 PPO at JAX PPO's 2M steps
        vec_normalize={"ppo": {"norm_obs": True, "norm_reward": False}},
        jax_ppo={
            "normalize_observations": True,
            "num_envs": 32,  # with 8 copies a seed in three stays at pure pursuit
            "num_minibatches": 32,
            "ent_coef": 0.01,  # every seed leaves pure pursuit
            "reward_scale": 0.02,  # returns of -20 to -300: the smallest scale tried had no seed fail
        },
        jax_ppo_budget=2_000_000,
    ),
}


#: The settings chosen by ``gym-suite/analyses/tune_recipe.py``, which the recipes take over their
#: own: this file, or the one the environment variable names (:func:`read_tuned_recipes`).
TUNED_RECIPES_FILE = Path(__file__).with_name("tuned_recipes.json")
TUNED_RECIPES_VARIABLE = "GYM_SUITE_TUNED_RECIPES"
#: The agents whose settings a tuned-recipes file may hold, and the Recipe field each updates.
TUNABLE_AGENTS = {"sb3-ppo": "sb3_ppo", "sb3-dqn": "sb3_dqn", "rllib-ppo": "rllib_ppo", "jax-ppo": "jax_ppo"}
#: Environment arguments that choose the data an env replays (``gym_suite.envs.push_env.LOG_ARGUMENTS``):
#: a recipe never sets them, since the table scores on the held-out data.
DATA_ARGUMENTS = ("csv_path", "data", "split", "test_fraction", "vocabularies")
#: How deeply a tuned-recipes file may nest (``{id: {agent: {"settings": {...: {...}}}}}``).
MAX_NESTING = 32


def _real(low: float, high: float, *, open_low: bool = False, none: bool = False) -> Any:
    """A check: a real number in ``[low, high]`` (``(low, high]`` with ``open_low``; ``None`` too with ``none``)."""

    def check(value: Any) -> str | None:
        if value is None and none:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "a number"
        if not (math.isfinite(value) and (value > low if open_low else value >= low) and value <= high):
            return f"a number in {'(' if open_low else '['}{low}, {high}]"
        return None

    return check


def _whole(low: int, *, none: bool = False) -> Any:
    """A check: an integer of at least ``low`` (``None`` too with ``none``)."""

    def check(value: Any) -> str | None:
        if value is None and none:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 2**31 - 1:
            return f"an integer from {low} to {2**31 - 1:,}"
        return None

    return check


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def _network(value: Any) -> str | None:
    """``policy_kwargs``: an object whose ``net_arch``, if any, lists positive layer sizes."""
    if not isinstance(value, dict):
        return 'an object such as {"net_arch": [64, 64]}'
    arch = value.get("net_arch", [1])
    if not isinstance(arch, list) or not all(_whole(1)(size) is None for size in arch):
        return "an object whose net_arch is a list of positive layer sizes, e.g. [64, 64]"
    return None


#: The settings of JAX PPO (:func:`gym_suite.training.jax.train_ppo`; its ``SETTING_RULES`` check
#: their values when it trains).
JAX_PPO_SETTINGS = (
    "num_envs", "num_steps", "num_minibatches", "num_epochs", "learning_rate", "gamma", "gae_lambda", "clip_eps",
    "vf_coef", "ent_coef", "max_grad_norm", "normalize_observations", "normalize_rewards",
    "reward_normalization_discount", "agent_kwargs", "reward_scale", "reward_offset", "anneal_lr", "eval_episodes",
    "eval_points", "env_kwargs", "draw_params",
)  # fmt: skip
INF = math.inf
_POSITIVE, _NON_NEGATIVE, _FRACTION = _real(0.0, INF, open_low=True), _real(0.0, INF), _real(0.0, 1.0)
_POSITIVE_OR_NONE = _real(0.0, INF, open_low=True, none=True)
#: The settings a tuned-recipes file may give each agent but JAX PPO, and what each must be.
SETTING_CHECKS: dict[str, dict[str, Any]] = {
    "sb3-ppo": {
        **dict.fromkeys(("learning_rate", "clip_range", "max_grad_norm"), _POSITIVE),
        **dict.fromkeys(("n_steps", "batch_size"), _whole(2)),
        **dict.fromkeys(("gamma", "gae_lambda"), _FRACTION),
        **dict.fromkeys(("clip_range_vf", "target_kl"), _POSITIVE_OR_NONE),
        **dict.fromkeys(("ent_coef", "vf_coef"), _NON_NEGATIVE),
        "n_epochs": _whole(1),
        "normalize_advantage": _flag,
        "policy_kwargs": _network,
    },
    "sb3-dqn": {
        **dict.fromkeys(("learning_rate", "max_grad_norm"), _POSITIVE),
        **dict.fromkeys(
            ("buffer_size", "batch_size", "train_freq", "gradient_steps", "target_update_interval"), _whole(1)
        ),
        **dict.fromkeys(
            ("gamma", "exploration_fraction", "exploration_initial_eps", "exploration_final_eps"), _FRACTION
        ),
        "learning_starts": _whole(0),
        "tau": _real(0.0, 1.0, open_low=True),
        "policy_kwargs": _network,
    },
    "rllib-ppo": {
        **dict.fromkeys(("lr", "clip_param", "vf_clip_param", "kl_target"), _POSITIVE),
        **dict.fromkeys(("gamma", "lambda_"), _FRACTION),
        **dict.fromkeys(("train_batch_size_per_learner", "minibatch_size", "num_epochs"), _whole(1)),
        **dict.fromkeys(("vf_loss_coeff", "entropy_coeff", "kl_coeff"), _NON_NEGATIVE),
        "grad_clip": _POSITIVE_OR_NONE,
        "use_kl_loss": _flag,
    },
}


def _depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests lists and objects, counted up to ``limit`` + 1 (no recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_recipe_settings(
    env_id: str, agent: str, settings: Any, source: str, rules: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``settings`` of ``agent`` on ``env_id`` checked by name (``source`` named in the errors): every
    key a setting of that agent, every value of its kind and range (JAX PPO's only given its
    ``rules``, :data:`gym_suite.training.jax.SETTING_RULES`), and no environment argument that
    chooses the data (:data:`DATA_ARGUMENTS`). Raises ``ValueError``."""
    where = f"{source}: {env_id} {agent}"
    if not isinstance(settings, dict):
        raise ValueError(f"{where}: settings must be an object of settings, got {type(settings).__name__}")
    known: Any = (rules or dict.fromkeys(JAX_PPO_SETTINGS)) if agent == "jax-ppo" else SETTING_CHECKS[agent]
    unknown = sorted(str(key) for key in settings if key not in known)
    if unknown:
        raise ValueError(f"{where}: unknown setting(s) {_short(unknown)}; the settings are {sorted(known)}")
    for key, value in settings.items():
        if agent != "jax-ppo":
            wanted = known[key](value)
            if wanted is not None:
                raise ValueError(f"{where}: {key} must be {wanted}, got {_short(value)}")
        elif rules is not None:  # train_ppo's own checks, by name, where given
            try:
                known[key](key, value)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{where}: {str(exc)[:300]}") from None
    env_kwargs = settings.get("env_kwargs", {})
    if not isinstance(env_kwargs, dict):
        raise ValueError(f"{where}: env_kwargs must be an object of env arguments, got {_short(env_kwargs)}")
    chosen = sorted(str(key) for key in env_kwargs if key in DATA_ARGUMENTS)
    if chosen:
        raise ValueError(
            f"{where}: env_kwargs may not set {chosen}: they choose the data the env replays, and a recipe "
            "trains on the training data only (the table scores the held-out data)"
        )
    return dict(settings)


def check_tuned_recipes(data: Any, source: str) -> dict[str, dict[str, dict[str, Any]]]:
    """``data`` in the form of a tuned-recipes file, checked (``source`` names it in the errors):
    ``{id: {agent: {"settings": {...}, "tuned": {...}}}}``, every setting by name
    (:func:`check_recipe_settings`). Raises ``ValueError``."""
    if _depth(data, MAX_NESTING) > MAX_NESTING:
        raise ValueError(f"{source}: nested more than {MAX_NESTING} levels deep; a tuned-recipes file is not")
    if not isinstance(data, dict):
        raise ValueError(f"{source}: expected an object of ids, got {type(data).__name__}")
    checked: dict[str, dict[str, dict[str, Any]]] = {}
    for env_id, agents in data.items():
        if not isinstance(agents, dict) or not all(
            agent in TUNABLE_AGENTS and isinstance(entry, dict) and isinstance(entry.get("settings"), dict)
            for agent, entry in agents.items()
        ):
            raise ValueError(
                f"{source}: {_short(env_id)} must map agents among {list(TUNABLE_AGENTS)} "
                'to {"settings": {...}, "tuned": {...}}'
            )
        checked[env_id] = {
            agent: {**entry, "settings": check_recipe_settings(env_id, agent, entry["settings"], source)}
            for agent, entry in agents.items()
        }
    return checked


#: The tuned recipes a caller handed over (:func:`given_tuned_recipes`), or None: read the file.
_GIVEN: contextvars.ContextVar[dict[str, dict[str, dict[str, Any]]] | None] = contextvars.ContextVar(
    "gym_suite_given_tuned_recipes", default=None
)


@contextlib.contextmanager
def given_tuned_recipes(data: Any) -> Iterator[dict[str, dict[str, dict[str, Any]]]]:
    """Within the block, the recipes take ``data`` (the form of a tuned-recipes file; ``{}`` for
    none) as their tuned settings, and read no file or environment variable.

    How a task that runs on another machine (a Ray task of ``gym-suite/benchmarks/baselines.py`` or
    a Tune trial of ``tune_recipe.py``) trains with what its driver resolved: the driver reads the
    file (:func:`read_tuned_recipes`) and hands the task what it read, as an argument.

    >>> from gym_suite.training.recipes import given_tuned_recipes, sb3_settings
    >>> tuned = {"push-v1": {"sb3-ppo": {"settings": {"n_steps": 128}, "tuned": {}}}}
    >>> with given_tuned_recipes(tuned):
    ...     sb3_settings("push-v1", "ppo")["n_steps"]
    128
    """
    token = _GIVEN.set(check_tuned_recipes(copy.deepcopy(data), "the given tuned recipes"))
    try:
        yield copy.deepcopy(_GIVEN.get() or {})
    finally:
        _GIVEN.reset(token)


def tuned_recipes_path() -> Path:
    """The tuned-recipes file the recipes read (:data:`TUNED_RECIPES_FILE`, or the variable's file)."""
    named = os.environ.get(TUNED_RECIPES_VARIABLE)
    return Path(named) if named else TUNED_RECIPES_FILE


def read_tuned_recipes(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """A tuned-recipes file: ``{id: {agent: {"settings": {...}, "tuned": {how they were chosen}}}}``.

    Without ``path``: those of :func:`given_tuned_recipes` inside its block, else the file of
    :func:`tuned_recipes_path` (a missing file holds nothing). ``ValueError`` naming the file for
    one not of that form or with a setting :func:`check_recipe_settings` refuses.
    """
    if path is None and (given := _GIVEN.get()) is not None:
        return copy.deepcopy(given)
    path = tuned_recipes_path() if path is None else Path(path)
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise ValueError(f"tuned recipes {str(path)!r}: nested too deeply to be a tuned-recipes file") from None
    except (OSError, ValueError) as exc:
        raise ValueError(f"tuned recipes {str(path)!r}: not a readable JSON file ({_short(str(exc), 200)})") from None
    return check_tuned_recipes(data, f"tuned recipes {str(path)!r}")


def tuned_settings(env_id: str, agent: str) -> dict[str, Any]:
    """The tuned settings of ``agent`` on ``env_id`` (:func:`read_tuned_recipes`; ``{}`` where none)."""
    env_id = suite_id(env_id, jax=True)  # "gym_suite:<id>", "gym_suite_jax/<id>": the id's own
    return dict(read_tuned_recipes().get(env_id, {}).get(agent, {}).get("settings", {}))


def tuned_entry(env_id: str, agent: str) -> dict[str, dict[str, dict[str, Any]]]:
    """The part of the tuned recipes (:func:`read_tuned_recipes`) that ``agent`` trains with on
    ``env_id``, in the file's form (``{}`` where there is none): what a driver hands a task."""
    env_id = suite_id(env_id, jax=True)  # "gym_suite:<id>", "gym_suite_jax/<id>": the id's own
    entry = read_tuned_recipes().get(env_id, {}).get(agent)
    return {env_id: {agent: entry}} if entry is not None else {}


def recipe_for(env_id: str) -> Recipe:
    """The recipe of ``env_id`` (``Recipe()`` for an id without one), with its tuned settings
    (:func:`read_tuned_recipes`) over the recipe's own."""
    env_id = suite_id(env_id, jax=True)  # "gym_suite:<id>", "gym_suite_jax/<id>": the id's own recipe
    recipe = RECIPES.get(env_id, Recipe())
    tuned = read_tuned_recipes().get(env_id, {})
    updates = {
        TUNABLE_AGENTS[agent]: {**getattr(recipe, TUNABLE_AGENTS[agent]), **entry["settings"]}
        for agent, entry in tuned.items()
    }
    return replace(recipe, **updates) if updates else recipe


def recipe_budget(env_id: str, agent: str) -> int:
    """The recipe's training budget of ``agent`` (``"sb3-ppo"``, ...) on ``env_id``, in env steps."""
    if agent not in TRAINED_AGENTS:
        raise ValueError(f"unknown agent {agent!r}: choose from {list(TRAINED_AGENTS)}")
    return recipe_for(env_id).budgets.get(agent, DEFAULT_BUDGET)


def training_env_kwargs(env_id: str, algo: str, env_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The arguments of the env ``algo`` (``"ppo"``/``"dqn"``) trains on: the recipe's
    ``train_env_kwargs`` for it, then ``env_kwargs`` (the caller's win)."""
    return {**recipe_for(env_id).train_env_kwargs.get(algo, {}), **(env_kwargs or {})}


def sb3_settings(env_id: str, algo: str) -> dict[str, Any]:
    """The keyword arguments of the Stable-Baselines3 model for ``algo`` (``"ppo"``/``"dqn"``)."""
    recipe = recipe_for(env_id)
    if algo == "ppo":
        return {**SB3_PPO_DEFAULTS, **recipe.sb3_ppo}
    if algo == "dqn":
        return {**SB3_DQN_DEFAULTS, **recipe.sb3_dqn}
    raise ValueError(f"unknown algorithm {algo!r}: choose 'ppo' or 'dqn'")


def recurrent_ppo_settings(env_id: str) -> dict[str, Any]:
    """The keyword arguments of the ``RecurrentPPO`` model of ``env_id``: defaults, then the recipe's."""
    return {**SB3_RECURRENT_PPO_DEFAULTS, **recipe_for(env_id).sb3_recurrent_ppo}


def rllib_ppo_settings(env_id: str, **overrides: Any) -> dict[str, Any]:
    """The ``PPOConfig.training`` keywords of ``env_id``: defaults, the recipe, then ``overrides``."""
    return {**RLLIB_PPO_DEFAULTS, **recipe_for(env_id).rllib_ppo, **overrides}


def settings_digest(resolved: Any) -> str:
    """A short digest (16 hex digits of SHA-256) of ``resolved`` (plain JSON values, as
    :func:`resolved_training` gives): equal for equal settings, whatever their keys' order; other
    values by their :func:`stable_repr`."""
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), default=stable_repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def stable_repr(value: Any) -> str:
    """``repr(value)`` where it is the same in every process: a ``TypeError`` for one that names a
    memory address (``<function <lambda> at 0x7f...>``), whose settings cannot key a run."""
    text = repr(value)
    if " at 0x" in text:
        raise TypeError(
            f"settings of a run must be plain values (numbers, strings, lists, dicts), got {_short(value)}: its "
            "repr names a memory address, another in every process (a function, as train_ppo's draw_params, "
            "keys no run)"
        )
    return text
