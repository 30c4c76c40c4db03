"""Ray RLlib PPO on a real two-node Ray cluster: the env runners sample on the second node.

Both nodes run on this machine, each started with ``ray start`` as a separate process with its
own temporary directory, port and resources: the head (``--num-cpus=1``) and a second node
(``--num-cpus=1`` and a custom resource ``second_node``). A driver program joins the cluster
(``ray.init(address=...)`` of the head) and trains PPO with every env runner asking for
``second_node``, so that it can only be placed there: the samples cross from one raylet's
worker to the driver, as they do between machines. The driver is a process of its own, as a
user's training script is: it starts with the cluster's authentication token in its
environment (Ray reads it when it is imported).

The nodes are stopped in the fixture's teardown whatever the test did. Not with ``ray stop
--force``: that stops every Ray process of the user on the machine, other clusters included.
Each node is started in a session of its own, and every process in those two sessions (the
raylets, the GCS, the workers) is ended by its process id. The test keeps track of its own
processes only: the cluster's are those of its two sessions and those whose command line names
one of its two temporary directories (every Ray process of a node names its session directory);
other people's Ray on the machine, started or stopped meanwhile, is none of its business.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

import gym_suite  # noqa: E402

pytestmark = [
    pytest.mark.multinode,
    pytest.mark.slow,  # starts a Ray cluster and trains across it
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the cluster's processes through /proc (Linux)"),
]

ALL_IDS = [spec.id for spec in gym_suite.SPECS]
RAY = Path(sys.executable).parent / "ray"
ITERATIONS = 2
BATCH = 200  # env steps an iteration


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def cluster_pids(dirs: list[Path]) -> set[int]:
    """Live processes whose command line names one of ``dirs`` (the cluster's temporary directories)."""
    marks = [str(d) for d in dirs]
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            line = _cmdline(int(entry.name))
            if any(mark in line for mark in marks) and _state(int(entry.name)) not in (None, "Z"):
                pids.add(int(entry.name))
    return pids


def cluster_raylets(dirs: list[Path]) -> set[int]:
    """The raylets of the cluster whose temporary directories are ``dirs``."""
    return {pid for pid in cluster_pids(dirs) if "/raylet/raylet " in _cmdline(pid) + " "}


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # after "pid (name) ": state, ppid, pgrp, session, ...


def _state(pid: int) -> str | None:
    stat = _stat(pid)
    return stat[0] if stat else None


def session_pids(session: int) -> set[int]:
    """Live processes of a session (the session of a ``ray start`` started with ``start_new_session``)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] != "Z" and int(stat[3]) == session:
                pids.add(int(entry.name))
    return pids


def end_sessions(starters: list[subprocess.Popen], grace: float = 5.0) -> None:
    """End every process of the starters' sessions: SIGTERM, then SIGKILL what is left after ``grace``."""
    sessions = [p.pid for p in starters]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for session in sessions:
            for pid in session_pids(session):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + (grace if sig == signal.SIGTERM else 10.0)
        while time.monotonic() < deadline and any(session_pids(s) for s in sessions):
            time.sleep(0.2)
        for p in starters:
            try:
                p.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        if not any(session_pids(s) for s in sessions):
            return


@pytest.fixture
def two_node_cluster():
    """``(address, env, dirs)`` of a running two-node cluster; ``env``: a driver's environment,
    ``dirs``: the nodes' temporary directories (which name the cluster's processes)."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    dirs = [Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp")) for prefix in ("rh", "rn")]  # short: socket paths
    # a token of this cluster's own, for its nodes and its driver
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "RAY_USAGE_STATS_ENABLED": "0",
        "OMP_NUM_THREADS": "1",
    }
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats", "--block"]
    commands = [
        [str(RAY), "start", "--head", f"--port={port}", f"--temp-dir={dirs[0]}", "--include-dashboard=false", *common],
        [str(RAY), "start", f"--address={address}", f"--temp-dir={dirs[1]}", '--resources={"second_node": 1}', *common],
    ]
    starters: list[subprocess.Popen] = []
    try:
        for command, directory in zip(commands, dirs):
            with open(directory / "ray-start.log", "w") as log:
                starters.append(
                    subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
                )
        yield address, env, dirs
    finally:
        end_sessions(starters)
        deadline = time.monotonic() + 10
        while cluster_pids(dirs) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = cluster_pids(dirs)
        for directory in dirs:
            shutil.rmtree(directory, ignore_errors=True)
    # nothing of the cluster is left; nothing else on the machine was looked at
    assert not left, {pid: _cmdline(pid)[:200] for pid in left}
    assert not any(session_pids(p.pid) for p in starters)


#: The driver: joins the cluster once both nodes are up, trains PPO on each id with the env
#: runners on the second node, and prints one JSON line per id.
DRIVER = r"""
import json, sys, time
import ray
from gym_suite.training import single_thread_torch
from gym_suite.training.rllib import rllib_config

address, ids, batch, iterations = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
deadline, problem = time.monotonic() + 120, None
while True:
    try:
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False)
        nodes = [n for n in ray.nodes() if n["Alive"]]
        second = [n["NodeID"] for n in nodes if n["Resources"].get("second_node")]
        if len(nodes) == 2 and second:
            break
    except Exception as exc:
        problem = exc
    if time.monotonic() > deadline:
        raise SystemExit(f"the cluster did not come up: {problem!r}")
    time.sleep(0.5)
single_thread_torch()


def count_by_node(*, env_runner, metrics_logger, samples, **kwargs):
    node = ray.get_runtime_context().get_node_id()
    metrics_logger.log_value(("env_steps_by_node", node), sum(len(e) for e in samples), reduce="sum")


for env_id in ids:
    config = (
        rllib_config(env_id, num_env_runners=1, num_envs_per_env_runner=2, seed=0,
                     train_batch_size_per_learner=batch, minibatch_size=100, num_epochs=1)
        .env_runners(custom_resources_per_env_runner={"second_node": 1})
        .callbacks(on_sample_end=count_by_node)
    )
    algo = config.build_algo()
    try:
        runners = algo.env_runner_group.foreach_env_runner(
            lambda r: (ray.get_runtime_context().get_node_id(), type(r.env.unwrapped).__name__),
            local_env_runner=False,
        )
        for _ in range(iterations):
            result = algo.train()
    finally:
        algo.stop()
    print(json.dumps({
        "id": env_id, "second_node": second[0], "driver_node": ray.get_runtime_context().get_node_id(),
        "runners": runners, "by_node": result["env_runners"]["env_steps_by_node"],
        "sampled": result["env_runners"]["num_env_steps_sampled_lifetime"],
    }), flush=True)
ray.shutdown()
"""


def test_env_runners_sample_on_the_second_node(two_node_cluster, tmp_path):
    """A few PPO iterations on every id, sampled by one env runner that can only live on the
    second node; the samples are counted by the node where they were made."""
    address, env, dirs = two_node_cluster
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, address, json.dumps(ALL_IDS), str(BATCH), str(ITERATIONS)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert len(cluster_raylets(dirs)) == 2  # the cluster's two raylets are running
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["id"] for r in results] == ALL_IDS
    for r in results:
        second = r["second_node"]
        assert r["driver_node"] != second  # the driver joined through the head
        assert [node for node, _ in r["runners"]] == [second], r
        assert r["runners"][0][1].endswith("VectorEnv"), r  # the id's native vector env, made on the second node
        assert set(r["by_node"]) == {second}, r  # every sample of the last iteration was made there
        assert r["by_node"][second] >= BATCH, r
        assert r["sampled"] >= ITERATIONS * BATCH, r


@pytest.mark.parametrize("name", ["raylet", "ray/core/src/ray/raylet/raylet"])
def test_other_processes_are_not_the_clusters(tmp_path, name):
    """A process of someone else's (its command line says raylet) is not counted as the cluster's,
    however it comes and goes; one naming the cluster's directory is."""
    ours = [tmp_path / "rh", tmp_path / "rn"]
    foreign = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", f"/tmp/other/{name}"])
    own = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", f"--temp-dir={ours[1]}"])
    try:
        deadline = time.monotonic() + 10
        while own.pid not in cluster_pids(ours) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert cluster_pids(ours) == {own.pid}
        assert foreign.pid not in cluster_pids(ours) and not cluster_raylets(ours)
    finally:
        for process in (foreign, own):
            process.kill()
            process.wait()
    assert not cluster_pids(ours)
