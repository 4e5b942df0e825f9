"""This package's version; scripts/build_wheels.py writes the real one into each wheel."""

__version__ = "0.0.0.dev0"  # PEP 440
REFEREE_VERSION = "0.0.0-dev"  # the referee binary's own (semver) version
