"""Loads flux's extension module, or says in one line why it cannot.

The module is built for one interpreter (python/CMakeLists.txt records which,
in flux/_build.py) and needs numpy; under another interpreter, or without
numpy, `import flux` raises ImportError naming the interpreter it needs and
how to build for this one.
"""

import glob
import os
import sys
import sysconfig


def _built_for():
    try:
        from . import _build
    except ImportError:
        return None, None
    return _build.PYTHON, _build.PYTHON_VERSION


def _same(a, b):
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, TypeError):
        return False


def _one_line(text):
    return " ".join(str(text).split())


def load():
    """Imports numpy and flux._flux; raises a one-line ImportError if either fails."""
    python, version = _built_for()
    this = f"{sys.version_info.major}.{sys.version_info.minor}"
    build_here = (f"build flux for this interpreter: {sys.executable} -m pip install "
                  f"--no-build-isolation <flux source tree> (python/README.md)")
    try:
        import numpy  # noqa: F401
    except ImportError:
        other = (f", or run {python}, which flux was built for"
                 if python and not _same(python, sys.executable) else "")
        raise ImportError(
            f"flux needs numpy, which {sys.executable} (Python {this}) does not have: install "
            f"it for this interpreter (pip install numpy; Debian: apt install python3-numpy)"
            f"{other}") from None
    try:
        from . import _flux
    except ImportError as e:
        here = os.path.dirname(os.path.abspath(__file__))
        modules = sorted(os.path.basename(f) for f in glob.glob(os.path.join(here, "_flux*.so")))
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        if not modules:
            problem = f"its extension module flux._flux is not built (in {here})"
        elif not any(m.endswith(suffix) for m in modules):
            problem = (f"its extension module was built for {python or modules[0]} "
                       f"(Python {version or '?'}), not for {sys.executable} (Python {this})")
        else:
            problem = f"its extension module does not load ({_one_line(e)})"
        raise ImportError(f"flux cannot be imported: {problem}; {build_here}") from None
    return _flux
