"""Builds flux's extension module with CMake for the interpreter running this.

`pip install --no-build-isolation .` (python/README.md) calls it: CMake
configures build/pip/<interpreter tag>/ for sys.executable (the Python
module's targets only: no tests, no benchmarks), builds flux_python, and the
module and its flux/_build.py go into the wheel beside python/flux/*.py.
FLUX_BUILD_DIR=<dir> uses a build directory already configured for this
interpreter instead (its options are left as they are).
"""

import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def built_for(build_dir):
    """The interpreter a flux build directory builds the module for (its
    python/flux/_build.py), or None."""
    try:
        with open(os.path.join(build_dir, "python", "flux", "_build.py"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("PYTHON = "):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("FLUX_BUILD_DIR")
        if given:
            build_dir = os.path.abspath(given)
            python = built_for(build_dir)
            if python is None:
                sys.exit(f"setup.py: FLUX_BUILD_DIR={given}: not a build of flux's Python module")
            if os.path.realpath(python) != os.path.realpath(sys.executable):
                sys.exit(f"setup.py: FLUX_BUILD_DIR={given} builds for {python}, "
                         f"not {sys.executable}: unset it to build for this interpreter")
        else:
            tag = sysconfig.get_config_var("SOABI") or "py"
            build_dir = os.path.join(ROOT, "build", "pip", tag)
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.check_call(
                ["cmake", "-S", ROOT, "-B", build_dir, *generator, "-DCMAKE_BUILD_TYPE=Release",
                 "-DFLUX_BUILD_TESTS=OFF", "-DFLUX_BUILD_BENCH=OFF", "-DFLUX_PYTHON=ON",
                 f"-DPython_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "flux_python",
                               "--parallel", str(os.cpu_count() or 1)])
        built = os.path.join(build_dir, "python", "flux")
        module = os.path.join(built, "_flux" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not os.path.isfile(module):
            sys.exit(f"setup.py: no {module} (CMake built the module for "
                     f"{built_for(build_dir)})")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(module, target)
        shutil.copyfile(os.path.join(built, "_build.py"),
                        os.path.join(os.path.dirname(target), "_build.py"))


setup(ext_modules=[Extension("flux._flux", sources=[])], cmdclass={"build_ext": CMakeBuild})
