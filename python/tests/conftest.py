"""Shared fixtures: the flux binary (FLUX_BIN, set by ctest; else the
checkout's build/apps/flux/flux) for cross-checks against the CLI, and small
workloads generated once per session."""

import os
import pathlib
import subprocess

import pytest

import flux

ROOT = pathlib.Path(__file__).resolve().parents[2]
WALL = ("wall_s", "solve_time_s")  # wall-time columns: differ from run to run


def without_wall(path):
    """A CSV's lines without its wall-time columns."""
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    keep = [i for i, name in enumerate(header) if name not in WALL]
    return [",".join(line.split(",")[i] for i in keep) for line in lines]


@pytest.fixture(scope="session")
def flux_bin():
    path = os.environ.get("FLUX_BIN", str(ROOT / "build" / "apps" / "flux" / "flux"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"no flux binary at {path} (set FLUX_BIN)")
    return path


@pytest.fixture(scope="session")
def cli(flux_bin):
    """cli(*args, ok=True): runs the flux binary; returns the CompletedProcess."""

    def run(*args, ok=True):
        p = subprocess.run([flux_bin, *map(str, args)], capture_output=True, text=True)
        if ok and p.returncode != 0:
            raise AssertionError(f"flux {' '.join(map(str, args))}: exit {p.returncode}\n{p.stderr}")
        return p

    return run


# The paper's small instance: Llama 3 8B, 2 layers, TP4 x DP2 (8 GPUs).
LLAMA = dict(model="8b", layers=2, tp=4, dp=2)
LLAMA_FLAGS = ["--model", "8b", "--layers", "2", "--tp", "4", "--dp", "2"]


@pytest.fixture(scope="session")
def llama():
    return flux.generate.llama3(**LLAMA)


@pytest.fixture(scope="session")
def llama_file(tmp_path_factory, llama):
    path = tmp_path_factory.mktemp("w") / "w.json"
    flux.write_workload(llama, path)
    return path
