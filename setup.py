"""Kept for tools that still look for a setup.py; the package metadata is in pyproject.toml."""

from setuptools import setup

setup()
