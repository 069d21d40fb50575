"""Systems, schedulers, schedules and the validator, against the CLI."""

import json

import numpy as np
import pytest

import flux
from conftest import LLAMA, LLAMA_FLAGS


def test_system_times_and_defaults():
    s = flux.System()
    assert (s.switches, s.link_gbps, s.tau_ps, s.scaleup_size) == (2, 800.0, 10_000_000, 1)
    assert flux.System(tau=1e-3).tau_ps == 1_000_000_000
    assert flux.System(tau="1ms").tau_ps == 1_000_000_000
    assert flux.System(tau=2).tau_ps == 2_000_000_000_000  # an int is seconds too
    assert flux.System(tau=0).tau == 0.0
    s = flux.System(switches=4, link_gbps=400, scaleup_size=4, scaleup_gbps=3600)
    assert (s.switches, s.link_gbps, s.scaleup_size, s.scaleup_gbps) == (4, 400.0, 4, 3600.0)
    assert "switches=4" in repr(s)
    assert s.duplex == "half" and "duplex" not in repr(s)
    full = flux.System(duplex="full")
    assert full.duplex == "full" and "duplex='full'" in repr(full)
    with pytest.raises(flux.InputError, match="duplex"):
        flux.System(duplex="quarter")


def test_wiring_rails_and_file_match_the_cli(tmp_path, cli):
    job = tmp_path / "j.json"
    cli("generate", "llama3", "--tp", 4, "--dp", 4, "--pp", 2, "--layers", 2,
        "--scaleup-size", 4, "-o", job)
    w = flux.read_workload(job)
    rails = flux.System(wiring="rails", ocs_radix=8)
    assert (rails.wiring, rails.ocs_radix) == ("rails", 8)
    assert "wiring='rails', ocs_radix=8" in repr(rails)
    s = flux.schedule(w, rails, scheduler="greedy")
    cli("schedule", job, "--scheduler", "greedy", "--wiring", "rails", "--ocs-radix", 8,
        "-o", tmp_path / "s.json")
    c = flux.read_schedule(tmp_path / "s.json")
    assert s.makespan_ps == c.makespan_ps and np.array_equal(s.switch, c.switch)
    assert flux.validate(w, c).ok
    ports = [{"ports": [d * 4 + r for d in range(8)]} for r in range(4) for _ in range(2)]
    (tmp_path / "w.json").write_text(json.dumps(
        {"format": "flux.wiring/v1", "accelerators": 32, "radix": 8, "switches": ports}))
    f = flux.schedule(w, flux.System(wiring=f"file:{tmp_path / 'w.json'}"), scheduler="greedy")
    assert f.makespan_ps == s.makespan_ps
    with pytest.raises(flux.InputError, match="no route from rank"):
        flux.schedule(w, flux.System(wiring="rails", ocs_radix=2), scheduler="greedy")


def test_forwarded_sends_schedule_validate_and_simulate(tmp_path, cli):
    job = tmp_path / "moe.json"
    cli("generate", "moe", "--model", "mixtral-8x7b", "--dp", 8, "--ep", 8, "--layers", 1,
        "--scaleup-size", 4, "-o", job)
    w = flux.read_workload(job)
    s = flux.schedule(w, flux.System(wiring="rails", ocs_radix=8), scheduler="greedy")
    assert len(s.task_ids) > w.num_sends  # the forwarded sends' second hops
    assert flux.validate(w, s).ok
    r = flux.simulate(w, s)
    assert r.iteration_time_ps == s.makespan_ps
    r.write_trace(tmp_path / "t.json")
    assert (tmp_path / "t.json").stat().st_size > 0
    with pytest.raises(flux.InputError, match="ocs.radix = 1: a switch needs at least 2 ports"):
        flux.System(wiring="rails", ocs_radix=1)
    with pytest.raises(flux.InputError, match="must be full, rails or file:PATH"):
        flux.System(wiring="mesh")


def test_packet_fabric_matches_the_cli(tmp_path, cli):
    job = tmp_path / "moe.json"
    cli("generate", "moe", "--model", "mixtral-8x7b", "--dp", 8, "--ep", 8, "--layers", 1,
        "-o", job)
    w = flux.read_workload(job)
    sys_ = flux.System(wiring="rails", ocs_radix=4, packet_gbps=400, packet_latency="2us",
                       packet_oversubscription=2)
    assert (sys_.packet_gbps, sys_.packet_latency, sys_.packet_oversubscription, sys_.route) == (
        400.0, 2e-06, 2.0, "forward")
    assert "packet_gbps=400, packet_latency='2 us', packet_oversubscription=2" in repr(sys_)
    s = flux.schedule(w, sys_, scheduler="greedy")
    cli("schedule", job, "--scheduler", "greedy", "--wiring", "rails", "--ocs-radix", 4,
        "--packet-gbps", 400, "--packet-latency", "2us", "--packet-oversubscription", 2,
        "-o", tmp_path / "s.json")
    c = flux.read_schedule(tmp_path / "s.json")
    assert s.makespan_ps == c.makespan_ps and np.array_equal(s.switch, c.switch)
    packets = int(np.count_nonzero(s.switch == -2))
    assert packets > 0
    r = flux.simulate(w, s)
    assert r.iteration_time_ps == s.makespan_ps and r.packet_sends == packets
    with pytest.raises(flux.InputError, match="needs a packet fabric"):
        flux.System(wiring="rails", ocs_radix=4, route="packet")


def test_routes_chosen_per_send_match_the_cli(tmp_path, cli):
    job = tmp_path / "moe.json"
    cli("generate", "moe", "--model", "mixtral-8x7b", "--dp", 8, "--ep", 8, "--layers", 1,
        "--scaleup-size", 2, "-o", job)
    w = flux.read_workload(job)
    sys_ = flux.System(scaleup_size=2, wiring="rails", ocs_radix=4, packet_gbps=400,
                       route="auto")
    assert sys_.route == "auto" and "route='auto'" in repr(sys_)
    s = flux.schedule(w, sys_, scheduler="greedy")
    cli("schedule", job, "--scheduler", "greedy", "--scaleup-size", 2, "--wiring", "rails",
        "--ocs-radix", 4, "--packet-gbps", 400, "--route", "auto", "-o", tmp_path / "s.json")
    c = flux.read_schedule(tmp_path / "s.json")
    assert s.routes == c.routes and s.makespan_ps == c.makespan_ps
    assert set(s.routes) <= {"forward", "forward-rx", "packet"} and len(s.routes) == 152
    assert flux.validate(w, c).ok
    r = flux.simulate(w, c)
    assert r.iteration_time_ps == c.makespan_ps
    assert r.packet_sends == s.routes.count("packet")
    assert flux.System(scaleup_size=2, wiring="rails", ocs_radix=4,
                       route="forward-rx").route == "forward-rx"
    # A summary under a wiring counts the sends as it routes them (flux info).
    info = cli("info", job, "--scaleup-size", 2, "--wiring", "rails", "--ocs-radix", 4,
               "--packet-gbps", 400, "--route", "auto").stdout
    sends = int(next(line.split()[1] for line in info.splitlines() if line.startswith("sends ")))
    assert w.summary(sys_)["sends"] == sends > w.num_sends
    with pytest.raises(flux.InputError, match="must be forward, forward-rx, packet or auto"):
        flux.System(route="relay")


def test_schedulers_registry(cli):
    names = flux.schedulers()
    assert list(names)[:1] and "flux" in names and "flux-milp" in names
    assert {"rotornet", "bvn", "ideal"} <= set(names)
    help_text = cli("schedule", "--help").stdout
    for name in names:
        assert name in help_text
    assert all(isinstance(d, str) and d for d in names.values())


@pytest.mark.parametrize("scheduler,tau", [("flux", "10us"), ("flux", "1ms"), ("greedy", "100us"),
                                           ("rotornet", "10us"), ("bvn", "10us")])
def test_schedule_matches_cli(tmp_path, cli, llama, llama_file, scheduler, tau):
    seed = dict(seed=3) if scheduler == "flux" else {}  # the others read no seed
    s = flux.schedule(llama, flux.System(switches=2, tau=tau), scheduler=scheduler,
                      time_limit=10, **seed)
    cli("schedule", llama_file, "--scheduler", scheduler, "--switches", 2, "--tau", tau,
        "--time-limit", "10s", *(["--seed", 3] if seed else []), "-o", tmp_path / "s.json")
    c = flux.read_schedule(tmp_path / "s.json")
    assert s.scheduler == c.scheduler == scheduler
    assert s.makespan_ps == c.makespan_ps
    assert s.status == c.status
    assert s.bound_ps == c.bound_ps
    assert np.array_equal(s.task_ids, c.task_ids)
    assert np.array_equal(s.switch, c.switch)
    assert np.array_equal(s.start_ps, c.start_ps)
    assert s.num_circuits == c.num_circuits
    for k, v in s.circuits().items():
        assert np.array_equal(v, c.circuits()[k]), k
    assert flux.validate(llama, s).ok


def test_schedule_fields(llama):
    s = flux.schedule(llama, flux.System(tau="10us"), time_limit=5)
    n = llama.num_sends
    assert s.status in ("optimal", "feasible")
    assert s.switch.dtype == np.int32 and s.start_ps.dtype == np.int64 and s.switch.shape == (n,)
    assert np.all((s.switch >= 0) & (s.switch < 2))
    assert s.makespan == s.makespan_ps / 1e12
    assert s.bound_ps is not None and s.bound_ps <= s.makespan_ps
    assert s.gap is not None and 0 <= s.gap < 1
    assert s.solve_time is not None and s.solve_time >= 0
    # Every send fits in a circuit interval of its pair on its switch.
    c = s.circuits()
    p = llama.bytes.astype(np.int64) * 10  # 800 Gb/s: 10 ps per byte
    ids = {int(i): k for k, i in enumerate(llama.ids)}
    for k in range(0, n, max(1, n // 50)):
        t = ids[int(s.task_ids[k])]
        a, b = sorted((int(llama.src[t]), int(llama.dst[t])))
        hit = ((c["switch"] == s.switch[k]) & (c["a"] == a) & (c["b"] == b) &
               (c["up_ps"] <= s.start_ps[k]) & (s.start_ps[k] + p[t] <= c["down_ps"]))
        assert hit.any()
    assert np.all(c["up_ps"] - c["setup_ps"] == 10_000_000)
    assert s.system.tau_ps == 10_000_000 and s.workload == llama.name


def test_scaleup_hint_and_fabric(cli, tmp_path):
    w = flux.generate.llama3(model="8b", layers=1, tp=4, dp=2, scaleup_size=4)
    assert w.scaleup_size == 4
    s = flux.schedule(w, time_limit=5)
    assert s.system.scaleup_size == 4  # the workload's hint, as on the command line
    assert np.any(s.switch == -1) and np.any(s.switch >= 0)
    inside = (w.src // 4) == (w.dst // 4)
    assert np.array_equal(s.switch == -1, inside)
    assert flux.schedule(w, flux.System(scaleup_size=1), time_limit=5).system.scaleup_size == 1


def test_write_read_schedule(tmp_path, llama):
    s = flux.schedule(llama, time_limit=5)
    flux.write_schedule(s, tmp_path / "s.json")
    r = flux.read_schedule(str(tmp_path / "s.json"))
    assert r.makespan_ps == s.makespan_ps and np.array_equal(r.start_ps, s.start_ps)
    assert json.loads((tmp_path / "s.json").read_text())["format"] == "flux.schedule/v1"


def test_validate_reports_violations(tmp_path, llama, cli, llama_file):
    s = flux.schedule(llama, time_limit=5)
    flux.write_schedule(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    doc["tasks"][0]["start_s"] += 1e-3  # later than the makespan says
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    bad = flux.read_schedule(tmp_path / "bad.json")
    report = flux.validate(llama, bad, max_violations=3)
    assert not report.ok and not report and report.violation_count >= 1
    assert 1 <= len(report.violations) <= 3
    p = cli("validate", llama_file, tmp_path / "bad.json", ok=False)
    assert p.returncode != 0
    assert report.violations[0] in p.stdout + p.stderr
    assert flux.validate(llama, s)


def test_milp_matches_cli(tmp_path, cli):
    # CBC runs in a child process forked from the scheduling thread.
    w = flux.generate.random(ranks=4, sends=16, seed=3)
    flux.write_workload(w, tmp_path / "r.json")
    s = flux.schedule(w, flux.System(tau="10us"), scheduler="flux-milp", time_limit=20)
    cli("schedule", tmp_path / "r.json", "--scheduler", "flux-milp", "--tau", "10us",
        "--time-limit", "20s", "-o", tmp_path / "s.json")
    c = flux.read_schedule(tmp_path / "s.json")
    assert s.status == c.status == "optimal"
    assert s.makespan_ps == c.makespan_ps == s.bound_ps
    assert s.makespan_ps <= flux.schedule(w, flux.System(tau="10us"), time_limit=5).makespan_ps


def test_collective_choice_matches_the_cli(tmp_path, cli):
    # --collective auto: the schedule names one alternative per collective,
    # the CLI's choice; alternative= fixes it; simulate runs the chosen sends.
    w = flux.generate.llama3(**LLAMA, collective="auto")
    s = flux.schedule(w, scheduler="greedy")
    assert len(s.choice) == 16 and set(s.choice) <= {"ring", "direct", "halving-doubling"}
    assert flux.validate(w, s)
    path = tmp_path / "w.json"
    flux.write_workload(w, path)
    cli("schedule", path, "--scheduler", "greedy", "-o", tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text())["choice"] == s.choice
    ring = flux.schedule(w, scheduler="greedy", alternative="ring")
    assert ring.choice == ["ring"] * 16
    fixed = flux.generate.llama3(**LLAMA, collective="ring")
    assert flux.simulate(w, ring).iteration_time == flux.simulate(
        fixed, flux.schedule(fixed, scheduler="greedy")).iteration_time
    with pytest.raises(flux.InputError, match="no collective of the workload"):
        flux.schedule(w, scheduler="greedy", alternative="bruck")
    assert flux.schedule(fixed, scheduler="greedy").choice == []


def test_chakra_export_of_a_chosen_decomposition(tmp_path, cli):
    # The trace of an auto workload holds the sends its schedule chose, as
    # the CLI's --choice writes them; without a choice it is refused.
    w = flux.generate.llama3(**LLAMA, collective="auto")
    s = flux.schedule(w, scheduler="greedy")
    with pytest.raises(flux.InputError, match="one algorithm per collective"):
        flux.export_chakra(w, tmp_path / "none")
    files = flux.export_chakra(w, tmp_path / "py", collectives="send-recv", choice=s)
    back = flux.import_chakra(tmp_path / "py")
    chosen = flux.generate.llama3(**LLAMA, collective="ring")
    by_names = flux.export_chakra(w, tmp_path / "ring", choice=["ring"] * len(s.choice))
    assert flux.import_chakra(tmp_path / "ring").num_sends == chosen.num_sends
    assert back.num_sends == len(s.task_ids) < w.num_sends  # the chosen sends, one each
    path = tmp_path / "w.json"
    flux.write_workload(w, path)
    flux.write_schedule(s, tmp_path / "s.json")
    cli("generate", "llama3", *LLAMA_FLAGS, "--collective", "auto", "--format", "chakra",
        "--chakra-collectives", "send-recv", "--choice", tmp_path / "s.json",
        "-o", tmp_path / "cli")
    for f in files:
        name = str(f).replace(str(tmp_path / "py"), str(tmp_path / "cli"))
        assert open(f, "rb").read() == open(name, "rb").read()
    assert len(by_names) == len(files) + 1  # comm-coll: the group file too
    with pytest.raises(flux.InputError, match="no such alternative"):
        flux.export_chakra(w, tmp_path / "bad", choice=["brock"] * len(s.choice))
    with pytest.raises(flux.InputError, match="no collective in several"):
        flux.export_chakra(chosen, tmp_path / "bad", choice=["ring"])
