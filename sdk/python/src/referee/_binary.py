"""Finding the referee binary: REFEREE_BIN, then the wheel's copy, then PATH."""

import os
import shutil
import sys
import sysconfig

from . import _platforms
from ._errors import RefereeNotFound
from ._version import __version__


def _is_exe(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _scripts_dir(**kwargs):
    try:
        return sysconfig.get_path("scripts", **kwargs)
    except (KeyError, ValueError):  # an unknown scheme on this platform
        return None


def _user_scheme():
    get = getattr(sysconfig, "get_preferred_scheme", None)  # Python 3.10+
    if get is not None:
        return get("user")
    if sys.platform == "darwin" and getattr(sys, "_framework", ""):
        return "osx_framework_user"
    return "%s_user" % os.name


def wheel_candidates():
    """Where an installed wheel puts the binary, most likely first (the paths, not checked)."""
    exe = _platforms.binary_name()
    dirs = [_scripts_dir()]  # this interpreter's scheme: the venv's bin, or the system's
    here = os.path.dirname(os.path.abspath(__file__))  # .../site-packages/referee
    site = os.path.dirname(here)
    # pip install --target T puts the package in T and the scripts in T/bin.
    dirs.append(os.path.join(site, "bin"))
    # pip install --prefix P (or a base interpreter seen from a venv): the package is in
    # P/lib/pythonX.Y/site-packages (P/Lib/site-packages on Windows), the scripts in P/bin
    # (P/Scripts).
    if os.path.basename(site) in ("site-packages", "dist-packages"):
        if os.name == "nt":
            dirs.append(os.path.join(os.path.dirname(os.path.dirname(site)), "Scripts"))
        else:
            dirs.append(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(site))), "bin"))
    dirs.append(_scripts_dir(vars={"base": sys.base_prefix, "platbase": sys.base_prefix}))
    try:
        dirs.append(_scripts_dir(scheme=_user_scheme()))  # pip install --user
    except (KeyError, ValueError, AttributeError):
        pass
    seen, out = set(), []
    for d in dirs:
        if d and os.path.normcase(os.path.abspath(d)) not in seen:
            seen.add(os.path.normcase(os.path.abspath(d)))
            out.append(os.path.join(d, exe))
    return out


def not_found_message(searched, env=None):
    """The error for a missing binary: this platform, what was searched, and what to install."""
    env = os.environ if env is None else env
    plat = _platforms.current()
    entry = _platforms.PLATFORMS.get(plat)
    lines = ["no referee binary for this platform, %s (Python %s on %s)" % (
        plat, ".".join(map(str, sys.version_info[:2])), sys.platform)]
    lines.append("looked for REFEREE_BIN (not set), then in:")
    lines.extend("  " + p for p in searched)
    lines.append("  PATH (%s)" % (env.get("PATH") or "empty"))
    if entry is None:
        lines.append(
            "no referee wheel is built for %s (wheels exist for %s): build referee from "
            "source (go build ./cmd/referee) and set REFEREE_BIN to it, or put it on PATH"
            % (plat, ", ".join(sorted(_platforms.PLATFORMS))))
    else:
        lines.append(
            "install the wheel built for this platform, referee-%s-py3-none-%s.whl "
            "(pip install --no-index referee-%s-py3-none-%s.whl), or put referee on PATH, "
            "or set REFEREE_BIN to a referee binary" % (__version__, entry[0], __version__, entry[0]))
    return "\n".join(lines)


def find_referee(env=None):
    """The path of the referee binary to run.

    In this order: the environment variable REFEREE_BIN (a path; if it is set but names no
    file, that is an error), then the binary an installed referee wheel put in its scripts
    directory, then `referee` on PATH. Raises RefereeNotFound, naming this platform and
    what to install, when there is none.
    """
    env = os.environ if env is None else env
    given = env.get("REFEREE_BIN")
    if given:
        if os.path.isfile(given):
            if not os.access(given, os.X_OK):
                raise RefereeNotFound("REFEREE_BIN is set to %r, which is not executable" % given)
            return given
        raise RefereeNotFound(
            "REFEREE_BIN is set to %r, but there is no file there: point it at a referee "
            "binary, or unset it to use the wheel's binary or referee on PATH" % given)
    searched = wheel_candidates()
    for path in searched:
        if _is_exe(path):
            return path
    found = shutil.which(_platforms.binary_name(), path=env.get("PATH", os.defpath))
    if found:
        return found
    raise RefereeNotFound(not_found_message(searched, env))
