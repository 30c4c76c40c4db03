"""The suite's environments, one module each (see ``gym_suite.SPECS`` for their ids)."""
