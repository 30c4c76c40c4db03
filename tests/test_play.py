"""``gym-suite play``: the window tests run it on their own Xvfb, driven by xdotool (one press, one step),
the return known by replaying the actions here, the screen read with ImageMagick's ``import``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from PIL import Image

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.evaluate import play as play_episode
from gym_suite.play import KEYS, ScorePanel, controls, controls_text, heading, keys_for, pixel_to_point
from gym_suite.quiet import make

pygame = pytest.importorskip("pygame", reason='gym-suite play needs pygame: pip install "gym-suite[render]"')

SCREEN = (1280, 1024)
EPISODE_LINE = re.compile(r"episode 1: return (-?[\d.]+) after (\d+) steps \((terminated|truncated)\)")


def replay(env_id: str, seed: int, actions, **make_kwargs) -> tuple[float, int, str]:
    """The return, length and end of the episode that ``actions`` play (they must end it)."""
    following = iter(actions)
    steps = list(play_episode(make(env_id, **make_kwargs), lambda _observation: next(following), seed))
    return sum(step.reward for step in steps), len(steps), "terminated" if steps[-1].terminated else "truncated"


@pytest.fixture
def digits_id():
    """A registered Discrete(4) id without keys of its own (heartpole's rules): the digit keys play it."""
    rules = {"definition": "gym_suite.envs.heartpole_env:HEARTPOLE", "params": "gym_suite.envs.heartpole_env:V0"}
    spec = gym_suite.register("playtest/pole-v0", **rules, max_episode_steps=10, summary="HeartPole, digit keys.")
    yield spec.id
    gym_suite.unregister(spec.id)


def test_play_help_describes_the_controls_play_uses(capsys, digits_id):
    """For every registered id, ``play --help`` shows the legend of the :func:`controls` ``play`` uses."""
    from gym_suite._registry import rows
    from gym_suite.cli import main

    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    ids = [spec.id for spec in rows()]
    assert digits_id in ids
    for env_id in ids:
        env = make(env_id, render_mode="rgb_array")  # as play makes it
        chosen = controls(env_id, env.action_space)
        assert f"  {env_id:<14} {chosen.legend()}\n" in out, env_id
        assert controls_text(chosen.keys, chosen.steered)[:-1] == chosen.panel_text()
        if chosen.keys is None:  # the mouse: a point to click or to steer towards
            assert "the mouse" in chosen.legend() and env.action_space.shape == (2,), env_id
            assert chosen.steered == (env_id == "target-v1")
        else:
            assert "mouse" not in chosen.legend() and not chosen.steered, env_id
            assert {key.action for key in chosen.keys} == set(range(env.action_space.n)), env_id
        env.close()
    digits = controls(digits_id, make(digits_id).action_space)
    assert [key.names for key in digits.keys] == [("0",), ("1",), ("2",), ("3",)]
    assert digits.legend() == "0 0  1 1  2 2  3 3"
    assert [key.label for key in KEYS["heartpole-v0"]] == ["nothing", "coffee", "beer", "sleep"]
    with pytest.raises(ValueError, match="cannot be played by hand"):
        keys_for("x-v0", gymnasium.spaces.Box(0, 1, (3,)))


def test_score_panel_counts_and_draws():
    from test_render import find_text

    from gym_suite.play import PANEL_DIM

    panel = ScorePanel(make("heartpole-v0", render_mode="rgb_array"), controls_text(KEYS["heartpole-v0"]))
    panel.reset(seed=0)
    picture = panel.render()
    assert picture.shape[1] >= 400 and picture.shape[0] > panel.env.render().shape[0] * panel.zoom
    check_frame_on(picture, panel.env.render(), panel.zoom, *panel.frame_offset)  # the env's own frame, enlarged
    panel.step(1)
    panel.step(1)
    picture = panel.render()
    assert panel.steps == 2 and panel.episode == 1
    small = picture[:: panel.text_scale, :: panel.text_scale]  # the text is drawn at twice the font's size
    assert find_text(small, "heartpole-v0  episode 1  step 2", PANEL_DIM)
    reward = f"reward {panel.last_reward:+.3f}   return {panel.episode_return:+.3f}"
    assert panel.panel_lines()[1][0] == reward
    assert find_text(small, reward, panel.panel_lines()[1][1])
    panel.close()


@pytest.mark.parametrize("env_id", ["target-v0", "example-v0"])
def test_score_panel_keeps_its_size_when_an_episode_ends(env_id):
    """The window does not widen nor the field move when the end-of-episode line shows."""
    from gym_suite.play import EPISODE_OVER

    env = make(env_id, render_mode="rgb_array")
    panel = ScorePanel(env, controls_text(keys_for(env_id, env.action_space)))
    panel.reset(seed=3)
    before, offset = panel.render().shape, panel.frame_offset
    panel.status = EPISODE_OVER  # what play shows when an episode ends
    assert panel.render().shape == before and panel.frame_offset == offset
    panel.status = ""
    panel.reset(seed=4)
    assert panel.render().shape == before and panel.frame_offset == offset
    panel.close()


def test_pixel_to_point_inverts_the_target_picture():
    env = make("target-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    size = env.unwrapped.size
    point = pixel_to_point(199, 40, (frame.shape[1], frame.shape[0]), env.action_space)
    assert point == pytest.approx([(199.5 / 400) * size, (40.5 / 400) * size])
    assert env.action_space.contains(pixel_to_point(10_000, -5, (400, 400), env.action_space))
    env.close()


def test_steered_worker_heads_for_the_pointer():
    """target-v1: the action heads for the field point under the pointer, at full speed, shorter within one unit."""
    np.testing.assert_allclose(heading((10.0, 10.0), (13.0, 14.0)), [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(heading((10.0, 10.0), (10.3, 9.6)), [0.3, -0.4], rtol=1e-6)
    assert heading((5.0, 5.0), (5.0, 5.0)).tolist() == [0.0, 0.0]
    env = make("target-v1", render_mode="rgb_array")
    panel = ScorePanel(env, controls_text(None, steered=True))
    panel.reset(seed=0)
    panel.render()
    state = env.unwrapped.state
    ppu, zoom, (left, top) = env.unwrapped.pixels_per_unit, panel.zoom, panel.frame_offset
    pixel = (left + int((state.worker_x + 20.0) * ppu * zoom), top + int(state.worker_y * ppu * zoom))
    if pixel[0] >= left + panel.frame_size[0] * zoom:  # the worker near the right wall: point left
        pixel = (left + int((state.worker_x - 20.0) * ppu * zoom), pixel[1])
    action = panel.steer_action(*pixel)
    assert abs(abs(float(action[0])) - 1.0) < 1e-3 and abs(float(action[1])) < 1e-2
    panel.close()


def test_without_pygame_exits_2_naming_the_extra():
    code = "import sys; sys.modules['pygame'] = None\nfrom gym_suite.cli import main\nsys.exit(main(['play', 'example-v0']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ['gym-suite play: playing needs pygame: pip install "gym-suite[render]"']


BAD_SCREENSHOTS = {
    "missing directory": lambda tmp: "/nonexistent/shot.png",
    "a directory": lambda tmp: str(tmp),
    "in /proc": lambda tmp: "/proc/shot.png",
    "a /proc file": lambda tmp: "/proc/self/status",
    "empty": lambda tmp: "",
    "NUL": lambda tmp: str(tmp / "a\x00.png"),
    "not a picture format": lambda tmp: str(tmp / "shot.gif"),
    "a path under a file": lambda tmp: str(tmp / "file.png" / "shot.png"),
}


@pytest.fixture
def no_display(monkeypatch):
    """No X display and SDL left to choose its driver: opening a window fails at once (pygame.error)."""
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    return dict(os.environ)


@pytest.mark.parametrize("case", list(BAD_SCREENSHOTS))
def test_a_bad_screenshot_path_is_refused_before_the_window_opens(tmp_path, case, no_display):
    (tmp_path / "file.png").write_bytes(b"")
    path = BAD_SCREENSHOTS[case](tmp_path)
    with pytest.raises(ValueError, match=r"^screenshot="):
        gym_suite.play.play("example-v0", episodes=1, screenshot=path)
    if case == "NUL":
        return  # a command line cannot hold one
    command = [sys.executable, "-m", "gym_suite", "play", "example-v0", "--screenshot", path]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=no_display)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("gym-suite play: error: argument --screenshot: screenshot=")


def test_a_good_screenshot_path_is_accepted_nothing_left_behind_and_numpy_integers_are_integers(tmp_path, no_display):
    from gym_suite.play import check_screenshot

    assert check_screenshot(None) is None
    assert check_screenshot(tmp_path / "shot.png") == str(tmp_path / "shot.png")
    assert not (tmp_path / "shot.png").exists()
    (tmp_path / "old.png").write_bytes(b"kept")
    assert check_screenshot(str(tmp_path / "old.png")) == str(tmp_path / "old.png")
    assert (tmp_path / "old.png").read_bytes() == b"kept"
    with pytest.raises(TypeError, match="screenshot must be None or a file path"):
        check_screenshot(3)
    with pytest.raises(ValueError, match="^screenshot="):
        gym_suite.play.play("example-v0", seed=np.int64(0), episodes=np.int64(1), screenshot="/nonexistent/x.png")
    for name, bad in [("seed", np.int64(-1)), ("episodes", np.int32(0)), ("seed", np.bool_(True)), ("episodes", 1.0),
                      ("episodes", 0)]:  # fmt: skip
        with pytest.raises(ValueError, match=f"^{name} must be"):
            gym_suite.play.play("example-v0", **{name: bad})
    for name, bad in [("env_kwargs", [1]), ("env_kwargs", {1: 2}), ("on_episode", 5)]:  # before the window opens
        with pytest.raises(TypeError, match=f"^play: {name} must"):
            gym_suite.play.play("example-v0", episodes=1, **{name: bad})


MISSING = [tool for tool in ("Xvfb", "xdotool", "import") if shutil.which(tool) is None]
needs_x = pytest.mark.skipif(
    bool(MISSING),
    reason=f"needs {', '.join(MISSING)} (apt-get install xvfb xdotool imagemagick) to play in a real window",
)


@pytest.fixture
def display():
    """A fresh X server on a free display number (Xvfb picks it: -displayfd)."""
    read, write = os.pipe()
    command = ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"]
    server = subprocess.Popen(command, pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as answer:
        number = answer.readline().strip()
    if not number:
        server.kill()
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    server.terminate()
    server.wait(timeout=30)


class Player:
    """``gym-suite play ...`` on ``display``, and the X events a person would make."""

    def __init__(self, display: str, args, tmp_path: Path):
        self.env = {**os.environ, "DISPLAY": display, "SDL_VIDEO_WINDOW_POS": "0,0", "SDL_AUDIODRIVER": "dummy"}
        self.env.pop("SDL_VIDEODRIVER", None)  # the tests' conftest asks for the dummy driver: a real window here
        self.tmp_path = tmp_path
        self.screenshot = tmp_path / "window.png"
        command = [sys.executable, "-m", "gym_suite", "play", *args, "--episodes", "1", "--screenshot", self.screenshot]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env
        )

    def x(self, *args) -> None:
        subprocess.run(args, check=True, env=self.env, timeout=30, capture_output=True)

    def screen(self) -> np.ndarray:
        path = self.tmp_path / "screen.png"
        self.x("import", "-window", "root", str(path))
        with Image.open(path) as image:
            return np.asarray(image.convert("RGB"))

    def wait_for_window(self, timeout: float = 60.0) -> np.ndarray:
        """The screen once the window shows a picture (the empty screen is one colour)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"gym-suite play exited early: {self.process.communicate()}")
            screen = self.screen()
            if len(np.unique(screen.reshape(-1, 3), axis=0)) > 3:
                return screen
            time.sleep(0.2)
        raise AssertionError("no window appeared on the X screen")

    def press(self, keys) -> None:
        """Press ``keys`` one after the other, each once, until the command exits."""
        self.x("xdotool", "mousemove", "5", "5")  # no window manager: the keyboard follows the pointer
        for key in keys:
            if self.process.poll() is not None:
                break
            try:
                self.x("xdotool", "key", key)
            except subprocess.CalledProcessError:  # the episode may have ended and closed its window:
                try:  # the key was not needed; while the command still runs, it is sent once more
                    self.process.wait(timeout=2)
                    break
                except subprocess.TimeoutExpired:
                    self.x("xdotool", "key", key)
            time.sleep(0.05)

    def finish(self, timeout: float = 60.0) -> str:
        """The command's output, once it has ended (with status 0)."""
        try:
            out, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"gym-suite play did not end its episode: {self.process.communicate()}") from None
        assert self.process.returncode == 0, err
        return out

    def episode(self, timeout: float = 60.0) -> tuple[float, int, str]:
        """The return, length and end of the episode the command played; its window's last picture saved."""
        out = self.finish(timeout)
        found = EPISODE_LINE.search(out)
        assert found, out
        with Image.open(self.screenshot) as image:
            assert len(np.unique(np.asarray(image.convert("RGB")).reshape(-1, 3), axis=0)) > 3, "a blank screenshot"
        return float(found[1]), int(found[2]), found[3]


def check_frame_on(screen: np.ndarray, frame: np.ndarray, zoom: int, left: int, top: int = 0) -> None:
    """The env's frame is on the screen (or picture) at ``left, top``, enlarged ``zoom`` times."""
    height, width = frame.shape[:2]
    shown = screen[top : top + height * zoom : zoom, left : left + width * zoom : zoom]
    assert np.array_equal(shown, frame), "the window does not show the environment's frame"


SLOW = pytest.mark.slow  # about 5 s each: example-v0 runs with the fast tests
KEY_GAMES = [  # id, make arguments on the command line, keys pressed, the actions they take
    pytest.param("example-v0", [], ["d"] * 12, [1] * 12, id="example-v0"),
    pytest.param("heartpole-v0", ["max_episode_steps=4"], list("cbsn"), [1, 2, 3, 0], id="heartpole-v0", marks=SLOW),
    pytest.param("push-v0", ["episode_length=3"], ["d", "h", "d"], [1, 0, 1], id="push-v0", marks=SLOW),
    pytest.param("push-v1", ["daily_budget=1"], ["h", "d"], [0, 1], id="push-v1", marks=SLOW),  # one delivery a day
]


@needs_x
@pytest.mark.parametrize("env_id, kwargs, keys, actions", KEY_GAMES)
def test_keys_play_an_episode_in_a_window(display, tmp_path, env_id, kwargs, keys, actions):
    import ast

    make_kwargs = {k: ast.literal_eval(v) for k, v in (item.split("=") for item in kwargs)}
    args = [env_id, "--seed", "3"] + (["--env-kwargs", *kwargs] if kwargs else [])
    player = Player(display, args, tmp_path)
    screen = player.wait_for_window()
    panel = ScorePanel(make(env_id, render_mode="rgb_array", **make_kwargs), controls_text(keys_for(env_id, None)))
    panel.reset(seed=3)
    picture = panel.render()  # what the window shows before the first key
    check_frame_on(screen, panel.env.render(), panel.zoom, panel.frame_offset[0])
    assert np.array_equal(screen[: picture.shape[0], : picture.shape[1]], picture), "the panel is not on screen"
    panel.close()
    player.press(keys)
    played, expected = player.episode(), replay(env_id, 3, actions, **make_kwargs)
    assert played[0] == pytest.approx(expected[0], abs=5e-4) and played[1:] == expected[1:], (played, expected)


@needs_x
@pytest.mark.slow
def test_mouse_click_and_drag_move_the_worker(display, tmp_path):
    """target-v0: a click moves the worker there (a miss), a drag on to the target ends the episode: -1 + 1."""
    env = make("target-v0", render_mode="rgb_array")
    panel = ScorePanel(env, controls_text(None))
    obs, _ = panel.reset(seed=5)
    panel.render()
    ppu, zoom, (left, top) = env.unwrapped.pixels_per_unit, panel.zoom, panel.frame_offset
    target = obs[2:4]
    miss = np.where(target > env.unwrapped.size / 2, 2.0, env.unwrapped.size - 2.0)  # the far corner
    to_pixel = [int(left + target[0] * ppu * zoom), int(top + target[1] * ppu * zoom)]
    from_pixel = [int(left + miss[0] * ppu * zoom), int(top + miss[1] * ppu * zoom)]
    assert replay("target-v0", 5, [miss, target]) == (0.0, 2, "terminated")
    player = Player(display, ["target-v0", "--seed", "5"], tmp_path)
    screen = player.wait_for_window()
    check_frame_on(screen, env.render(), zoom, left)
    panel.close()
    player.x("xdotool", "mousemove", *map(str, from_pixel), "mousedown", "1")
    player.x("xdotool", "mousemove", *map(str, to_pixel))
    player.x("xdotool", "mouseup", "1")
    assert player.episode() == (0.0, 2, "terminated")


@needs_x
@pytest.mark.slow
def test_steered_chase_runs_on_its_own_after_a_click(display, tmp_path):
    """target-v1: after a click the worker heads for the pointer on its own until caught or 300 steps; -1 a step."""
    player = Player(display, ["target-v1", "--seed", "5"], tmp_path)
    player.wait_for_window()
    player.x("xdotool", "mousemove", "200", "200", "click", "1")
    total, steps, _ = player.episode(timeout=120)
    assert total == -steps and 1 <= steps <= 300


@needs_x
@pytest.mark.slow
def test_escape_quits(display, tmp_path):
    player = Player(display, ["heartpole-v1", "--seed", "0"], tmp_path)
    player.wait_for_window()
    player.press(["c", "Escape"])
    assert "episode 1:" not in player.finish()  # quit before the episode ended


def test_a_bar_shows_a_value_past_its_range_as_such(monkeypatch):
    """Heartpole's alertness at -257 (its bar reads to 10): the bar full, an arrow at its end, the number above."""
    from gym_suite.envs.heartpole_env import BAR_HEIGHT, LABEL_HEIGHT, MARGIN, OVERFLOW_RGB, rgb_dashboard, value_text

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    pygame.display.init()
    try:

        def alertness_bar(alertness: float) -> np.ndarray:
            frame = rgb_dashboard((alertness, 0.0, 0.0, 0.0, 0.0, 0.0), -1, False)
            surface = pygame.surfarray.make_surface(frame.swapaxes(0, 1))  # what the window shows
            shown = pygame.surfarray.array3d(surface).swapaxes(0, 1)
            top = MARGIN + LABEL_HEIGHT
            return shown[top : top + BAR_HEIGHT]

        past, inside, far = alertness_bar(-257.0), alertness_bar(-9.0), alertness_bar(-1e9)
        assert not np.array_equal(past, inside)
        assert (past[:, MARGIN] == OVERFLOW_RGB).all(axis=-1).all()  # the arrow at the bar's left end
        assert not (inside == OVERFLOW_RGB).all(axis=-1).any()
        assert np.array_equal(past, far)  # past the range, the number tells how far
        assert value_text(-257.0) == "-257.0"
    finally:
        pygame.display.quit()
