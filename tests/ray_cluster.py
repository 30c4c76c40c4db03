"""A real two-node Ray cluster on this machine (``two_node_cluster``, ``isolated_cluster``).

Each node is a ``ray start`` of its own session, directory and port, with a resource ``head_node`` or ``second_node``.
The teardown ends the processes of the two sessions and those naming the nodes' directories, by their ids (never
``ray stop --force``, which would stop every Ray of the machine).
"""

from __future__ import annotations

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

RAY = Path(sys.executable).parent / "ray"

#: A driver that waits until both nodes are up and prints their node ids as JSON.
WAIT_FOR_NODES = r"""
import json, sys, time
import ray

address, deadline, problem = sys.argv[1], time.monotonic() + 120, None
while True:
    try:
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False)
        nodes = [n for n in ray.nodes() if n["Alive"]]
        head = [n["NodeID"] for n in nodes if n["Resources"].get("head_node")]
        second = [n["NodeID"] for n in nodes if n["Resources"].get("second_node")]
        if len(nodes) == 2 and head and second:
            break
    except Exception as exc:
        problem = exc
    if time.monotonic() > deadline:
        raise SystemExit(f"the cluster did not come up: {problem!r}")
    time.sleep(0.5)
print(json.dumps({"head": head[0], "second": second[0]}))
ray.shutdown()
"""


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
    return (_stat(pid) or [None])[0]


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


def can_isolate() -> bool:
    """Whether this machine lets a process have a mount namespace of its own (root, ``unshare``)."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = ["unshare", "-m", "--propagation", "private", "sh", "-c", "mount -t tmpfs tmpfs /mnt"]
    return subprocess.run(probe, capture_output=True, timeout=30).returncode == 0


def isolated(command: list[str], hidden: list[Path]) -> list[str]:
    """``command`` in a mount namespace of its own where each of ``hidden`` is an empty folder (another machine's)."""
    mounts = " && ".join(f"mount -t tmpfs tmpfs '{path}'" for path in hidden)
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", f'{mounts} && exec "$@"', "sh", *command]


@pytest.fixture
def two_node_cluster():
    """``(address, env, dirs)``: a running cluster, a driver's environment, the nodes' temporary directories."""
    yield from _cluster()


@pytest.fixture
def isolated_cluster(request):
    """Nodes with an environment of their own (param ``node_env``), the second not seeing param ``hidden``."""
    yield from _cluster(hidden=request.param["hidden"], node_env=request.param["node_env"])


def _cluster(hidden: list[Path] | None = None, node_env: dict[str, str] | None = None):
    port = free_port()
    address = f"127.0.0.1:{port}"
    dirs = [Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp")) for prefix in ("rh", "rn")]  # short: socket paths
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),  # the cluster's own
           "RAY_USAGE_STATS_ENABLED": "0", "OMP_NUM_THREADS": "1"}  # fmt: skip
    nodes_env = env
    if node_env is not None:  # the nodes: only what a node of its own has, and the cluster's token
        keep = ("PATH", "HOME", "LANG", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_USAGE_STATS_ENABLED", "OMP_NUM_THREADS")
        nodes_env = {**{k: env[k] for k in keep if k in env}, **node_env}
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats", "--block"]
    commands = [
        [
            str(RAY), "start", "--head", f"--port={port}", f"--temp-dir={dirs[0]}", "--include-dashboard=false",
            '--resources={"head_node": 1}', *common,
        ],
        [str(RAY), "start", f"--address={address}", f"--temp-dir={dirs[1]}", '--resources={"second_node": 1}', *common],
    ]  # fmt: skip
    if hidden:
        commands[1] = isolated(commands[1], hidden)
    starters: list[subprocess.Popen] = []
    try:
        for command, directory in zip(commands, dirs):
            with open(directory / "ray-start.log", "w") as log:
                kwargs = {"stdout": log, "stderr": subprocess.STDOUT, "env": nodes_env, "start_new_session": True}
                starters.append(subprocess.Popen(command, **kwargs))
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
