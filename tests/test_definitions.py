"""The tiny coin of ``tests/coin_env.py`` in the shells, the ops functions and the envs' helpers on every backend
(what every id promises, the coin's included: ``tests/test_conformance.py``)."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
from coin_env import CoinParams, CoinState, CoinVectorEnv
from hypothesis import given
from hypothesis import strategies as st

from gym_suite.envs.definition import NUMPY, SCALAR, Ops, jax_ops, state_maker
from gym_suite.envs.heartpole_env import NIGHT_DECAYS, _one_hots, lookup, no_attack_after, one_hot, product, sigmoids
from gym_suite.envs.push_env import take_columns
from gym_suite.envs.target_env import first, first_of_all


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
    """The numpy ``first`` stops once every row has a candidate: it picks what JAX's way and the scalar loop pick."""
    rng = np.random.default_rng(7)
    xs, ys, limit = rng.random((6, rows)), rng.random((6, rows)), rng.random(rows)  # 6 candidates

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
    """Every integer dtype is checked (int64 in one pass, read as unsigned): the env stays as it was."""
    if bad < 0 and np.dtype(dtype).kind == "u":
        return  # not representable
    envs = CoinVectorEnv(3)
    envs.reset(seed=0)
    before = [q.copy() for q in envs.state]
    with pytest.raises(ValueError, match=f"invalid action {bad} for sub-environment 2: expected values in 0..1"):
        envs.step(np.array([0, 1, bad], dtype=dtype))
    for q, b in zip(envs.state, before):
        np.testing.assert_array_equal(q, b)
    envs.step(np.array([0, 1, 1], dtype=dtype))  # a valid batch of that dtype steps


@pytest.mark.parametrize("n", [1, 2, 4, 16, 17, 40])
def test_one_hot_is_the_same_on_every_backend(n):
    """heartpole's ``one_hot(ops, index, n)``: floats (a table for ``n`` up to 16), rows on arrays ``(n, rows)``."""
    for i in range(n):
        got = one_hot(SCALAR, i, n)
        assert got == _one_hots(n)[i] == tuple(float(i == j) for j in range(n))
        assert all(type(v) is float for v in got)
    eye, index = np.eye(n), np.arange(3 * n) % n
    np.testing.assert_array_equal(one_hot(NUMPY, index, n), eye[index].T)
    assert one_hot(NUMPY, index, n).dtype == np.float64
    jax = pytest.importorskip("jax")
    got = jax.jit(lambda a: one_hot(jax_ops(), a, n))(index)
    np.testing.assert_array_equal(np.asarray(got), eye[index].T)
    assert got.dtype == jax.numpy.result_type(float)
    np.testing.assert_array_equal(np.asarray(jax.vmap(lambda a: one_hot(jax_ops(), a, n))(index)), eye[index])


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=7))
def test_scalar_sigmoids_written_out_are_the_loop_bit_for_bit(xs):
    """heartpole's sigmoids on SCALAR (four written out, others looped): the bits of ``0.5 + 0.5 * tanh(x / 2)``."""
    got = sigmoids(SCALAR, *xs)
    want = [0.5 + 0.5 * math.tanh(0.5 * x) for x in xs]
    assert type(got) is list and len(got) == len(xs)
    assert [v.hex() for v in got] == [v.hex() for v in want]


def _backends():
    """``(name, ops, run)``: ``run(fn, *arrays)`` calls ``fn`` row by row, on numpy, and under ``vmap`` and ``jit``."""
    out = [
        ("scalar", SCALAR, lambda fn, *xs: np.array([fn(*(x.item(i) for x in xs)) for i in range(xs[0].size)])),
        ("numpy", NUMPY, lambda fn, *xs: np.asarray(fn(*xs))),
    ]
    try:
        import jax
    except ImportError:  # the oldest-versions run has no JAX
        return out
    out.append(("jax", jax_ops(), lambda fn, *xs: np.asarray(jax.jit(jax.vmap(fn))(*xs))))
    return out


def test_every_backend_implements_exactly_the_ops_protocol():
    """SCALAR, NUMPY and jax_ops() have exactly ``Ops``' members, each documented, at most twelve general ones."""
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
    """heartpole's ``product(ops, fn, constants, *args)``: in the constants' order, equal to 1e-12 on every backend."""
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
    """heartpole's lookup, push-v0's take_columns, Ops' column and copy: where the backends differ."""
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
    for copied in (SCALAR.copy(vector), NUMPY.copy(vector)):
        assert not np.shares_memory(copied, vector) and copied.tolist() == [1.0, 1.0, 1.0]
    assert SCALAR.copy(1.5) == 1.5
    jax = pytest.importorskip("jax")
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


def test_state_maker_builds_the_named_tuple_from_one_tuple_of_its_quantities():
    state = state_maker(CoinState)((3, 1.5))
    assert type(state) is CoinState and state == CoinState(3, 1.5)
    for not_a_state in (tuple, CoinParams, CoinState(3, 1.5), "CoinState"):
        with pytest.raises(TypeError, match="state_maker: state_class must be a NamedTuple class"):
            state_maker(not_a_state)  # type: ignore[arg-type]
