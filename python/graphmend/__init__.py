"""graphmend: finds and fixes torch.compile graph breaks in Python source.

The tool is a native binary installed on PATH; this package only locates it, for
`python -m graphmend`.
"""

import os
import sys
import sysconfig

__all__ = ["find_graphmend_bin"]


def _user_scheme() -> str:
    if os.name == "nt":
        return "nt_user"
    return "osx_framework_user" if sys.platform == "darwin" else "posix_user"


def find_graphmend_bin() -> str:
    """The path of the graphmend binary installed with this package."""
    name = "graphmend" + (sysconfig.get_config_var("EXE") or "")
    candidates = [sysconfig.get_path("scripts")]
    try:
        candidates.append(sysconfig.get_path("scripts", scheme=_user_scheme()))
    except KeyError:
        pass
    # `pip install --prefix P`: P/lib/pythonX.Y/site-packages/graphmend -> P/bin.
    package = os.path.dirname(os.path.abspath(__file__))
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(package))))
    candidates.append(os.path.join(prefix, "bin"))
    for folder in candidates:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    looked = ", ".join(candidates)
    raise FileNotFoundError(f"the graphmend binary was not found (looked in: {looked})")
