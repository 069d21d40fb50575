"""Design-space sweeps from Python: flux.sweep runs a sweep file (docs/formats.md,
"Sweep files") as `flux sweep SPEC -o DIR` does and returns its rows;
flux.read_sweep_csv reads the CSV of any sweep or evaluation."""

import os
import re

import numpy as np

from . import _flux
from .errors import InputError

__all__ = ["SweepResult", "read_sweep_csv", "sweep"]

_INT = re.compile(r"-?[0-9]+\Z")


class SweepResult(dict):
    """A sweep's rows as columns: {column: numpy array}, one entry per point, in
    the points' order (pandas.DataFrame(result) makes the table). Also:

    csv: the CSV file; summary: the text `flux sweep` prints (also in
    <name>-summary.txt); points: points of the sweep; ran: points this call
    ran; resumed: points whose rows the CSV already had.
    """

    csv: str
    summary: str
    points: int
    ran: int
    resumed: int


def _column(name, values):
    if values and all(_INT.match(v) for v in values):
        return np.array([int(v) for v in values], dtype=np.int64)
    numbers = []
    for v in values:
        if v == "":
            numbers.append(np.nan)
            continue
        try:
            numbers.append(float(v))
        except ValueError:
            return np.array(values, dtype=str)
    if all(np.isnan(numbers)):  # every field empty: no type to infer
        return np.array(values, dtype=str)
    return np.array(numbers, dtype=np.float64)


def read_sweep_csv(path):
    """Reads the CSV of `flux sweep` (<name>.csv) or `flux evaluate` (fig2.csv) as
    columns: {name: numpy array}. A column of integers is int64; of numbers,
    float64 with NaN where a field is empty (a metric a scheduler or a failed point
    does not have); anything else str. A name given twice (an axis that is also a
    metric: layers, tp, dp, scheduler) is kept once, from its first column (the
    axis, which failed points also fill). Raises flux.InputError naming the file
    and the line on a row of the wrong length.
    """
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"{name}: {e.strerror}", name, "", "", e.strerror) from None
    if not lines:
        problem = "empty: expected a header line"
        raise InputError(f"{name}: {problem}", name, "", "", problem)
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:] if line]
    for k, row in enumerate(rows):
        if len(row) != len(header):
            field = f"line {k + 2}"
            problem = f"has {len(row)} fields, the header {len(header)}"
            raise InputError(f"{name}: {field}: {problem}", name, field, "", problem)
    columns = {}
    for i, column in enumerate(header):
        if column not in columns:
            columns[column] = _column(column, [row[i] for row in rows])
    return columns


def sweep(spec, output="results", *, jobs=None, memory_budget=None, point_timeout=None,
          fresh=False, retry_failed=False, plot=False, progress=None):
    """Runs a sweep as `flux sweep SPEC -o OUTPUT` and returns its rows (SweepResult).

    spec: a sweep file (.toml or .json), or a dict in the JSON layout
        ({"name": ..., "axes": {...}, "filter": ..., "plot": [...]}).
    output: the directory of <name>.csv, <name>-summary.txt and the plots' .gp
        scripts (created; locked while the sweep runs).
    jobs: points at once, each in a process of its own [default: the cores].
    memory_budget: what the running points' estimates may add up to: "8GiB",
        "512M", "50%" (of MemAvailable) or bytes [default: 80% of MemAvailable].
    point_timeout: wall-clock limit of one point, seconds or "600s"; a point past
        it is killed and recorded as timeout [default: none].
    fresh: ignore the rows already in the CSV and start over.
    retry_failed: run again the points recorded as failed.
    plot: also draw the plots' PNGs with gnuplot (as `flux sweep` does; the
        .gp scripts are always written).
    progress: called with a dict (done, total, failed, running, elapsed, point,
        status, error, wall) as each point ends.

    The CSV is the one `flux sweep` writes, row for row: a resumed or repeated
    call runs only the points it lacks. Points run in child processes forked
    from the calling thread (with the GIL released; they never run Python).
    Ctrl-C (in the main thread), or an exception raised by `progress`, kills the
    running points and propagates; the CSV keeps the rows of the points that had
    finished, so calling again resumes. Bad input raises flux.InputError.
    """
    if jobs is None:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if isinstance(jobs, bool) or not isinstance(jobs, int):
        raise TypeError(f"jobs: expected an int, got {type(jobs).__name__}")
    if not 1 <= jobs <= 4096:
        problem = "must be an integer between 1 and 4096"
        raise InputError(f"--jobs = {jobs}: {problem}", "", "--jobs", str(jobs), problem)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: expected a callable, got {type(progress).__name__}")
    info = _flux.run_sweep(spec, output, jobs, memory_budget or "", point_timeout, bool(fresh),
                           bool(retry_failed), bool(plot), progress)
    result = SweepResult(read_sweep_csv(info["csv"]))
    for key in ("csv", "summary", "points", "ran", "resumed"):
        setattr(result, key, info[key])
    return result
