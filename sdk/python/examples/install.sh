#!/bin/sh
# install.sh WHEEL: install referee from its wheel file into a new virtual
# environment, with no package index, and run it both ways.
set -eu
python3 -m venv .venv
.venv/bin/pip install --no-index "$1"
.venv/bin/referee version
.venv/bin/python -m referee version
