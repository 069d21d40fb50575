# %% [markdown]
# # Flux from a notebook
#
# A notebook in the percent format (Jupytext, VS Code and Spyder open `# %%`
# cells as a notebook; `python3 notebook.py` runs it top to bottom, as the
# test `python.example_notebook` does). It needs `flux` installed
# (python/README.md, "Install"), pandas and matplotlib.
#
# The path of a job through Flux: generate the workload, schedule its sends
# on the optical switches, check the schedule, replay it in the simulator,
# compare schedulers, and run a small sweep.

# %%
import os
import sys
import tempfile

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")  # files only; drop this line in a live notebook
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import flux  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="flux-notebook-")
os.makedirs(out, exist_ok=True)

# %% [markdown]
# ## A workload
# Llama 3 8B, two layers, tensor parallel 4 x data parallel 2 on 8 A100s.
# Every send is a row of numpy arrays.

# %%
w = flux.generate.llama3(model="8b", layers=2, tp=4, dp=2)
sends = pd.DataFrame({"src": w.src, "dst": w.dst, "bytes": w.bytes})
print(w.name, w.accelerators, "accelerators,", w.num_sends, "sends,", w.total_bytes, "bytes")
print(sends.groupby(["src", "dst"])["bytes"].sum().head())
assert w.traffic_matrix().sum() == w.total_bytes

# %% [markdown]
# ## A schedule, checked and replayed
# Two switches at 800 Gb/s, 10 us to reconfigure a circuit.

# %%
system = flux.System(switches=2, tau="10us", link_gbps=800)
s = flux.schedule(w, system, scheduler="flux", time_limit=10, moves=2000)
report = flux.validate(w, s)
r = flux.simulate(w, s)
print(f"{s.status}: makespan {s.makespan * 1e3:.3f} ms, bound {s.bound * 1e3:.3f} ms, "
      f"gap {s.gap:.2%}; simulated {r.iteration_time * 1e3:.3f} ms")
assert report.ok and s.bound <= s.makespan
assert r.iteration_time_ps == s.makespan_ps  # the simulator replays the plan exactly

# %% [markdown]
# ## The circuits over time
# One line per circuit, on each switch.

# %%
c = pd.DataFrame(s.circuits())
fig, axes = plt.subplots(1, 2, figsize=(10, 3), sharey=True)
for k, ax in enumerate(axes):
    mine = c[c["switch"] == k].reset_index(drop=True)
    for i, row in mine.iterrows():
        ax.plot([row["up_ps"] / 1e9, row["down_ps"] / 1e9], [i, i], lw=3)
    ax.set_title(f"switch {k}: {len(mine)} circuits")
    ax.set_xlabel("time (ms)")
axes[0].set_ylabel("circuit")
axes[0].yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
fig.tight_layout()
fig.savefig(os.path.join(out, "circuits.png"))
assert len(c) == s.num_circuits

# %% [markdown]
# ## Flux against the baselines
# The same job at three reconfiguration delays.

# %%
rows = []
for tau in ["1us", "100us", "1ms"]:
    system = flux.System(switches=2, tau=tau, link_gbps=800)
    for name in ["flux", "rotornet", "bvn", "ideal"]:
        options = dict(time_limit=10, moves=2000) if name == "flux" else {}
        sim = flux.simulate(w, flux.schedule(w, system, scheduler=name, **options))
        rows.append(dict(tau_us=system.tau * 1e6, scheduler=name,
                         iteration_ms=sim.iteration_time * 1e3))
table = pd.DataFrame(rows).pivot(index="tau_us", columns="scheduler", values="iteration_ms")
print(table.round(3))
assert (table["ideal"] <= table.min(axis=1) + 1e-9).all()  # nothing beats the ideal network

# %% [markdown]
# ## A sweep
# The sweep engine (docs/formats.md, "Sweep files") from a dict: every point
# scheduled, validated and simulated; the rows come back as numpy columns.

# %%
rows = flux.sweep({"name": "nb", "axes": {"layers": [1], "tp": [4], "dp": [2],
                                          "tau": ["10us", "1ms"],
                                          "scheduler": ["greedy", "bvn"]}},
                  os.path.join(out, "sweep"), fresh=True)
df = pd.DataFrame(rows)
print(df[["tau", "scheduler", "iteration_time_s"]])
assert rows.points == 4 and np.all(df["iteration_time_s"] > 0)
