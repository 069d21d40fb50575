#!/usr/bin/env python3
"""Python's overhead over the CLI: the same scheduling and simulation through
`import flux` and through `flux simulate`, side by side in one run.

Per instance, the workload file is generated once; then, alternating, REPS
times each:
  cli:    flux simulate w.json --scheduler flux --switches 2 --tau T -o m.json
  python: a fresh python3 process: import flux, read_workload, schedule,
          simulate, write_metrics (the same library calls, same output file).
Reported: median wall time of each process, the median time of the Python
calls alone (from after `import flux` to the file written: interpreter start
and the import, numpy included, excluded), the median CPU time (user +
system) of each process (less sensitive than wall time to other processes on
a shared machine), and the ratios to the CLI. The two metrics files are compared byte for byte.

Usage: bench/python_overhead.py BUILD_DIR [--reps N] [--large]
  --large adds Llama 3 70B, 80 layers, TP8 x DP32 (2.4M sends).
"""

import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PAPER = [  # name, generate flags, tau
    ("8B L8 TP4xDP2, tau 10us", ["--model", "8b", "--layers", "8"], "10us"),
    ("8B L8 TP4xDP2, tau 1ms", ["--model", "8b", "--layers", "8"], "1ms"),
    ("8B L16 TP4xDP2, tau 10us", ["--model", "8b", "--layers", "16"], "10us"),
    ("8B L16 TP4xDP2, tau 1ms", ["--model", "8b", "--layers", "16"], "1ms"),
]
LARGE = [("70B L80 TP8xDP32 (2.4M sends), tau 10us",
          ["--model", "70b", "--layers", "80", "--tp", "8", "--dp", "32"], "10us")]

SCRIPT = """
import sys, time
t0 = time.perf_counter()
import flux
t1 = time.perf_counter()
w = flux.read_workload(sys.argv[1])
s = flux.schedule(w, flux.System(switches=2, tau=sys.argv[2]), scheduler="flux")
r = flux.simulate(w, s)
r.write_metrics(sys.argv[3])
print(t1 - t0, time.perf_counter() - t1, file=sys.stderr)
"""


def timed(cmd, env=None):
    """Runs cmd; returns its wall time, its CPU time (user + system) and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--large", action="store_true")
    a = ap.parse_args()
    build = pathlib.Path(a.build).resolve()
    flux_bin = str(build / "apps" / "flux" / "flux")
    env = dict(os.environ, PYTHONPATH=str(build / "python"))
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    rows, import_s = [], []
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        for name, flags, tau in PAPER + (LARGE if a.large else []):
            w = d / "w.json"
            subprocess.run([flux_bin, "generate", "llama3", *flags, "-o", w], check=True,
                           capture_output=True)
            cli, py, cli_cpu, py_cpu, py_calls, imports = [], [], [], [], [], []
            for _ in range(a.reps):
                t, c, _ = timed([flux_bin, "simulate", str(w), "--scheduler", "flux",
                                 "--switches", "2", "--tau", tau, "-o", str(d / "cli.json")])
                cli.append(t)
                cli_cpu.append(c)
                t, c, err = timed([python, "-c", SCRIPT, str(w), tau, str(d / "py.json")], env)
                py.append(t)
                py_cpu.append(c)
                imp, calls = map(float, err.strip().splitlines()[-1].split())
                imports.append(imp)
                py_calls.append(calls)
            same = (d / "cli.json").read_bytes() == (d / "py.json").read_bytes()
            c, p, pc, cc, pcc = (statistics.median(x)
                                 for x in (cli, py, py_calls, cli_cpu, py_cpu))
            rows.append((name, c, p, pc, same, cc, pcc))
            import_s.extend(imports)
    print(f"median of {a.reps}; `import flux` (numpy included) takes "
          f"{statistics.median(import_s) * 1e3:.0f} ms")
    print("| instance | CLI wall | Python wall | ratio | Python calls | ratio | CLI CPU | "
          "Python CPU | ratio | same metrics file |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, c, p, pc, same, cc, pcc in rows:
        print(f"| {name} | {c:.3f} s | {p:.3f} s | {p / c:.3f} | {pc:.3f} s | {pc / c:.3f} | "
              f"{cc:.3f} s | {pcc:.3f} s | {pcc / cc:.3f} | {'yes' if same else 'NO'} |")
    if not all(r[4] for r in rows):
        sys.exit("the metrics files differ")


if __name__ == "__main__":
    main()
