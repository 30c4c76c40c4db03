"""PPO compiled end to end on the JAX environments (rejax), with greedy policies for the numpy envs.

Needs the ``jax`` extra (``pip install "gym-suite[jax]"``: JAX, gymnax, rejax); :func:`train_ppo`
imports them. ``result = train_ppo("heartpole-v1", num_seeds=4)`` trains on the recipe's settings
and budget; ``result.policies[0]`` acts (obs -> action) on the numpy env for
:func:`gym_suite.evaluate`; ``result.steps, result.returns`` is the curve, seeds x evaluations.

Every seed trains compiled (rollouts on :func:`gym_suite.jax.make`'s gymnax env, advantages,
updates, evaluations), ``num_seeds`` seeds vmapped in one run: three programs (the start, the
updates between two evaluations, an evaluation) that a Python loop calls in turn, reporting the
progress between them. None calls back into Python, so JAX's persistent compilation cache
(:mod:`gym_suite.jax`; ``GYM_SUITE_JAX_CACHE``) keeps them for a later call, in a new process too.

An id's settings are its recipe's ``jax_ppo`` over :data:`PPO_DEFAULTS` (Stable-Baselines3's PPO
defaults), with the recipe's training env arguments and reward transforms; the curve and the
evaluation score the env's own rewards. Episodes that end by the step limit or the rules' clock
are terminal for the learner (rejax does not bootstrap past a truncation). The policies act on
``gymnasium.spaces.flatten`` of the numpy env's observations (standardized with the statistics
frozen at the end of training) with the greedy action, in numpy; they pickle.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces

if TYPE_CHECKING:
    import numpy.typing as npt

from gym_suite._registry import ENV_IDS, suite_id
from gym_suite._seeds import seed_keys
from gym_suite.envs.checks import check_env_kwargs, shown, wrong_arity
from gym_suite.training import check_flag
from gym_suite.training.recipes import (
    RECIPES,
    recipe_budget,
    recipe_for,
    training_env_kwargs,
    tuned_recipes_path,
    tuned_settings,
)
from gym_suite.training.wrappers import acts_in_unit_box, from_unit_box

__all__ = [
    "PPO_BUDGETS",
    "PPO_DEFAULTS",
    "PPO_RECIPES",
    "JaxPPOPolicy",
    "JaxTrainingResult",
    "ppo_budget",
    "ppo_settings",
    "train_ppo",
]

#: rejax PPO settings for every id unless its recipe says otherwise: Stable-Baselines3's PPO defaults
#: (4 copies x 256 steps, 16 minibatches of 64, 10 epochs, gradient norm clipped at 0.5, 64 x 64 tanh).
PPO_DEFAULTS: dict[str, Any] = {
    "num_envs": 4,
    "num_steps": 256,
    "num_minibatches": 16,
    "num_epochs": 10,
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_eps": 0.2,
    "vf_coef": 0.5,
    "ent_coef": 0.0,
    "max_grad_norm": 0.5,
    "normalize_observations": False,
    "agent_kwargs": {"hidden_layer_sizes": (64, 64), "activation": "tanh"},
}

#: Views of the recipes' ``jax_ppo`` and ``jax_ppo_budget`` (:data:`gym_suite.training.recipes.RECIPES`).
PPO_RECIPES: dict[str, dict[str, Any]] = {env_id: r.jax_ppo for env_id, r in RECIPES.items() if r.jax_ppo}
PPO_BUDGETS: dict[str, int] = {
    env_id: r.jax_ppo_budget for env_id, r in RECIPES.items() if r.jax_ppo_budget is not None
}

#: Keywords of :func:`train_ppo` that are not rejax's: training reward transforms, the curve's
#: evaluations, the env's arguments and ``draw_params``.
OWN_SETTINGS = (
    "reward_scale", "reward_offset", "anneal_lr", "eval_episodes", "eval_points", "env_kwargs", "draw_params",
)  # fmt: skip
#: rejax ``PPO`` keywords that :func:`train_ppo` accepts as overrides.
REJAX_SETTINGS = tuple(PPO_DEFAULTS) + ("normalize_rewards", "reward_normalization_discount")
#: Defaults of the rejax settings not in :data:`PPO_DEFAULTS` (rejax's own).
REJAX_DEFAULTS: dict[str, Any] = {"normalize_rewards": False, "reward_normalization_discount": 0.99}
ACTIVATIONS = ("tanh", "relu", "swish", "silu", "elu", "gelu")


def ppo_budget(env_id: str) -> int:
    """The env steps per seed :func:`train_ppo` trains ``env_id`` for by default: its recipe's
    ``jax_ppo_budget``, or the id's SB3 PPO budget."""
    budget = recipe_for(env_id).jax_ppo_budget
    return recipe_budget(env_id, "sb3-ppo") if budget is None else budget


def ppo_settings(env_id: str, **overrides: Any) -> dict[str, Any]:
    """The settings :func:`train_ppo` uses for ``env_id``: defaults, the id's recipe, ``overrides``,
    each checked by :data:`SETTING_RULES` without importing JAX (``TypeError`` for a wrong kind or
    an unknown setting, ``ValueError`` for a value out of range)."""
    env_id = suite_id(env_id, jax=True)  # "gym_suite:<id>", "gym_suite_jax/<id>": the id's own
    if "expected_penalty" in overrides:
        raise TypeError(
            "train_ppo: expected_penalty is no longer a setting: the env charges a heart attack's expected cost "
            "itself, env_kwargs={'expected_cost': True} (heartpole-v0; heartpole-v1's default)"
        )
    unknown = sorted((key for key in overrides if key not in SETTING_RULES), key=str)
    if unknown:
        raise TypeError(f"train_ppo: unknown setting(s) {shown(unknown)}; the settings are {sorted(SETTING_RULES)}")
    recipe = recipe_for(env_id)
    tuned = tuned_settings(env_id, "jax-ppo")  # gym-suite/analyses/tune_recipe.py's choice, over the recipe
    unknown = sorted((key for key in tuned if key not in SETTING_RULES), key=str)
    if unknown:
        raise TypeError(
            f"train_ppo: unknown setting(s) {shown(unknown)} for {env_id} in the tuned recipes "
            f"{str(tuned_recipes_path())!r}; the settings are {sorted(SETTING_RULES)}"
        )
    own = recipe.jax_ppo  # the recipe's, the tuned settings over them (recipe_for)
    settings: dict[str, Any] = {
        **PPO_DEFAULTS,
        **REJAX_DEFAULTS,
        "reward_scale": recipe.reward_scale.get("ppo", 1.0),
        "reward_offset": recipe.reward_offset.get("ppo", 0.0),
        "anneal_lr": False,
        "eval_episodes": 32,
        "eval_points": 20,
        "env_kwargs": {},
        "draw_params": None,
        **own,
        "agent_kwargs": {**PPO_DEFAULTS["agent_kwargs"], **own.get("agent_kwargs", {})},
    }
    if "agent_kwargs" in overrides:
        agent = overrides["agent_kwargs"]
        if not isinstance(agent, Mapping):
            raise TypeError(
                f"train_ppo: agent_kwargs must be a dict with the keys {list(AGENT_SETTINGS)}, got {shown(agent)}"
            )
        odd = sorted((key for key in agent if key not in AGENT_SETTINGS), key=str)
        if odd:
            raise TypeError(f"train_ppo: unknown agent_kwargs key(s) {shown(odd)}; the keys are {list(AGENT_SETTINGS)}")
        overrides = {**overrides, "agent_kwargs": {**settings["agent_kwargs"], **agent}}
    settings.update(overrides)
    for key, check in SETTING_RULES.items():
        settings[key] = check(key, settings[key])
    batch = f"train_ppo: num_envs x num_steps ({settings['num_envs']} x {settings['num_steps']})"
    if settings["num_envs"] * settings["num_steps"] > MAX_STEPS:
        raise ValueError(f"{batch} must be at most {MAX_STEPS:,} (the step counter is a 32-bit integer)")
    if (settings["num_envs"] * settings["num_steps"]) % settings["num_minibatches"]:
        raise ValueError(f"{batch} must be a multiple of num_minibatches ({settings['num_minibatches']})")
    return settings


#: The largest step count (and integer setting): rejax counts the steps in a 32-bit integer.
MAX_STEPS = 2**31 - 1
#: The most seeds one call trains (vmapped in one run; more: several calls).
MAX_SEEDS = 4096
#: The widest hidden layer of ``agent_kwargs["hidden_layer_sizes"]``.
MAX_LAYER_SIZE = 65_536
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _integer(least: int, most: int = MAX_STEPS) -> Callable[[str, Any], int]:
    def check(key: str, value: Any) -> int:
        if not _is_int(value):
            raise TypeError(f"train_ppo: {key} must be an integer in {least}..{most:,}, got {shown(value)}")
        if not least <= value <= most:
            raise ValueError(f"train_ppo: {key} must be an integer in {least}..{most:,}, got {shown(value)}")
        return int(value)

    return check


def _real(
    low: float, high: float, *, open_low: bool = False, open_high: bool = False, nonzero: bool = False
) -> Callable[[str, Any], float]:
    """A real number in the interval (finite unless ``high`` is infinite and closed); float32 holds it."""
    bounds = f"a number in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
    what = ("a finite number" if math.isinf(low) and math.isinf(high) else bounds) + (" other than 0" * nonzero)

    def check(key: str, value: Any) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"train_ppo: {key} must be {what}, got {shown(value)}")
        try:
            number = float(value)
        except OverflowError:  # an integer past the largest float
            raise ValueError(
                f"train_ppo: {key} must be {what}, got an integer of magnitude at least "
                f"2**{abs(int(value)).bit_length() - 1}"
            ) from None
        inside = (
            (low < number if open_low else low <= number)
            and (number < high if open_high else number <= high)
            and (math.isfinite(number) or number == high == math.inf)
            and (abs(number) <= _FLOAT32_MAX or math.isinf(number))
            and not (nonzero and number == 0)
        )
        if not inside:  # NaN too
            big = math.isfinite(number) and abs(number) > _FLOAT32_MAX
            tail = f" within float32's range (magnitude at most {_FLOAT32_MAX:.4g})" if big else ""
            raise ValueError(f"train_ppo: {key} must be {what}{tail}, got {shown(value)}")
        return number

    return check


def _flag(key: str, value: Any) -> bool:
    return bool(check_flag("train_ppo", key, value))


def _agent(key: str, value: Any) -> dict[str, Any]:
    """``agent_kwargs``, merged over the defaults: ``hidden_layer_sizes`` and ``activation``."""
    sizes, activation = value["hidden_layer_sizes"], value["activation"]
    what = f"a non-empty tuple of layer widths (integers in 1..{MAX_LAYER_SIZE:,})"
    if not isinstance(sizes, (tuple, list)) or not sizes:
        kind = ValueError if isinstance(sizes, (tuple, list)) else TypeError
    else:  # the first bad width decides the kind
        bad = next((w for w in sizes if not (_is_int(w) and 1 <= w <= MAX_LAYER_SIZE)), None)
        kind = None if bad is None else ValueError if _is_int(bad) else TypeError
    if kind is not None:
        raise kind(f"train_ppo: agent_kwargs hidden_layer_sizes must be {what}, got {shown(sizes)}")
    if activation not in ACTIVATIONS:
        kind = ValueError if isinstance(activation, str) else TypeError
        raise kind(f"train_ppo: agent_kwargs activation must be one of {list(ACTIVATIONS)}, got {shown(activation)}")
    return {"hidden_layer_sizes": tuple(int(w) for w in sizes), "activation": activation}


def _env_kwargs(key: str, value: Any) -> dict[str, Any]:
    return check_env_kwargs("train_ppo: ", value) or {}


def _draw(key: str, value: Any) -> Callable[[Any, Any], Any] | None:
    """``draw_params``: ``None`` (every episode on the id's params) or a function ``(key, params) -> params``."""
    if value is None:
        return value
    takes = wrong_arity(value, 2)  # called as draw(key, params)
    if takes is not None:
        raise TypeError(
            f"train_ppo: {key} must be a function (key, params) -> params drawing each training episode's "
            f"params (gym_suite.jax_wrappers.DrawnParams), or None, got {shown(value)}{takes}"
        )
    return value


#: Every setting :func:`ppo_settings` takes, with its check: rejax's PPO keywords
#: (:data:`REJAX_SETTINGS`) and :data:`OWN_SETTINGS`.
SETTING_RULES: dict[str, Callable[[str, Any], Any]] = {
    "num_envs": _integer(1),
    "num_steps": _integer(1),
    "num_minibatches": _integer(1),
    "num_epochs": _integer(1),
    "learning_rate": _real(0.0, math.inf, open_low=True, open_high=True),
    "gamma": _real(0.0, 1.0, open_low=True),
    "gae_lambda": _real(0.0, 1.0),
    "clip_eps": _real(0.0, math.inf, open_low=True, open_high=True),
    "vf_coef": _real(0.0, math.inf, open_high=True),
    "ent_coef": _real(0.0, math.inf, open_high=True),
    "max_grad_norm": _real(0.0, math.inf, open_low=True),  # inf: no clipping
    "normalize_observations": _flag,
    "normalize_rewards": _flag,
    "reward_normalization_discount": _real(0.0, 1.0, open_low=True),
    "agent_kwargs": _agent,
    "reward_scale": _real(-math.inf, math.inf, open_low=True, open_high=True, nonzero=True),
    "reward_offset": _real(-math.inf, math.inf, open_low=True, open_high=True),
    "anneal_lr": _flag,
    "eval_episodes": _integer(0),
    "eval_points": _integer(1),
    "env_kwargs": _env_kwargs,
    "draw_params": _draw,
}
#: The keys of ``agent_kwargs`` (rejax's networks): the hidden layers' widths and their activation.
AGENT_SETTINGS = ("hidden_layer_sizes", "activation")


#: The raw JAX keys of seeds ``seed``, ``seed + 1``, ... (the ``gym_suite_jax/`` envs' too).
_seed_keys: Callable[[int, int], npt.NDArray[np.uint32]] = seed_keys


_ACTIVATIONS: dict[str, Callable[[Any], Any]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0),
    "swish": lambda x: x / (1 + np.exp(-x)),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),  # flax's: tanh approximation
}


def _activation(name: str):
    if name not in _ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}: one of {list(ACTIVATIONS)}")
    return _ACTIVATIONS[name]


class JaxPPOPolicy:
    """A greedy policy trained by :func:`train_ppo`: ``observation -> action`` on the numpy env, and
    ``act_batch`` for a list of observations (one forward pass). Runs in numpy; pickles. It never
    checks observations against ``observation_space``'s bounds, so it acts on the env made with
    other arguments of the same shapes too (target-v1 at another ``target_speed``)."""

    name = "JAX PPO"

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        layers: list[tuple],
        head: tuple,
        activation: str,
        obs_mean: np.ndarray | None = None,
        obs_var: np.ndarray | None = None,
    ):
        self.observation_space = observation_space
        self.action_space = action_space
        self.layers = [(np.asarray(w), np.asarray(b)) for w, b in layers]
        self.head = (np.asarray(head[0]), np.asarray(head[1]))
        self.activation = activation
        self.obs_mean = None if obs_mean is None else np.asarray(obs_mean)
        self.obs_std = None if obs_var is None else np.sqrt(np.asarray(obs_var) + 1e-8)
        self._f = _activation(activation)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_f")
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._f = _activation(self.activation)

    def act_batch(self, observations: list) -> list:
        x = np.stack([spaces.flatten(self.observation_space, o) for o in observations]).astype(np.float32)
        if self.obs_mean is not None:
            x = (x - self.obs_mean) / self.obs_std
        for w, b in self.layers:
            x = self._f(x @ w + b)
        out = x @ self.head[0] + self.head[1]
        space = self.action_space
        if isinstance(space, spaces.Discrete):
            return [int(a) + int(space.start) for a in np.argmax(out, axis=1)]
        if acts_in_unit_box(space):  # trained in [-1, 1], as Stable-Baselines3 is
            return [from_unit_box(a.reshape(space.shape), space).astype(space.dtype) for a in out]
        return [np.clip(a.reshape(space.shape), space.low, space.high).astype(space.dtype) for a in out]

    def __call__(self, observation):
        return self.act_batch([observation])[0]

    def __repr__(self) -> str:
        sizes = [w.shape[1] for w, _ in self.layers]
        return f"JaxPPOPolicy(hidden={sizes}, activation={self.activation!r}, action_space={self.action_space})"


@dataclass
class JaxTrainingResult:
    """What :func:`train_ppo` returns: one greedy policy per seed and the curve.

    ``steps`` (each seed's env steps at each evaluation, 0 first) and ``returns`` (``num_seeds x
    len(steps)``: the mean return of ``eval_episodes`` greedy episodes on the JAX env) make the
    curve; ``curve_seconds`` the wall time of the compiled run at each evaluation.
    ``compile_seconds`` covers tracing, lowering and compiling (or loading ``cached_programs`` of
    the three programs from the cache). ``checkpoints[evaluation][seed]``: with
    ``keep_checkpoints=True``. ``timesteps``: the budget rounded up to whole updates.
    """

    env_id: str
    seeds: list[int]
    policies: list[JaxPPOPolicy]
    steps: np.ndarray
    returns: np.ndarray
    timesteps: int
    compile_seconds: float
    train_seconds: float
    settings: dict[str, Any] = field(repr=False, default_factory=dict)
    curve_seconds: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    checkpoints: list[list[JaxPPOPolicy]] | None = field(repr=False, default=None)
    cached_programs: int = 0

    @property
    def seconds(self) -> float:
        return self.compile_seconds + self.train_seconds

    @property
    def policy(self) -> JaxPPOPolicy:
        """The first seed's policy."""
        return self.policies[0]


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _id_and_seed(env_id: Any, seed: Any) -> tuple[str, int]:
    """``env_id`` as the id's own (``gym_suite:<id>``, ``gym_suite_jax/<id>`` taken) and ``seed``, checked."""
    env_id = suite_id(env_id, jax=True)
    if not isinstance(env_id, str) or env_id not in ENV_IDS:
        kind = ValueError if isinstance(env_id, str) else TypeError
        raise kind(f"train_ppo: env_id must be one of {list(ENV_IDS)}, got {shown(env_id)}")
    if not _is_int(seed) or seed < 0:
        kind = ValueError if _is_int(seed) else TypeError
        raise kind(f"train_ppo: seed must be a non-negative integer, got {shown(seed)}")
    return env_id, int(seed)


def _schedule(total: int, iteration: int, points: int) -> tuple[int, int]:
    """``(eval_freq, evaluations)``: whole updates between evaluations, about ``points`` of them,
    chosen so that the budget is rounded up as little as it can be (to whole updates first)."""
    iterations = max(1, -(-total // iteration))
    target = max(1, -(-iterations // points))
    candidates = range(max(1, target // 2), max(1, 2 * target) + 1)
    per_eval = min(candidates, key=lambda k: (k * -(-iterations // k) - iterations, abs(k - target)))
    return per_eval * iteration, -(-iterations // per_eval)


def _make_adapters(env_id: str, settings: dict[str, Any]):
    """The gymnax envs rejax trains and evaluates on, and their params; with ``draw_params`` the
    training env draws its params below the adapters (:func:`_drawn_env`), the evaluation env never."""
    from gymnax.environments import spaces as gymnax_spaces

    import gym_suite.jax as gsj
    from gym_suite.jax_wrappers import FiveValueStep, OneHotObservation, RescaleAction, TransformReward

    def adapt(env, scale=1.0, offset=0.0):
        """rejax 0.1.3 takes five values from ``step`` (the end is terminal for the learner); a
        ``Discrete`` observation one-hot; a bounded float ``Box`` action in ``[-1, 1]``; the
        training rewards ``(reward + offset) * scale``."""
        if isinstance(env.observation_space(env.default_params), gymnax_spaces.Discrete):
            env = OneHotObservation(env)
        if acts_in_unit_box(env.definition.spaces(env.definition_params)[1]):
            env = RescaleAction(env)
        if scale != 1.0 or offset:
            env = TransformReward(env, scale, offset)
        return FiveValueStep(env)

    train_kwargs = training_env_kwargs(env_id, "ppo", settings["env_kwargs"])
    env, params = gsj.make(env_id, **train_kwargs)
    draw = settings["draw_params"]
    drawn = env if draw is None else _drawn_env(env_id, env, params, draw)
    train_env = adapt(drawn, settings["reward_scale"], settings["reward_offset"])
    eval_kwargs = {**recipe_for(env_id).eval_env_kwargs, **settings["env_kwargs"]}
    eval_base, eval_params = gsj.make(env_id, **eval_kwargs) if eval_kwargs != train_kwargs else (env, params)
    return train_env, params, adapt(eval_base), eval_params


#: How many keys :func:`_drawn_env` tries ``draw_params`` on before anything compiles.
DRAW_PROBES = 8


def _drawn_env(env_id: str, env: Any, params: Any, draw: Callable[[Any, Any], Any]) -> Any:
    """``DrawnParams(env, draw)``, once ``draw`` has been tried on the keys ``jax.random.PRNGKey(i)``,
    ``i < DRAW_PROBES``: each draw must be params of the class and shapes of ``params``
    (:func:`gym_suite.jax_wrappers.check_drawn`) with values the env takes (its own checks)."""
    import jax
    import jax.numpy as jnp

    from gym_suite.jax_wrappers import DrawnParams, check_drawn

    for i in range(DRAW_PROBES):
        drawn = jax.tree.map(jnp.asarray, draw(jax.random.PRNGKey(i), params))
        check_drawn("train_ppo: draw_params", params, drawn)
        try:
            env.check_params("reset", drawn)
        except (TypeError, ValueError) as exc:
            kind = ValueError if isinstance(exc, ValueError) else TypeError
            raise kind(
                f"train_ppo: draw_params(jax.random.PRNGKey({i}), params) drew params {env_id} refuses: {exc}"
            ) from None
    return DrawnParams(env, draw)


def _cache_hit_counter():
    """A list whose length counts the programs JAX loaded from its persistent compilation cache
    (a listener of JAX's ``/jax/compilation_cache/cache_hits`` event, registered once)."""
    if not _CACHE_HITS:
        import jax.monitoring

        def listen(event: str, **kwargs: Any) -> None:
            if event == "/jax/compilation_cache/cache_hits":
                _CACHE_HITS[0].append(event)

        _CACHE_HITS.append([])
        jax.monitoring.register_event_listener(listen)
    return _CACHE_HITS[0]


# [the list of cache hits] once a listener is registered
_CACHE_HITS: list[list[str]] = []


def train_ppo(
    env_id: str,
    *,
    seed: int = 0,
    num_seeds: int = 1,
    total_timesteps: int | None = None,
    progress: bool = True,
    keep_checkpoints: bool = False,
    **overrides: Any,
) -> JaxTrainingResult:
    """Train rejax's PPO on ``env_id``'s JAX env for ``num_seeds`` seeds, compiled and vmapped.

    ``env_id``: a suite id, ``gym_suite:<id>`` or ``gym_suite_jax/<id>``. ``seed``: seed ``seed +
    i`` trains the ``i``-th policy. ``total_timesteps``: env steps per seed (default
    :func:`ppo_budget`), rounded up to whole updates of ``num_envs x num_steps``. ``overrides``
    update the settings (:func:`ppo_settings`): rejax's ``PPO`` keywords and :data:`OWN_SETTINGS`
    (``eval_episodes=0``: no curve, the returns are NaN). ``keep_checkpoints``: also keep the greedy
    policies at every evaluation point (``result.checkpoints``). ``progress``: a bar or progress
    lines on standard error.

    ``draw_params``: domain randomization, a function ``(key, params) -> params`` that each
    training episode draws its params with (:class:`gym_suite.jax_wrappers.DrawnParams`), e.g.::

        draw_params=lambda key, p: p.replace(target_speed=jax.random.uniform(key, minval=0.5, maxval=2.0))

    It is tried on a few keys before anything compiles (:func:`_drawn_env`); inside the compiled
    run the draws cannot be checked. The curve's evaluations play the id's params, undrawn.

    Every argument and setting is checked by name before JAX is imported: ``TypeError`` for a
    value of the wrong kind or an unknown setting, ``ValueError`` for one out of range.
    """
    env_id, seed = _id_and_seed(env_id, seed)
    num_seeds = _integer(1, MAX_SEEDS)("num_seeds", num_seeds)
    total_timesteps = _integer(1)("total_timesteps", ppo_budget(env_id) if total_timesteps is None else total_timesteps)
    progress = _flag("progress", progress)
    keep_checkpoints = _flag("keep_checkpoints", keep_checkpoints)
    settings = ppo_settings(env_id, **overrides)
    iteration = settings["num_envs"] * settings["num_steps"]
    eval_freq, evaluations = _schedule(total_timesteps, iteration, settings["eval_points"])
    timesteps = eval_freq * evaluations
    if timesteps > MAX_STEPS:
        raise ValueError(
            f"train_ppo: total_timesteps={total_timesteps:,} rounds up to {timesteps:,} steps (whole updates of "
            f"num_envs x num_steps = {iteration:,}), past {MAX_STEPS:,} (the step counter is a 32-bit integer)"
        )
    with gymnasium.make(env_id, **settings["env_kwargs"]) as probe:  # env_kwargs checked with the env's messages
        obs_space, act_space = probe.observation_space, probe.action_space  # the policies' spaces

    import jax
    import jax.numpy as jnp
    import rejax
    from rejax.evaluate import evaluate as rejax_evaluate

    from gym_suite.progress import Progress, duration

    train_env, params, eval_env, eval_params = _make_adapters(env_id, settings)
    rejax_config = {key: settings[key] for key in REJAX_SETTINGS if key in settings}
    rejax_config["agent_kwargs"] = dict(rejax_config["agent_kwargs"])
    if settings["anneal_lr"]:  # linearly to 0 over the gradient steps of the budget (each network's own)
        import optax

        updates = (timesteps // iteration) * settings["num_epochs"] * settings["num_minibatches"]
        rejax_config["learning_rate"] = optax.linear_schedule(settings["learning_rate"], 0.0, updates)
    algo = rejax.PPO.create(
        env=train_env, env_params=params, total_timesteps=timesteps, eval_freq=eval_freq, **rejax_config
    )
    episodes = int(settings["eval_episodes"])

    def greedy_act(algo, ts):
        def act(obs, rng):
            if algo.normalize_observations:
                obs = algo.normalize_obs(ts.obs_rms_state, obs)
            dist = algo.actor.apply(ts.actor_ts.params, jnp.expand_dims(obs, 0), method="_action_dist")
            if algo.discrete:
                return jnp.squeeze(jnp.argmax(dist.logits, axis=-1))
            space = algo.env.action_space(algo.env_params)
            return jnp.clip(jnp.squeeze(dist.mean(), 0), space.low, space.high)

        return act

    def evaluate(ts):
        """The curve's point at ``ts`` (and the checkpoint): rejax's evaluation, on ``ts.rng``."""
        if episodes:
            lengths, returns = rejax_evaluate(
                greedy_act(algo, ts), ts.rng, eval_env, eval_params, episodes, eval_params.max_steps_in_episode
            )
            mean = returns.mean()
        else:
            mean = jnp.float32(jnp.nan)
        if not keep_checkpoints:
            return mean
        rms = (ts.obs_rms_state.mean, ts.obs_rms_state.var) if algo.normalize_observations else ()
        return mean, ts.actor_ts.params, rms

    per_eval = eval_freq // iteration

    def train_chunk(ts):
        """``eval_freq`` steps: the updates between two evaluations, as rejax's ``train`` runs them."""
        return jax.lax.fori_loop(0, per_eval, lambda _, ts: algo.train_iteration(ts), ts)

    # rejax's train (init_state, evaluate, then evaluations x (train eval_freq steps, evaluate)) as
    # three compiled programs the loop below calls in turn (the module's docstring says why)
    keys = jnp.asarray(_seed_keys(seed, num_seeds))
    label = f"JAX PPO {env_id}"
    stream = sys.stderr
    if progress:
        print(f"{label}: compiling {num_seeds} seed(s) x {timesteps:,} steps ...", file=stream, flush=True)
    hits = _cache_hit_counter()
    cached_programs = 0

    def compile_(function, *args):
        nonlocal cached_programs
        before = len(hits)
        compiled = jax.jit(jax.vmap(function)).lower(*args).compile()
        cached_programs += len(hits) > before
        return compiled

    start = time.perf_counter()
    init = compile_(algo.init_state, keys)
    # the start's state: the other two programs take it (its pytree class is made anew each time
    # init_state is traced, so they are lowered on this one)
    first = init(keys)
    train = compile_(train_chunk, first)
    measure = compile_(evaluate, first)
    compile_seconds = time.perf_counter() - start
    bar = Progress(timesteps, label, "step", file=stream, disable=not progress)
    try:
        start = time.perf_counter()
        ts = first
        points = [measure(ts)]
        reached = [time.perf_counter()]
        for _ in range(evaluations):
            ts = train(ts)
            points.append(jax.block_until_ready(measure(ts)))
            reached.append(time.perf_counter())
            bar.update(eval_freq)
        train_seconds = time.perf_counter() - start
    finally:
        bar.close()
    curve = jax.tree.map(lambda *xs: np.stack(xs, axis=1), *jax.device_get(points))  # seeds x evaluations
    if progress:
        loaded = f", {cached_programs} of 3 programs from the compilation cache" if cached_programs else ""
        print(
            f"{label}: {num_seeds} seed(s) x {timesteps:,} steps in {duration(compile_seconds + train_seconds)} "
            f"({compile_seconds:.1f} s compiling{loaded}, {train_seconds:.1f} s training)",
            file=stream,
            flush=True,
        )

    activation = settings["agent_kwargs"]["activation"]

    def policy(actor_params, rms, index) -> JaxPPOPolicy:
        actor = jax.tree.map(lambda x: np.array(x[index]), actor_params)["params"]
        features = actor["features"]
        layers = [(features[f"Dense_{k}"]["kernel"], features[f"Dense_{k}"]["bias"]) for k in range(len(features))]
        head = actor["action_logits"] if "action_logits" in actor else actor["action_mean"]
        mean, var = (np.asarray(rms[0][index]), np.asarray(rms[1][index])) if rms else (None, None)
        return JaxPPOPolicy(obs_space, act_space, layers, (head["kernel"], head["bias"]), activation, mean, var)

    # to numpy once (indexing a JAX array is a JAX operation, compiled for each shape)
    final_rms = (ts.obs_rms_state.mean, ts.obs_rms_state.var) if algo.normalize_observations else ()
    final_params, final_rms = jax.device_get((ts.actor_ts.params, final_rms))
    policies = [policy(final_params, final_rms, i) for i in range(num_seeds)]
    checkpoints = None
    if keep_checkpoints:
        curve, actor_params, rms = curve
        checkpoints = [[policy(actor_params, rms, (i, e)) for i in range(num_seeds)] for e in range(np.shape(curve)[1])]
    returns = np.asarray(curve, dtype=float).reshape(num_seeds, -1)
    steps = np.arange(returns.shape[1]) * eval_freq
    curve_seconds = np.array(reached) - start
    return JaxTrainingResult(
        env_id,
        [seed + i for i in range(num_seeds)],
        policies,
        steps,
        returns,
        timesteps,
        compile_seconds,
        train_seconds,
        settings,
        curve_seconds,
        checkpoints,
        cached_programs,
    )
