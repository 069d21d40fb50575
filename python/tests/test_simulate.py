"""Simulation, metrics files and traces, against the CLI."""

import json

import numpy as np
import pytest

import flux
from conftest import LLAMA


@pytest.fixture(scope="module")
def planned(llama, llama_file, tmp_path_factory):
    s = flux.schedule(llama, flux.System(switches=2, tau="100us"), time_limit=5)
    path = tmp_path_factory.mktemp("s") / "s.json"
    flux.write_schedule(s, path)
    return s, path


def test_simulate_matches_cli(tmp_path, cli, llama, llama_file, planned):
    s, s_file = planned
    r = flux.simulate(llama, s)
    r.write_metrics(tmp_path / "py.json")
    r.write_trace(tmp_path / "py-trace.json")
    cli("simulate", llama_file, "--schedule", s_file, "-o", tmp_path / "cli.json", "--trace",
        tmp_path / "cli-trace.json")
    # The metrics file holds deterministic fields only: byte for byte.
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert (tmp_path / "py-trace.json").read_bytes() == (tmp_path / "cli-trace.json").read_bytes()
    m = flux.read_metrics(tmp_path / "cli.json")
    assert r.iteration_time_ps == s.makespan_ps  # strict execution replays the plan
    assert r.iteration_time == pytest.approx(m["iteration_time_s"], rel=1e-15)
    assert r.peak_nic_bytes == m["peak_nic_bytes"]
    assert r.reconfigurations == m["reconfigurations"]
    assert r.bytes_delivered == r.bytes_sent == llama.total_bytes
    assert r.all_delivered and r.execution == "strict" and r.trials == 1


def test_per_send_records(llama, planned):
    s, _ = planned
    r = flux.simulate(llama, s)
    n = llama.num_sends
    assert r.ready_ps.shape == r.issue_ps.shape == r.finish_ps.shape == (n,)
    assert np.all(r.ready_ps <= r.issue_ps) and np.all(r.issue_ps < r.finish_ps)
    assert int((r.finish_ps + llama.tail_ps).max()) == r.iteration_time_ps
    assert r.nic_peak_bytes.shape == (8,) and int(r.nic_peak_bytes.max()) == r.peak_nic_bytes
    order = np.argsort(s.task_ids)
    assert np.array_equal(r.issue_ps[np.argsort(llama.ids)], s.start_ps[order])


def test_trials_match_cli(tmp_path, cli, llama, llama_file, planned):
    s, s_file = planned
    r = flux.simulate(llama, s, compute_jitter=0.05, straggler=(3, 1.5), trials=7, seed=11,
                      execution="ordered")
    r.write_metrics(tmp_path / "py.json")
    cli("simulate", llama_file, "--schedule", s_file, "--compute-jitter", "5%", "--straggler",
        "3:1.5", "--trials", 7, "--perturb-seed", 11, "--execution", "ordered", "-o",
        tmp_path / "cli.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    t = r.trial_iteration_time_ps
    assert t.shape == (7,) and r.trials == 7
    ranked = np.sort(t)
    p = r.iteration_time_percentiles_ps
    assert p["max"] == ranked[-1] and p["p50"] == ranked[int(np.ceil(0.5 * 7)) - 1]
    assert r.peak_nic_percentiles_bytes["max"] == r.trial_peak_nic_bytes.max()
    assert r.trial_reconfigurations.shape == (7,)
    assert t.min() > 0 and len(set(t.tolist())) > 1  # jitter moves the iteration time
    same = flux.simulate(llama, s, compute_jitter="5%", straggler="3:1.5", trials=7, seed=11,
                         execution="ordered")
    assert np.array_equal(same.trial_iteration_time_ps, t)


def test_baseline_simulation_matches_cli(tmp_path, cli, llama, llama_file):
    s = flux.schedule(llama, flux.System(tau="10us"), scheduler="rotornet")
    r = flux.simulate(llama, s)
    r.write_metrics(tmp_path / "py.json")
    cli("simulate", llama_file, "--scheduler", "rotornet", "--tau", "10us", "-o",
        tmp_path / "cli.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert s.makespan_ps == 0 and r.iteration_time_ps > 0


def test_read_metrics_rejects_other_files(tmp_path, llama_file):
    with pytest.raises(flux.InputError) as e:
        flux.read_metrics(llama_file)
    assert (e.value.file, e.value.field, e.value.value) == (str(llama_file), "format",
                                                            "flux.workload/v1")
    with pytest.raises(flux.InputError):
        flux.read_metrics(tmp_path / "missing.json")


def test_run_on_matches_cli(tmp_path, cli, llama, llama_file, planned):
    """A plan run on another workload of the same structure (run_on=, --run-on)."""
    s, s_file = planned
    longer = flux.generate.llama3(**{**LLAMA, "seq": 2 * int(LLAMA.get("seq", 8192))})
    longer_file = tmp_path / "longer.json"
    flux.write_workload(longer, longer_file)
    r = flux.simulate(llama, s, run_on=longer)
    r.write_metrics(tmp_path / "py.json")
    cli("simulate", llama_file, "--schedule", s_file, "--run-on", longer_file, "-o",
        tmp_path / "cli.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    m = flux.read_metrics(tmp_path / "cli.json")
    assert m["planned_for"] == llama.name and m["workload"] == longer.name
    assert r.execution == "ordered" and r.all_delivered
    assert r.bytes_delivered == longer.total_bytes > llama.total_bytes
    assert r.iteration_time_ps > s.makespan_ps  # every size and compute grew
    same = flux.simulate(llama, s, run_on=llama)  # on itself: the plan, ordered
    assert same.iteration_time_ps == s.makespan_ps
    other = flux.generate.llama3(**{**LLAMA, "layers": int(LLAMA.get("layers", 2)) + 1})
    with pytest.raises(flux.InputError, match="differs from the planned workload"):
        flux.simulate(llama, s, run_on=other)
    with pytest.raises(flux.InputError, match="strict replays"):
        flux.simulate(llama, s, run_on=longer, execution="strict")
