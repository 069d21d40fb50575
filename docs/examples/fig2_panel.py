#!/usr/bin/env python3
"""One panel of the paper's Figure 2 from Python: iteration time against the
reconfiguration delay tau, Flux against RotorNet (direct and VLB), BvN and
the ideal network, on Llama 3 8B trained with TP4 x DP2 on 8 A100s over two
switches at 800 Gb/s (`flux evaluate --preset paper-fig2` runs all panels).

Every schedule is validated (flux.schedule does) and replayed in the
simulator; the rows go into a pandas DataFrame, the panel into a PNG.

    PYTHONPATH=build/python python3 docs/examples/fig2_panel.py -o fig2_panel.png
    PYTHONPATH=build/python python3 docs/examples/fig2_panel.py --layers 16 --csv rows.csv
"""

import argparse

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import flux  # noqa: E402

SCHEDULERS = ["flux", "rotornet", "rotornet-vlb", "bvn", "ideal"]
TAUS = ["1us", "3us", "10us", "30us", "100us", "300us", "1ms"]


def panel(layers: int, taus: list[str], time_limit: float) -> pd.DataFrame:
    """One row per (scheduler, tau): the simulated iteration time and more."""
    w = flux.generate.llama3(model="8b", layers=layers, tp=4, dp=2)
    rows = []
    for tau in taus:
        system = flux.System(switches=2, tau=tau, link_gbps=800)
        for name in SCHEDULERS:
            s = flux.schedule(w, system, scheduler=name, time_limit=time_limit)
            r = flux.simulate(w, s)
            rows.append(dict(scheduler=name, tau_s=system.tau,
                             iteration_time_ms=r.iteration_time * 1e3,
                             peak_nic_mib=r.peak_nic_bytes / 2**20,
                             reconfigurations=r.reconfigurations, status=s.status))
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame, layers: int, path: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, rows in df.groupby("scheduler", sort=False):
        ax.plot(rows["tau_s"] * 1e6, rows["iteration_time_ms"], marker="o", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("reconfiguration delay tau (us)")
    ax.set_ylabel("iteration time (ms)")
    ax.set_title(f"Llama 3 8B, {layers} layers, TP4 x DP2, 2 switches")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--taus", default=",".join(TAUS), help="comma-separated, with units")
    ap.add_argument("--time-limit", type=float, default=60, help="per schedule, seconds")
    ap.add_argument("-o", "--output", default="fig2_panel.png")
    ap.add_argument("--csv", help="also write the rows here")
    a = ap.parse_args()
    df = panel(a.layers, a.taus.split(","), a.time_limit)
    # Nothing beats the ideal network, and Flux beats every OCS baseline.
    ideal = df[df.scheduler == "ideal"].set_index("tau_s").iteration_time_ms
    best = df[df.scheduler == "flux"].set_index("tau_s").iteration_time_ms
    for _, row in df.iterrows():
        assert row.iteration_time_ms >= ideal[row.tau_s], row
        assert row.scheduler == "ideal" or best[row.tau_s] <= row.iteration_time_ms, row
    if a.csv:
        df.to_csv(a.csv, index=False)
    plot(df, a.layers, a.output)
    print(df.pivot(index="tau_s", columns="scheduler", values="iteration_time_ms")
          .round(2).to_string())
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
