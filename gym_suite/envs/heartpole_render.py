"""Pictures of heartpole-v0 and heartpole-v1: the step's log (ansi) and a dashboard (rgb_array)."""

from __future__ import annotations

import numpy as np

from gym_suite.envs.heartpole_env import (
    ACTION_NAMES,
    BALLMER_PEAK,
    HEART_ATTACK_HYPERTENSION,
    STATE_NAMES,
    TIRING_ONSET,
)

# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------

#: rgb_array: each bar is filled to v / (|v| + scale) of its length (half full at v == scale):
#: alertness at a fresh wake-up, hypertension at the heart-attack midpoint, intoxication at the
#: Ballmer peak, time_since_slept at the onset of tiring, time_elapsed at one day, work_done
#: at 100 units. Signed quantities grow from the middle.
DASHBOARD_SCALES = (1.0, HEART_ATTACK_HYPERTENSION, BALLMER_PEAK, TIRING_ONSET, 48.0, 100.0)
DASHBOARD_SIGNED = (True, False, False, False, False, True)
DASHBOARD_COLOURS = ((230, 180, 30), (200, 40, 40), (150, 60, 190), (60, 110, 200), (110, 110, 110), (40, 160, 70))
ACTION_COLOURS = ((150, 150, 150), (120, 70, 30), (220, 170, 40), (40, 40, 120))
BAR_HEIGHT, BAR_GAP, FRAME_WIDTH, MARGIN = 14, 6, 240, 8


def ansi_log(state, last_action, heart_attack) -> str:
    """The step's log: the chosen action, ``HEART ATTACK`` when one happened, the state."""
    chosen = "none (reset)" if last_action < 0 else ACTION_NAMES[last_action]
    quantities = "  ".join(f"{name} {value:.4g}" for name, value in zip(STATE_NAMES, state))
    return f"Chosen action: {chosen}\n" + ("HEART ATTACK\n" if heart_attack else "") + quantities + "\n"


def rgb_dashboard(state, last_action, heart_attack) -> np.ndarray:
    """A small image: one bar per quantity, the four actions below (the chosen one lit), a red
    frame on a heart attack."""
    height = MARGIN + len(STATE_NAMES) * (BAR_HEIGHT + BAR_GAP) + BAR_HEIGHT + MARGIN
    frame = np.full((height, FRAME_WIDTH, 3), 245, dtype=np.uint8)
    length = FRAME_WIDTH - 2 * MARGIN
    for row, (value, scale, signed, colour) in enumerate(
        zip(state, DASHBOARD_SCALES, DASHBOARD_SIGNED, DASHBOARD_COLOURS)
    ):
        top = MARGIN + row * (BAR_HEIGHT + BAR_GAP)
        frame[top : top + BAR_HEIGHT, MARGIN : MARGIN + length] = 215  # the bar's track
        fill = float(value) / (abs(float(value)) + scale)  # in (-1, 1)
        if signed:
            middle = MARGIN + length // 2
            end = middle + int(round(fill * (length // 2)))
            frame[top : top + BAR_HEIGHT, min(middle, end) : max(middle, end) + 1] = colour
            frame[top : top + BAR_HEIGHT, middle] = 60  # zero
        else:
            frame[top : top + BAR_HEIGHT, MARGIN : MARGIN + int(round(fill * length))] = colour
    top = MARGIN + len(STATE_NAMES) * (BAR_HEIGHT + BAR_GAP)
    slot = length // len(ACTION_NAMES)
    for action, colour in enumerate(ACTION_COLOURS):
        left = MARGIN + action * slot
        lit = action == last_action
        frame[top : top + BAR_HEIGHT, left + 2 : left + slot - 2] = colour if lit else 225
    if heart_attack:
        frame[:4], frame[-4:], frame[:, :4], frame[:, -4:] = 200, 200, 200, 200
        frame[:4, :, 1:] = frame[-4:, :, 1:] = frame[:, :4, 1:] = frame[:, -4:, 1:] = 0
    return frame
