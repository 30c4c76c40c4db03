import sys

from gym_suite.cli import main

sys.exit(main())
