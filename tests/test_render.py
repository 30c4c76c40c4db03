"""Pictures of every registered environment (headless), the GIF recorder, and the benchmark scripts' output."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from coin_env import COIN_ID
from conftest import ALL_IDS  # (which also sets SDL_VIDEODRIVER=dummy: no window)
from gymnasium.envs.registration import load_env_creator
from numpy.lib.stride_tricks import sliding_window_view

import gym_suite
from gym_suite.envs._draw import text_mask
from gym_suite.envs.heartpole_env import ACTION_LABELS, ATTACK_RGB, STATE_NAMES, TEXT_RGB, rgb_dashboard, value_text

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "gym-suite" / "benchmarks" / "bench.py"
RECORD_GIFS = ROOT / "gym-suite" / "tools" / "record_gifs.py"
STEP_COST = ROOT / "gym-suite" / "benchmarks" / "step_cost.py"
QUICK_STEP_COST = "--ids example-v0 --num-envs 8 --rounds 1 --steps 50".split()


def run_script(*args, timeout=600):
    """A repository script run as a user runs it: this interpreter, a fresh process."""
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def run_ok(*args, timeout=600):
    done = run_script(*args, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done


ANSI_IDS = [i for i in ALL_IDS if "ansi" in load_env_creator(gymnasium.spec(i).entry_point).metadata["render_modes"]]
TEXT_IDS = [i for i in ANSI_IDS if not i.startswith("target-")] + [COIN_ID]  # target's human mode: a window


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_rgb_array_frames_follow_the_state_and_are_fresh(env_id):
    """A non-blank H x W x 3 uint8 frame of a fixed size that follows the state; two renders equal, not one buffer."""
    env = gymnasium.make(env_id, render_mode="rgb_array")
    env.reset(seed=1)
    env.action_space.seed(1)
    frames = [env.render()]
    for _ in range(20):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        frames.append(env.render())
        if terminated or truncated:
            env.reset()
    first = frames[0]
    assert first.ndim == 3 and first.shape[2] == 3 and first.dtype == np.uint8
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 1 and all(f.shape == first.shape for f in frames)
    assert any(not np.array_equal(first, frame) for frame in frames[1:])
    a, b = env.render(), env.render()
    assert np.array_equal(a, b)
    a[...] = 0
    assert not np.array_equal(a, env.render())


@pytest.fixture(scope="module")
def quick_bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    json_path, md_path = out / "bench.json", out / "bench.md"
    run_ok(BENCH, *"--quick --steps 64 --ids example-v0 --json".split(), json_path, "--markdown", md_path,
           "--heartpole-venv", out / "no-such-venv")  # fmt: skip
    return json.loads(json_path.read_text()), md_path.read_text()


def test_bench_json_holds_every_interface_and_targets_as_ratios_of_rows(quick_bench):
    result, markdown = quick_bench
    assert result["ids"] == ["example-v0"] and result["settings"]["steps"] == 64
    suite = {(r["interface"], r["num_envs"]) for r in result["rows"] if r["env_id"] == "example-v0"}
    assert {("raw", 1), ("gymnasium.make", 1), ("SyncVectorEnv", 64), ("native vector", 4096)} <= suite
    for row in result["rows"]:
        if row["env_id"] in ("example-v0", "CartPole-v1"):
            assert row["status"] == "ok" and row["min"] <= row["steps_per_second"] <= row["max"]
    (pypi,) = [r for r in result["rows"] if "PyPI" in r["interface"]]
    assert pypi["steps_per_second"] is None and "no-such-venv" in pypi["status"]  # not measured
    rows = {(r["env_id"], r["interface"], r["num_envs"]): r["steps_per_second"] for r in result["rows"]}
    (vs_cartpole,) = [t for t in result["targets"] if t["target"].startswith("example-v0 via gymnasium.make")]
    expected = rows[("example-v0", "gymnasium.make", 1)] / rows[("CartPole-v1", "gymnasium.make", 1)]
    assert vs_cartpole["ratio"] == pytest.approx(expected)
    assert "| example-v0" in markdown


def _row(env_id, interface, rate, num_envs=1, note="", reference=False):
    return {"env_id": env_id, "interface": interface, "num_envs": num_envs, "reference": reference, "note": note,
            "steps": 1000, "seconds": [num_envs * 1000 / rate] * 3, "status": "ok"}  # fmt: skip


EXPECTED_TARGETS = {
    "heartpole-v0 via": (40.0 / 10.0, "MISS"),
    "heartpole-v0 native N=4,096 >= 0.5x": (0.9, None),
    "heartpole-v0 native N=4,096 >= 20x": (900.0 / 40.0, "PASS"),
    "heartpole-v0 native N=64 >= 20x SyncVectorEnv": (300.0 / 20.0, "MISS"),
    "heartpole-v0 native N=4,096 >= 5M": (None, "MISS"),  # 900 env-steps/s
    "push-v0 native N=4,096 >= 0.5x": (None, "MISS"),
    "push-v0 native N=4,096 >= 20x": (None, "MISS"),
    "push-v0 step cost": (2.0, "MISS"),  # cost, not rate: big / small
}  # target name's start -> (ratio or None, result or None) bench.py must find in the made-up run below


def test_targets_compare_the_right_rows_in_the_right_direction(quick_bench, tmp_path):
    """Rows of a made-up run, re-read with --from-json: every target compares the rows it names."""
    n, pypi = 4096, "heartpole 1.2 (PyPI)"
    rows = [
        _row("CartPole-v1", "gymnasium.make", 100.0, reference=True),
        _row("CartPole-v1", "native vector", 1000.0, n, reference=True),
        _row("heartpole==1.2", pypi, 10.0, reference=True),
        _row("heartpole-v0", "gymnasium.make", 40.0),  # 4x heartpole 1.2: short of 5x
        _row("heartpole-v0", "native vector", 900.0, n),  # 0.9x CartPoleVectorEnv, 22.5x its scalar env
        _row("heartpole-v0", "SyncVectorEnv", 20.0, 64),
        _row("heartpole-v0", "native vector", 300.0, 64),  # 15x SyncVectorEnv at N=64: short of 20x
        _row("push-v0", "gymnasium.make", 30.0),
        _row("push-v0", "native vector", 400.0, n),  # 0.4x CartPoleVectorEnv, 13.3x its scalar env
        _row("push-v0", "gymnasium.make", 30.0, note="1,000-row log"),
        _row("push-v0", "gymnasium.make", 15.0, note="100,000-row log"),  # twice the step cost with the big log
    ]

    def targets_of(rows, ids):
        source, out = tmp_path / "in.json", tmp_path / "out.json"
        source.write_text(json.dumps({**quick_bench[0], "rows": rows, "ids": ids, "targets": []}))
        run_ok(BENCH, "--from-json", source, "--json", out)
        return json.loads(out.read_text())["targets"]

    found = {t["target"]: t for t in targets_of(rows, ["heartpole-v0", "push-v0"])}
    assert not any("example-v0" in name or "target-v0" in name for name in found)  # not selected
    for prefix, (ratio, result) in EXPECTED_TARGETS.items():
        (target,) = [t for name, t in found.items() if name.startswith(prefix)]
        assert ratio is None or target["ratio"] == pytest.approx(ratio), prefix
        assert result is None or target["result"] == result, prefix
    absent = targets_of(rows[:3], ["heartpole-v0"])  # heartpole-v0's own rows are missing
    assert absent and all(t["result"] == "not measured" and t["ratio"] is None for t in absent)


def test_a_broken_env_becomes_an_error_row_not_a_crash(tmp_path):
    out = tmp_path / "bench.json"
    run_ok(BENCH, *"--quick --steps 64 --ids example-v0 --env-kwargs no_such_argument=1 --json".split(), out,
           "--heartpole-venv", tmp_path / "no-such-venv")  # fmt: skip
    rows = json.loads(out.read_text())["rows"]
    suite = {
        (r["status"][:7], "TypeError" in r["status"], r["steps_per_second"])
        for r in rows
        if r["env_id"] == "example-v0"
    }
    assert suite == {("error: ", True, None)}
    assert all(r["status"] == "ok" for r in rows if r["env_id"] == "CartPole-v1")  # the others are timed


HEARTPOLE_VENV = Path(os.environ.get("HEARTPOLE12_VENV") or ROOT / ".venv-heartpole12")


@pytest.mark.skipif(not (HEARTPOLE_VENV / "bin" / "python").exists(), reason="no heartpole==1.2 venv on this machine")
def test_heartpole_pypi_row_runs_in_its_own_interpreter(tmp_path):
    out = tmp_path / "bench.json"
    run_ok(BENCH, *"--quick --steps 200 --ids heartpole-v0 --json".split(), out, "--heartpole-venv", HEARTPOLE_VENV)
    result = json.loads(out.read_text())
    assert result["heartpole_pypi_venv"]["heartpole"] == "1.2"
    (pypi,) = [r for r in result["rows"] if "PyPI" in r["interface"]]
    assert pypi["status"] == "ok" and pypi["steps_per_second"] > 0


LAST_FRAME_HOLD = 4  # record_gifs.py shows the last frame this many frame times


def test_record_gifs_writes_an_animation_of_the_episode(tmp_path):
    image = pytest.importorskip("PIL.Image")
    done = run_ok(RECORD_GIFS, "--out", tmp_path, *"--ids example-v0 --min-frames 6 --max-frames 8".split())
    found = re.search(r"(\d+) frames of (\d+)x(\d+) at ([\d.]+) fps, .*; seed 0, heuristic policy", done.stdout)
    assert found, done.stdout
    frames, fps = int(found[1]), float(found[4])
    assert 6 <= frames <= 8
    with image.open(tmp_path / "example-v0.gif") as gif:
        assert gif.width >= 320 and gif.width % int(found[2]) == 0  # small frames are enlarged, whole times
        total_ms = 0
        for index in range(gif.n_frames):  # Pillow may merge equal neighbours, adding their durations
            gif.seek(index)
            total_ms += gif.info["duration"]
    assert total_ms == round(1000 / fps) * (frames - 1 + LAST_FRAME_HOLD)


def test_record_gifs_plays_the_heuristic_from_the_seed(tmp_path):
    """The GIF shows the seeded heuristic episode: its return is the one gym_suite.evaluate scores."""
    pytest.importorskip("PIL.Image")
    args = "--ids target-v0 --seed 3 --min-frames 1 --max-frames 200".split()
    done = run_ok(RECORD_GIFS, "--out", tmp_path, *args)
    expected = gym_suite.evaluate("target-v0", "heuristic", episodes=1, seed=3)
    assert f"one episode of {expected.lengths[0]} steps, return {expected.returns[0]:.2f}" in done.stdout


def find_text(frame: np.ndarray, text: str, colour) -> list[tuple[int, int]]:
    """Top-left corners ``(x, y)`` where ``text`` is drawn exactly in ``colour``."""
    mask = text_mask(text)
    inked = np.all(frame == np.asarray(colour, dtype=np.uint8), axis=2)
    if inked.shape[0] < mask.shape[0] or inked.shape[1] < mask.shape[1]:
        return []
    ys, xs = np.nonzero(np.all(sliding_window_view(inked, mask.shape) == mask, axis=(2, 3)))
    return list(zip(xs.tolist(), ys.tolist()))


@pytest.mark.parametrize("heartpole_id", ["heartpole-v0", "heartpole-v1"])
def test_heartpole_dashboard_names_and_values_on_the_bars(heartpole_id):
    env = gymnasium.make(heartpole_id, render_mode="rgb_array")
    env.reset(seed=0)
    for _ in range(3):
        env.step(1)  # coffee
    frame = env.render()
    label_rows = []
    for name, value in zip(STATE_NAMES, env.unwrapped.state):
        ((x0, y0),) = find_text(frame, name, TEXT_RGB)
        beside = [x for x, y in find_text(frame, value_text(value), TEXT_RGB) if y == y0 and x > x0]
        assert len(beside) == 1, f"{name}: its value {value_text(value)} is not beside its name"
        label_rows.append(y0)
    assert label_rows == sorted(label_rows), "the labels are not in the order of the bars"
    for label in ACTION_LABELS:
        (at,) = find_text(frame, label, TEXT_RGB)
        assert at[1] > label_rows[-1], f"the action label {label!r} is not under the bars"
    assert not find_text(frame, "HEART ATTACK", (200, 0, 0))


def test_heartpole_dashboard_says_heart_attack():
    frame = rgb_dashboard((0.5, 3.0, 0.0, 4.0, 100.0, -1234.5), 2, True)
    assert len(find_text(frame, "HEART ATTACK", ATTACK_RGB)) == 1
    assert value_text(-1234.5) in ("-1,234", "-1,235")
    assert value_text(0.1234) == "0.123" and value_text(12.34) == "12.3"


@pytest.mark.parametrize("text_id", TEXT_IDS)
def test_human_text_render_prints_each_frame_once(text_id, capsys):
    """Human mode prints each frame in reset and step; render() calls after each must not print it again."""
    frames_of = {}
    for mode in ("ansi", "human"):
        env = gymnasium.make(text_id, render_mode=mode)
        env.reset(seed=0)
        env.action_space.seed(0)
        frames = [env.render()]
        for _ in range(5):
            done = any(env.step(env.action_space.sample())[2:4])
            frames.append(env.render())
            env.render()
            if done:
                break
        frames_of[mode] = frames
        env.close()
    assert capsys.readouterr().out == "".join(frames_of["ansi"])


def step_cost_rows(stdout: str, prefix: str = "|") -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in stdout.splitlines() if line.startswith(prefix)]


def test_step_cost_jax_without_jax_is_left_out_with_a_note(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(STEP_COST.parent))
    spec = importlib.util.spec_from_file_location("step_cost_under_test", STEP_COST)
    step_cost = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(step_cost)
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        step_cost.importlib.util, "find_spec", lambda name, *a: None if name == "jax" else find_spec(name, *a)
    )
    assert step_cost.main([*QUICK_STEP_COST, "--jax"]) == 0
    out, err = capsys.readouterr()
    assert "JAX is not installed" in err and 'pip install "gym-suite[jax]"' in err
    assert {row[1] for row in step_cost_rows(out, "| ")[2:]} == {"make", "native"}


def test_step_cost_compares_checkouts_and_its_json_becomes_the_bench_pages_table(tmp_path):
    """Two ``--against``: µs and a speed ratio per checkout, the ratio to CartPole (with JAX, jax-vector and jax-scan
    rows held to CartPole-v1's native vector env); --json's processor, date and versions become bench.py's table of
    that CPU family (replaced, not repeated); a folder without the package is refused."""
    jax = importlib.util.find_spec("jax") is not None and importlib.util.find_spec("gymnax") is not None
    step_json, jax_rows = tmp_path / "step.json", {("example-v0", "jax-vector", "8"), ("example-v0", "jax-scan", "8")}
    against = ["--against", ROOT, "--against", ROOT]
    done = run_ok(STEP_COST, *against, *QUICK_STEP_COST, *(["--jax"] if jax else []), "--json", step_json, timeout=300)
    header, _, *lines = step_cost_rows(done.stdout)
    assert header[:4] == ["id", "interface", "N", "this (µs)"]
    assert sum(cell.startswith("speed vs ") for cell in header) == 2 and header[-1] == "vs CartPole"
    rows = {(i, how, n) for i in ("example-v0", "CartPole-v1") for how, n in (("make", "1"), ("native", "8"))}
    assert {tuple(line[:3]) for line in lines} == rows | (jax_rows if jax else set())
    refused = run_script(STEP_COST, "--against", ROOT / "docs", "--rounds", "1")
    assert refused.returncode == 2 and "no gym_suite package there" in refused.stderr
    found = json.loads(step_json.read_text())
    seconds = found["seconds"][0]
    assert found["machine"]["cpu"] and "numpy" in found["machine"]["versions"] and found["date"]
    assert "example-v0|native|8" in seconds and "CartPole-v1|make|1" in seconds
    bench_json, md = tmp_path / "bench.json", tmp_path / "bench.md"
    bench_json.write_text((ROOT / "docs" / "bench.json").read_text())
    for _ in range(2):  # twice: still one table for the family
        run_ok(BENCH, "--from-json", bench_json, "--step-cost", step_json, "--json", bench_json, "--markdown", md)
    machine = found["machine"]
    heading = f"## Paired CPU time a step: {machine['cpu']} ({machine.get('cpu_family') or 'family not recorded'})"
    page = md.read_text()
    assert page.count(heading + "\n") == 1 and "| example-v0 " in page
    if jax:
        assert {"example-v0|jax-vector|8", "example-v0|jax-scan|8"} <= seconds.keys()
        assert not any(key.startswith("CartPole-v1|jax") for key in seconds)
        cartpole = seconds["CartPole-v1|native|8"][0]
        ratios = {cells[1]: cells[-1] for cells in step_cost_rows(done.stdout, "| example-v0 ")}
        for how in ("jax-vector", "jax-scan"):
            assert ratios[how] == f"{cartpole / seconds[f'example-v0|{how}|8'][0]:.2f}", ratios
        row = next(line for line in page.splitlines() if line.startswith("| example-v0") and "jax-scan" in line)
        assert f"{cartpole / seconds['example-v0|jax-scan|8'][0]:.2f}x" in row
