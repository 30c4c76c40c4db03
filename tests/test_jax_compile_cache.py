"""JAX's persistent compilation cache (gym_suite._jax_cache): train_ppo's programs are written in a
first process and loaded in a second one, with the same results; GYM_SUITE_JAX_CACHE moves the
cache or turns it off; a cache directory the user gave JAX is kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gym_suite._jax_cache import ENV_VAR, default_cache_dir, machine_tag, requested_cache_dir

# a child process: train_ppo (or, with "rollout", a compiled rollout of gym_suite.jax) under the
# environment the test gives; it prints what JAX did with its cache
CHILD = r"""
import json, sys
import jax, jax.monitoring
events = {"hits": 0, "writes": 0}
def listen(event, **kwargs):
    if event == "/jax/compilation_cache/cache_hits":
        events["hits"] += 1
    elif event == "/jax/compilation_cache/cache_misses":  # JAX records it as it writes an entry
        events["writes"] += 1
jax.monitoring.register_event_listener(listen)
import gym_suite.jax
out = {"dir": gym_suite.jax.compilation_cache_dir(), "jax_dir": jax.config.jax_compilation_cache_dir}
if sys.argv[1] == "train":
    from gym_suite.training.jax import train_ppo
    result = train_ppo("example-v0", seed=int(sys.argv[2]), total_timesteps=2048, eval_points=2, eval_episodes=4,
                       num_steps=64, agent_kwargs={"hidden_layer_sizes": (8,)}, progress=False)
    out.update(cached=result.cached_programs, returns=result.returns.tolist(),
               weights=[w.tolist() for layer in result.policy.layers for w in layer])
else:
    if len(sys.argv) > 3:  # a program that changes its working directory after the import
        import os
        os.chdir(sys.argv[3])
    env, params = gym_suite.jax.make("example-v0")
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
out.update(events)
print(json.dumps(out))
"""


def _child(tmp_path: Path, mode: str = "train", seed: int = 0, cwd=None, chdir=None, **env: str) -> dict:
    pytest.importorskip("rejax")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("JAX_") and k != ENV_VAR}
    environ.update(OMP_NUM_THREADS="1", HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    environ.update(
        MPLCONFIGDIR=str(tmp_path / "matplotlib"), PYTHONPATH=os.pathsep.join(sys.path), **env
    )  # gymnax imports matplotlib: its font cache
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(seed), *([str(chdir)] if chdir else [])],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env=environ,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict = json.loads(done.stdout.strip().splitlines()[-1])
    out["stderr"] = done.stderr
    return out


def _files(path: Path) -> list[Path]:
    return [p for p in path.rglob("*") if p.is_file()] if path.exists() else []


def test_a_second_process_loads_train_ppo_from_the_cache_with_the_same_results(tmp_path):
    cache = tmp_path / "cache"
    first = _child(tmp_path, GYM_SUITE_JAX_CACHE=str(cache))
    assert first["dir"] == first["jax_dir"] == str(cache / machine_tag())
    assert first["cached"] == 0 and first["hits"] == 0 and first["writes"] >= 3
    written = _files(cache)
    assert len(written) >= 3  # the training's three programs, at least
    second = _child(tmp_path, GYM_SUITE_JAX_CACHE=str(cache))
    assert second["cached"] == 3 and second["hits"] >= 3 and second["writes"] == 0
    assert second["returns"] == first["returns"] and second["weights"] == first["weights"]
    assert sorted(_files(cache)) == sorted(written)  # nothing new written
    other_seed = _child(tmp_path, seed=1, GYM_SUITE_JAX_CACHE=str(cache))  # the seeds are the programs' input
    assert other_seed["cached"] == 3 and other_seed["weights"] != first["weights"]


def test_the_default_cache_is_in_the_users_cache_directory(tmp_path):
    out = _child(tmp_path, "rollout")
    default = tmp_path / "xdg" / "gym_suite" / "jax"
    assert out["dir"] == str(default / machine_tag()) and out["writes"] >= 1
    assert _files(default) and not _files(tmp_path / "home")


def test_gym_suite_jax_cache_off_writes_nothing(tmp_path):
    out = _child(tmp_path, "rollout", GYM_SUITE_JAX_CACHE="off")
    assert out["dir"] is None and out["jax_dir"] is None and out["writes"] == 0
    assert _files(tmp_path / "xdg") == _files(tmp_path / "home") == []


def test_a_cache_directory_the_user_gave_jax_is_kept(tmp_path):
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    out = _child(
        tmp_path,
        "rollout",
        JAX_COMPILATION_CACHE_DIR=str(theirs),
        JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
        GYM_SUITE_JAX_CACHE=str(ours),
    )
    assert out["dir"] == out["jax_dir"] == str(theirs)
    assert _files(theirs) and not _files(ours) and not _files(tmp_path / "xdg")


def test_the_requested_directory(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "gym_suite" / "jax"
    assert requested_cache_dir() == tmp_path / "gym_suite" / "jax" / machine_tag()
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if sys.platform.startswith("linux"):
        assert default_cache_dir() == tmp_path / "home" / ".cache" / "gym_suite" / "jax"
    monkeypatch.setenv(ENV_VAR, "  ")
    assert requested_cache_dir() == default_cache_dir() / machine_tag()
    monkeypatch.setenv(ENV_VAR, "~/elsewhere")
    assert requested_cache_dir() == tmp_path / "home" / "elsewhere" / machine_tag()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENV_VAR, "relative/cache")  # absolute once, from the working directory when read
    assert requested_cache_dir() == tmp_path / "relative" / "cache" / machine_tag()
    for off in ("off", "OFF", "0", "false", "No", " none "):
        monkeypatch.setenv(ENV_VAR, off)
        assert requested_cache_dir() is None


def test_a_relative_cache_directory_stays_where_it_was_when_the_working_directory_changes(tmp_path):
    """``GYM_SUITE_JAX_CACHE=relative/dir`` is made absolute when read, at the import."""
    start, elsewhere = tmp_path / "start", tmp_path / "elsewhere"
    start.mkdir()
    elsewhere.mkdir()
    out = _child(tmp_path, "rollout", cwd=start, chdir=elsewhere, GYM_SUITE_JAX_CACHE="relative/cache")
    assert out["dir"] == str(start / "relative" / "cache" / machine_tag())
    assert _files(start / "relative" / "cache") and not (elsewhere / "relative").exists()


def test_a_cache_directory_that_cannot_be_made_turns_the_cache_off_with_a_warning(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    out = _child(tmp_path, "rollout", GYM_SUITE_JAX_CACHE=str(a_file / "cache"))
    assert out["dir"] is None and out["jax_dir"] is None and out["writes"] == 0
    assert "RuntimeWarning: gym_suite.jax: JAX's compilation cache is off: cannot make the directory" in out["stderr"]
    assert "GYM_SUITE_JAX_CACHE" in out["stderr"] and "Error reading persistent compilation cache" not in out["stderr"]
    from gym_suite._jax_cache import unusable

    assert unusable(tmp_path / "new" / "dir") is None and (tmp_path / "new" / "dir").is_dir()
    assert "cannot make the directory" in unusable(a_file) and str(a_file) in unusable(a_file)
    assert "cannot make the directory" in unusable(a_file / "below")


def test_the_machine_tag_names_the_architecture_and_is_a_directory_name():
    import platform

    tag = machine_tag()
    assert tag == machine_tag() and tag.startswith(f"{platform.machine() or 'cpu'}-") and len(tag.split("-")[-1]) == 12
    assert "/" not in tag and "\\" not in tag
