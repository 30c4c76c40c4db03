"""Package metadata for gym-suite (the build system and tool settings are in pyproject.toml)."""

import re
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).parent
VERSION = re.search(r'^__version__ = "([^"]+)"', (HERE / "gym_suite" / "__init__.py").read_text(), re.M).group(1)

INSTALL_REQUIRES = [
    "gymnasium>=1.0,<2",
    "numpy>=1.24",
    "pandas>=2.0",
    "joblib>=1.3",
]

EXTRAS_REQUIRE = {
    # the legacy OpenAI gym API (unmaintained; gym_suite adapts it to numpy 2)
    "gym": ["gym==0.26.2"],
    # pictures: the pygame window of target-v0 and the GIF recorder
    "render": ["pygame>=2.5", "pillow>=10"],
    # training on one machine; install torch==2.13.0 (CPU) first where the CUDA build is too big
    "sb3": ["stable-baselines3>=2.3", "tqdm", "rich"],
    # training on a cluster
    "rllib": ["ray[rllib]>=2.40"],
    "test": [
        "pytest>=7",
        "build>=1",
        "twine>=5",
        "pypiserver>=2",
        "passlib",
        "gym==0.26.2",
        "stable-baselines3>=2.3",
        "pillow>=10",
        "pygame>=2.5",  # gymnasium 1.2's check_env opens every declared render mode, "human" included
        "pyyaml",
    ],
}

setup(
    name="gym-suite",
    version=VERSION,
    description="A suite of custom reinforcement-learning environments for Gymnasium and gym",
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="MIT",
    python_requires=">=3.10",
    packages=find_packages(include=["gym_suite", "gym_suite.*"]),
    package_data={"gym_suite.envs": ["data/*"]},
    include_package_data=True,
    install_requires=INSTALL_REQUIRES,
    extras_require=EXTRAS_REQUIRE,
    entry_points={
        "console_scripts": ["gym-suite = gym_suite.cli:main"],
        # gym imports this hook on `import gym`; `__root__` keeps the ids un-namespaced
        "gym.envs": ["__root__ = gym_suite._gym:register_gym"],
    },
    classifiers=[
        "Programming Language :: Python :: 3",
        "License :: OSI Approved :: MIT License",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)
