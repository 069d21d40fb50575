"""Flux: optical circuit switch scheduling for LLM training, from Python.

    import flux
    w = flux.generate.llama3(model="8b", layers=8, tp=4, dp=2)
    s = flux.schedule(w, flux.System(switches=2, tau=10e-6), time_limit=10)
    r = flux.simulate(w, s)
    print(s.makespan, r.iteration_time, r.peak_nic_bytes)

Times given to Flux are seconds (int or float) or strings with a unit
("10us"); times coming back are picoseconds (ints, *_ps) or seconds (floats).
Per-send values are numpy arrays. Errors are flux.Error subclasses whose text
is what the command line prints. python/README.md has the whole API.
"""

from ._load import load as _load

_load()  # numpy and flux._flux, or one line saying why not

from . import errors
from .errors import Error, InputError, ScheduleError, TraceWarning
from . import _flux
from . import generate
from .sweeps import SweepResult, read_sweep_csv, sweep
from ._flux import (
    Schedule,
    SimResult,
    System,
    ValidationReport,
    Workload,
    evaluate,
    export_chakra,
    import_chakra,
    read_schedule,
    read_workload,
    schedule,
    schedulers,
    simulate,
    validate,
    write_schedule,
    write_workload,
)

__all__ = [
    "Error", "InputError", "ScheduleError", "TraceWarning",
    "Schedule", "SimResult", "SweepResult", "System", "ValidationReport", "Workload",
    "evaluate", "export_chakra", "generate", "import_chakra", "read_metrics", "read_schedule",
    "read_sweep_csv", "read_workload", "schedule", "schedulers", "simulate", "sweep",
    "validate", "write_schedule",
    "write_workload",
]


def read_metrics(path):
    """Reads a metrics file (flux.metrics/v1 or v2, docs/formats.md) as a dict.

    Raises flux.InputError naming the file when it is not one.
    """
    import json
    import os

    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise InputError(f"{name}: {e.strerror}", name, "", "", e.strerror) from None
    except ValueError as e:
        raise InputError(f"{name}: not JSON: {e}", name, "", "", f"not JSON: {e}") from None
    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt not in ("flux.metrics/v1", "flux.metrics/v2"):
        problem = "not a metrics file (flux.metrics/v1 or v2)"
        raise InputError(f"{name}: format = {fmt}: {problem}", name, "format", str(fmt), problem)
    return data
