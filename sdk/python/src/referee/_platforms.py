"""The platforms referee's wheels are built for, and which one this Python runs on.

Standard library only, and importable on its own: scripts/build_wheels.py loads this file
by path to name its wheels, so the wheels' tags and the binary's lookup share one table.
"""

import platform
import sys

# Go's GOOS-GOARCH (the directory release/packages.sh writes each binary to) → the
# wheel's platform tag and the binary's file name. A Go binary built with CGO_ENABLED=0
# is static, so one Linux wheel per architecture serves glibc (manylinux) and musl
# (musllinux) alike. Go 1.26 needs macOS 12 or later.
PLATFORMS = {
    "linux-amd64": (
        "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
        "referee",
    ),
    "linux-arm64": (
        "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
        "referee",
    ),
    "darwin-amd64": ("macosx_12_0_x86_64", "referee"),
    "darwin-arm64": ("macosx_12_0_arm64", "referee"),
    "windows-amd64": ("win_amd64", "referee.exe"),
    "windows-arm64": ("win_arm64", "referee.exe"),
}

_OS = {"linux": "linux", "darwin": "darwin", "win32": "windows", "cygwin": "windows"}
_ARCH = {"x86_64": "amd64", "amd64": "amd64", "x64": "amd64", "aarch64": "arm64", "arm64": "arm64"}


def current():
    """This interpreter's platform as GOOS-GOARCH (linux-amd64), whether or not a wheel exists for it."""
    goos = _OS.get(sys.platform)
    if goos is None:
        goos = sys.platform.rstrip("0123456789") or "unknown"
    machine = platform.machine().lower()
    return "%s-%s" % (goos, _ARCH.get(machine, machine or "unknown"))


def binary_name():
    """The binary's file name on this platform: referee, or referee.exe on Windows."""
    return "referee.exe" if sys.platform in ("win32", "cygwin") else "referee"
