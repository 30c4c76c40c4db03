"""The contributor's path, proved: a tiny environment defined the way every gym-suite environment
is (a parameters dataclass, a state, the rules as one Definition) and registered the way another
package registers its own (``gym_suite.register``) runs through every shell, and what every shell
promises holds for it (seeding, ResetNeeded, next-step autoreset with the info keys of a
SyncVectorEnv on every step, argument checks). ``tests/test_conformance.py`` runs the registry's
contract on it too."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, NamedTuple

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from hypothesis import given
from hypothesis import strategies as st

import gym_suite
from gym_suite.envs.checks import Argument
from gym_suite.envs.definition import NUMPY, SCALAR, Definition, state_maker

#: The most heads an episode may take: bounded, as every argument is (check_definition tries 10**1000).
MAX_FLIPS = 1000


@dataclasses.dataclass(frozen=True)
class CoinParams:
    flips: int = 3  # the episode ends after this many heads


class CoinState(NamedTuple):
    heads: Any
    last: Any  # the last flip: 1 heads, 0 tails, -1 none yet


class Coin(Definition[CoinState, CoinParams]):
    """Guess the next flip of a fair coin: +1 when right; the episode ends after ``flips`` heads."""

    name = "coin"
    State = CoinState
    arguments = (Argument("flips", int, "heads that end the episode", low=1, high=MAX_FLIPS),)  # declared once
    start_draws = 1
    step_draws = 1

    def spaces(self, params):
        return spaces.Discrete(params.flips + 1), spaces.Discrete(2)

    def initial(self, u, params, ops):
        zero = ops.floor_int(0.0 * u[0])  # an integer zero of the backend's kind (the draw is not used)
        return CoinState(zero, zero - 1)

    def transition(self, state, action, u, params, ops):
        flip = ops.where(u[0] < 0.5, 1, 0)
        return CoinState(state.heads + flip, flip)

    def observation(self, state, params, ops):
        return ops.copy(state.heads)

    def reward(self, state, action, next_state, params, ops):
        return ops.where(action == next_state.last, 1.0, -1.0)

    def terminal(self, state, params, ops):
        return state.heads >= params.flips

    def info(self, state, action, next_state, params, ops):
        if state is None:  # a start
            return {"heads": ops.copy(next_state.heads)}
        return {"flip": ops.copy(next_state.last)}

    def heuristic(self, observation, params, ops):
        return 1

    def render(self, state, params, mode):
        if mode == "ansi":
            return f"heads {state.heads}, last {state.last}\n"
        frame = np.zeros((1, params.flips, 3), dtype=np.uint8)  # a strip: one white cell per head
        frame[0, : state.heads] = 255
        return frame


COIN = Coin()
V0 = CoinParams()  # the version: a parameter set
COIN_ID = "gym_suite_test/coin-v0"

COIN_MANUAL = """Guess the next flip of a fair coin: +1 when right, -1 when wrong.

## Arguments

| Argument | Default | Meaning |
|---|---|---|
| `flips` | 3 | the episode ends after this many heads, an integer in 1..1000 |
| `render_mode` | None | `"ansi"`, `"human"` (prints the text) or `"rgb_array"` |
"""

#: Registered as another package registers its own: the definition and parameters themselves,
#: under an id of its own namespace; the classes come from gym_suite.envs.
COIN_SPEC = gym_suite.register(
    COIN_ID,
    definition=COIN,
    params=V0,
    max_episode_steps=20,
    summary="Guess the next flip of a fair coin.",
    manual=f"{__name__}:COIN_MANUAL",
)
from gym_suite.envs import CoinEnv, CoinVectorEnv  # noqa: E402  (made from the row just registered)


def test_the_tiny_definition_is_a_gymnasium_env():
    from gymnasium.utils.env_checker import check_env

    check_env(CoinEnv(flips=2), skip_render_check=True)
    env = gymnasium.make(COIN_ID, flips=2)
    obs, info = env.reset(seed=3)
    assert obs == 0 and info == {"heads": 0}
    with pytest.raises(TypeError, match="flips"):
        CoinEnv(flips=1.5)
    with pytest.raises(TypeError, match="allowed arguments are \\['flips', 'render_mode'\\]"):
        CoinEnv(flip=2)
    assert (
        str(CoinEnv.__signature__)
        == "(env_config: 'Mapping[str, Any] | None' = None, *, flips: 'int' = 3, render_mode: 'str | None' = None)"
    )


def test_step_after_the_end_needs_a_reset():
    env = CoinEnv(flips=1)
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(1)
    with pytest.raises(ResetNeeded):
        env.step(1)


@pytest.mark.parametrize("env_id", [COIN_ID, *gym_suite.ENV_IDS])
def test_native_vector_env_has_the_info_keys_of_sync_on_every_step(env_id):
    """The info's key set, every step, when every row ends on every step (so both restart every
    row on the next: the start's keys only) and, for an id whose episodes end only by the step
    limit, when rows run on (the step's keys). Values differ by design: a native env folds the
    row seeds into one generator."""
    limits = (1, 3) if env_id == "heartpole-v0" else (1,)
    for limit in limits:
        native = gymnasium.make_vec(
            env_id, num_envs=3, vectorization_mode="vector_entry_point", max_episode_steps=limit
        )
        sync = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="sync", max_episode_steps=limit)
        native.action_space.seed(5)
        info_n, info_s = native.reset(seed=[1, 2, 3])[1], sync.reset(seed=[1, 2, 3])[1]
        assert set(info_n) == set(info_s)
        for step in range(6):
            actions = native.action_space.sample()
            out_n, out_s = native.step(actions), sync.step(actions)
            assert set(out_n[4]) == set(out_s[4]), (limit, step)
            np.testing.assert_array_equal(out_n[3], out_s[3])
            for key in out_n[4]:
                if key.startswith("_"):
                    np.testing.assert_array_equal(out_n[4][key], out_s[4][key])


def _returned_arrays(observation, reward, terminated, truncated, info):
    arrays = list(observation.values()) if isinstance(observation, dict) else [observation]
    return arrays + [reward, terminated, truncated] + [v for v in info.values() if isinstance(v, np.ndarray)]


def _scribble(array):
    """Overwrite ``array`` in place with values of its dtype that no step returns."""
    if array.dtype == object:
        array[...] = "scribbled"
    elif array.dtype == bool:
        array[...] = ~array
    else:
        array[...] = 7


@pytest.mark.parametrize("env_id", [COIN_ID, *gym_suite.ENV_IDS])
def test_native_vector_step_returns_arrays_of_the_callers_own(env_id):
    """Every array a step returns (observation, reward, flags, info values and masks) is the
    caller's to keep or overwrite: none shares memory with another or with the env's state, and
    scribbling over all of them changes nothing the env does next (the same steps as a twin env
    left alone)."""
    kwargs = {"episode_length": 3} if env_id == "push-v0" else {}
    limit = 4  # rows end often, so starts and steps mix
    envs = [
        gymnasium.make_vec(
            env_id, num_envs=5, vectorization_mode="vector_entry_point", max_episode_steps=limit, **kwargs
        )
        for _ in range(2)
    ]
    for env in envs:
        env.reset(seed=11)
    envs[0].action_space.seed(3)
    for step in range(12):
        actions = envs[0].action_space.sample()
        scribbled, kept = (env.step(actions) for env in envs)
        arrays = _returned_arrays(*scribbled)
        quantities = [q for q in envs[0].unwrapped.state if isinstance(q, np.ndarray)]
        for i, a in enumerate(arrays):
            for b in arrays[i + 1 :] + quantities:
                assert not np.shares_memory(a, b), (step, a, b)
        expected = [a.copy() for a in _returned_arrays(*kept)]
        for a, b in zip(arrays, expected):
            np.testing.assert_array_equal(a, b)
        for a in arrays:
            _scribble(a)
        for a, b in zip(_returned_arrays(*kept), expected):
            np.testing.assert_array_equal(a, b)  # the twin's arrays were not touched either


@pytest.mark.parametrize("reuse_rows", [1, None])
@pytest.mark.parametrize("env_id", [COIN_ID, *gym_suite.ENV_IDS])
def test_native_vector_step_leaves_a_held_state_as_it_was(env_id, reuse_rows):
    """A state read before a step (``env.state``) is not changed by the step, also when rows
    start afresh in it and the rules pass a quantity on unchanged (the starts are written into
    arrays of the env's own), whether the batch copies every quantity for an autoreset or reuses
    the arrays the step has just made (``REUSE_ROWS``: a big batch's way, here on a small one)."""
    kwargs = {"episode_length": 3} if env_id == "push-v0" else {}
    env = gymnasium.make_vec(env_id, num_envs=5, vectorization_mode="vector_entry_point", max_episode_steps=2, **kwargs)
    if reuse_rows is not None:
        env.unwrapped.REUSE_ROWS = reuse_rows
    env.reset(seed=5)
    env.action_space.seed(5)
    restarts = 0
    for _ in range(8):
        held = env.unwrapped.state
        copies = [np.array(q) for q in held]
        restarts += int(env.unwrapped._prev_done.sum())
        env.step(env.action_space.sample())
        for quantity, copy in zip(held, copies):
            np.testing.assert_array_equal(quantity, copy)
    assert restarts


def test_one_row_follows_the_scalar_env():
    env, envs = CoinEnv(), CoinVectorEnv(1)
    o1, _ = env.reset(seed=9)
    o2, _ = envs.reset(seed=9)
    for t in range(30):
        a = t % 2
        o1, r1, te1, tr1, _ = env.step(a)
        o2, r2, te2, tr2, _ = envs.step(np.array([a]))
        if te1:
            assert te2[0]
            o1, _ = env.reset()
            o2, r2, te2, tr2, _ = envs.step(np.array([a]))  # the vector env restarts next step
        assert o1 == o2[0]


@pytest.mark.parametrize("seed", [{0: 1, 1: 2}, {1, 2}, "12", b"12", np.zeros((2, 1), dtype=int), 1.0, True])
def test_vector_reset_refuses_seeds_that_are_not_a_list(seed):
    envs = CoinVectorEnv(2)
    with pytest.raises(TypeError, match="seed must be None, a non-negative integer or a list of 2"):
        envs.reset(seed=seed)


def test_same_rules_on_floats_and_arrays():
    rng = np.random.default_rng(0)
    states = CoinState(rng.integers(0, 3, 50), rng.integers(-1, 2, 50))
    actions, u = rng.integers(0, 2, 50), rng.random((1, 50))
    batch = COIN.transition(states, actions, u, CoinParams(), NUMPY)
    for i in range(50):
        one = COIN.transition(
            CoinState(int(states.heads[i]), int(states.last[i])),
            int(actions[i]),
            [float(u[0, i])],
            CoinParams(),
            SCALAR,
        )
        assert one == (batch.heads[i], batch.last[i])
    assert math.isclose(
        COIN.reward(states, actions, batch, CoinParams(), NUMPY).sum(),
        sum(
            COIN.reward(None, int(a), CoinState(0, int(last)), CoinParams(), SCALAR)
            for a, last in zip(actions, batch.last)
        ),
    )


def test_human_render_shows_each_frame_once(capsys):
    env = CoinEnv(render_mode="human")
    env.reset(seed=0)
    env.render()
    env.step(1)
    env.render()
    env.render()
    assert capsys.readouterr().out.count("heads") == 2


def test_type_errors_stay_short_through_make_with_a_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(np.zeros((100, 30)))
    for kwargs in ({"data": frame}, {"expected_cost": frame}):
        with pytest.raises(TypeError) as caught:
            gymnasium.make("gym_suite:heartpole-v1", **kwargs)
        assert len(str(caught.value)) < 1000, len(str(caught.value))


@pytest.mark.parametrize("rows", [500, 20])  # a block of candidates at once; one at a time
@pytest.mark.parametrize("share", [0.0, 0.05, 0.5, 0.95, 1.0])
def test_numpy_first_picks_what_every_candidate_at_once_picks(share, rows):
    """The numpy ``first`` stops once every row has a candidate; it picks what testing every
    candidate at once (the JAX way) and the scalar loop pick, the default where none passes."""
    from gym_suite.envs.target_env import first, first_of_all

    rng = np.random.default_rng(7)
    xs, ys = rng.random((6, rows)), rng.random((6, rows))  # 6 candidates
    limit = rng.random(rows)

    def passes(x, y):  # shared arrays broadcast against the candidates, as target-v0's test does
        return (x + y) * 0.5 < share * limit + (share - 0.5) * 0.01

    default = (np.full(rows, -1.0), -2.0)
    lazy = first(NUMPY, passes, (xs, ys), default)
    eager = first_of_all(np, passes, (xs, ys), default)
    for got, want in zip(lazy, eager):
        np.testing.assert_array_equal(got, want)
    for i in range(0, rows, 7):
        row = first(SCALAR, lambda x, y, i=i: passes(x, y)[i], (xs[:, i], ys[:, i]), (default[0][i], default[1]))
        assert (lazy[0][i], lazy[1][i]) == row


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8, np.uint64])
@pytest.mark.parametrize("bad", [-1, 2, np.iinfo(np.int8).min, np.iinfo(np.int8).max])
def test_native_discrete_actions_out_of_range_are_refused(dtype, bad):
    """Every integer dtype is checked (int64 in one pass over the values read as unsigned): a
    value outside 0..n-1 raises ValueError naming the sub-environment, and the env stays as it was."""
    if bad < 0 and np.dtype(dtype).kind == "u":
        return  # not representable
    envs = CoinVectorEnv(3)
    envs.reset(seed=0)
    before = [q.copy() for q in envs.state]
    actions = np.array([0, 1, bad], dtype=dtype)
    with pytest.raises(ValueError, match=f"invalid action {bad} for sub-environment 2: expected values in 0..1"):
        envs.step(actions)
    for q, b in zip(envs.state, before):
        np.testing.assert_array_equal(q, b)
    envs.step(np.array([0, 1, 1], dtype=dtype))  # a valid batch of that dtype steps


@pytest.mark.parametrize("n", [1, 2, 4])
def test_one_hot_is_the_same_on_every_backend(n):
    """heartpole's ``one_hot(ops, index, n)``: ``n`` floats, 1.0 at ``index``; per row on arrays (``(n, rows)``)."""
    from gym_suite.envs.heartpole_env import one_hot

    eye = np.eye(n)
    for i in range(n):
        got = one_hot(SCALAR, i, n)
        assert got == tuple(eye[i]) and all(type(v) is float for v in got)
    index = np.arange(3 * n) % n
    np.testing.assert_array_equal(one_hot(NUMPY, index, n), eye[index].T)
    assert one_hot(NUMPY, index, n).dtype == np.float64
    jax = pytest.importorskip("jax")
    from gym_suite.envs.definition import jax_ops

    got = jax.jit(lambda a: one_hot(jax_ops(), a, n))(index)
    np.testing.assert_array_equal(np.asarray(got), eye[index].T)
    assert got.dtype == jax.numpy.result_type(float)
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda a: one_hot(jax_ops(), a, n))(index)), eye[index])


@pytest.mark.parametrize("n", [1, 2, 4, 16, 17, 40])
def test_scalar_one_hot_of_any_size_is_the_general_one(n):
    """heartpole's one_hot on SCALAR reads a table for small ``n`` (16 or fewer) and makes one for
    larger: the same tuples either way, and as the cached general rule gives them."""
    from gym_suite.envs.heartpole_env import _one_hots, one_hot

    for i in range(n):
        got = one_hot(SCALAR, i, n)
        assert got == _one_hots(n)[i] == tuple(float(i == j) for j in range(n))
        assert all(type(v) is float for v in got)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=7))
def test_scalar_sigmoids_written_out_are_the_loop_bit_for_bit(xs):
    """heartpole's sigmoids on SCALAR writes out four quantities (a fast path) and loops over any
    other count: the same bits as ``0.5 + 0.5 * tanh(x / 2)`` of each, in a list, for every count and value."""
    from gym_suite.envs.heartpole_env import sigmoids

    got = sigmoids(SCALAR, *xs)
    want = [0.5 + 0.5 * math.tanh(0.5 * x) for x in xs]
    assert type(got) is list and len(got) == len(xs)
    assert [v.hex() for v in got] == [v.hex() for v in want]


def _backends():
    """``(name, ops, run)``: ``run(fn, *arrays)`` calls ``fn`` on each backend's kind of value:
    Python numbers row by row, numpy arrays, JAX arrays under ``vmap`` and ``jit``."""
    out = [
        ("scalar", SCALAR, lambda fn, *xs: np.array([fn(*(x.item(i) for x in xs)) for i in range(xs[0].size)])),
        ("numpy", NUMPY, lambda fn, *xs: np.asarray(fn(*xs))),
    ]
    try:
        import jax
    except ImportError:  # the oldest-versions run has no JAX
        return out
    from gym_suite.envs.definition import jax_ops

    out.append(("jax", jax_ops(), lambda fn, *xs: np.asarray(jax.jit(jax.vmap(fn))(*xs))))
    return out


def test_every_backend_implements_exactly_the_ops_protocol():
    """SCALAR, NUMPY and jax_ops() each have every member of ``Ops``, documented there, and no
    other public attribute; ``Ops`` holds at most twelve, the general ones (what one environment
    needs besides is in its file), and ``name`` tells the backends apart."""
    from gym_suite.envs.definition import Ops

    members = {name for name in vars(Ops) if not name.startswith("_")}
    assert {"where", "take", "column", "vector", "copy", "name"} <= members and len(members) <= 12, members
    assert not members & {"sigmoids", "one_hot", "product", "only_where", "lookup", "clip_to_unit", "first"}
    for name in members:
        assert (getattr(Ops, name).__doc__ or "").strip(), f"Ops.{name} has no docstring"
    for backend, ops, _ in _backends():
        assert {name for name in dir(ops) if not name.startswith("_")} == members, ops
        assert ops.name == backend


@pytest.mark.parametrize("hypertension", [0.0, 0.3, 2.5, 40.0])
def test_product_is_the_same_on_every_backend(hypertension):
    """heartpole's ``product(ops, fn, constants, *args)``: the product of ``fn(c, *args)`` in the
    constants' order, equal on every backend to a relative 1e-12 in float64 (v1's night hazard is one)."""
    from gym_suite.envs.heartpole_env import NIGHT_DECAYS, no_attack_after, product

    h = np.array([hypertension, hypertension * 0.5, 0.0, 1.0 + hypertension])
    want = np.array([math.prod(1.0 - 0.3 / (1.0 + math.exp(6.0 - x * d)) for d in NIGHT_DECAYS) for x in h])
    for name, ops, run in _backends():
        got = run(lambda x, ops=ops: product(ops, no_attack_after, NIGHT_DECAYS, x, 0.3, ops), h)
        rtol = 1e-12 if got.dtype == np.float64 else 1e-6  # JAX without x64 computes in float32
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=name)
    # the order is the constants' (not a tree): the same bits as a loop on Python floats and numpy
    loop = [math.prod([x * c for c in (0.1, 3.0, 7.0)]) for x in h]
    assert product(SCALAR, lambda c, x: x * c, (0.1, 3.0, 7.0), h[0]) == loop[0]
    np.testing.assert_array_equal(product(NUMPY, lambda c, x: x * c, (0.1, 3.0, 7.0), h), loop)


def test_lookup_column_take_columns_and_copy_say_what_each_backend_returns():
    """The functions where the backends differ, so that no rule asks which one it runs on
    (heartpole's lookup, push-v0's take_columns and Ops' column and copy)."""
    from gym_suite.envs.heartpole_env import lookup
    from gym_suite.envs.push_env import take_columns

    names = ("do_nothing", "drink_coffee", "drink_beer", "sleep")
    assert lookup(SCALAR, names, 2) == "drink_beer"
    got = lookup(NUMPY, names, np.array([3, 0, 3]))
    assert got.dtype == object and got.tolist() == ["sleep", "do_nothing", "sleep"]
    observation = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert SCALAR.column(observation[1], 2) == 6.0
    np.testing.assert_array_equal(NUMPY.column(observation, 2), [2.0, 6.0, 10.0])
    table = np.arange(12).reshape(2, 6)  # (fields, rows)
    assert take_columns(SCALAR, table, 4) == [4, 10] and all(type(v) is int for v in take_columns(SCALAR, table, 4))
    kept = take_columns(SCALAR, table, 4, keepdims=True)
    assert kept.shape == (2, 1) and not np.shares_memory(kept, table)
    np.testing.assert_array_equal(take_columns(NUMPY, table, np.array([4, 0])), [[4, 0], [10, 6]])
    assert take_columns(NUMPY, table, np.array([4, 0]), keepdims=True).shape == (2, 2, 1)
    vector = np.ones(3)
    for ops in (SCALAR, NUMPY):
        copied = ops.copy(vector)
        assert not np.shares_memory(copied, vector) and copied.tolist() == [1.0, 1.0, 1.0]
    assert SCALAR.copy(1.5) == 1.5
    jax = pytest.importorskip("jax")
    from gym_suite.envs.definition import jax_ops

    ops = jax_ops()
    index = jax.numpy.array([3, 0])
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda i: lookup(ops, names, i))(index)), [3, 0])  # no strings
    np.testing.assert_array_equal(np.asarray(ops.column(jax.numpy.asarray(observation), 2)), [2.0, 6.0, 10.0])
    taken = jax.vmap(lambda i: take_columns(ops, jax.numpy.asarray(table), i, keepdims=True))(index)
    assert len(taken) == len(table)  # one value per field, each (rows, 1)
    for field, values in zip(table, taken):
        np.testing.assert_array_equal(np.asarray(values), field[[3, 0], None])
    taken = jax.jit(lambda i: take_columns(ops, table, i))(index)  # a numpy table, a batch of indices
    np.testing.assert_array_equal(np.asarray(taken), table[:, [3, 0]])  # (fields, 2)


@pytest.mark.parametrize("env_id", [COIN_ID, *gym_suite.ENV_IDS])
def test_starts_are_the_same_on_floats_and_arrays(env_id):
    """The vector env starts a few rows on Python numbers and more on arrays
    (``SCALAR_START_ROWS``): every id's ``initial`` gives the same numbers, bit for bit, both
    ways, so a row's start does not depend on how many rows start with it."""
    envs = gymnasium.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point").unwrapped
    d, params, draws = envs.definition, envs.params, envs._start_draws
    u = np.random.default_rng(0).random((300, draws))
    u[:3] = np.array([0.0, 0.5, np.nextafter(1.0, 0.0)])[:, None]  # the ends of the range, the middle
    batch = d.initial(u.T if draws else (), params, NUMPY)
    for i, row in enumerate(u.tolist()):
        one = d.initial(row if draws else (), params, SCALAR)
        for name, value, column in zip(batch._fields, one, batch):
            got, want = np.asarray(value), np.broadcast_to(column, (300,))[i]
            assert got.dtype.kind == want.dtype.kind or {got.dtype.kind, want.dtype.kind} <= {"i", "u"}, name
            np.testing.assert_array_equal(got, want, err_msg=f"{env_id} row {i}: {name}")


@pytest.mark.parametrize("env_id", [COIN_ID, *gym_suite.ENV_IDS])
def test_rows_started_one_at_a_time_or_together_start_alike(env_id):
    """Eight rows restarted together (on arrays) and one after the other (on Python numbers) take
    the same draws and get the same state, bit for bit."""
    together, apart = (
        gymnasium.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point").unwrapped for _ in range(2)
    )
    for envs in (together, apart):
        envs.reset(seed=4)
    assert 8 > together.SCALAR_START_ROWS
    together.restart(np.ones(8, dtype=bool))
    for i in range(8):
        apart.restart(np.arange(8) == i)
    for name, a, b in zip(together.state._fields, together.state, apart.state):
        assert np.asarray(a).dtype == np.asarray(b).dtype, name
        np.testing.assert_array_equal(a, b, err_msg=f"{env_id}: {name}")


def test_state_maker_builds_the_named_tuple_from_one_tuple_of_its_quantities():
    make = state_maker(CoinState)
    state = make((3, 1.5))
    assert type(state) is CoinState
    assert state == CoinState(3, 1.5)
    assert state._fields == CoinState._fields
    for not_a_state in (tuple, CoinParams, CoinState(3, 1.5), "CoinState"):
        with pytest.raises(TypeError, match="state_maker: state_class must be a NamedTuple class"):
            state_maker(not_a_state)  # type: ignore[arg-type]
