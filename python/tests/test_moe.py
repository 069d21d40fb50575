"""flux.generate.moe against `flux generate moe`: the same workload byte for
byte, the same errors, Chakra traces, and a plan run on another routing."""

import json

import pytest

import flux

# A tiny MoE job: Mixtral 8x7B, 2 layers, EP4 over DP4 (4 GPUs).
MOE = dict(model="mixtral-8x7b", layers=2, dp=4, ep=4, seq=1024, micro_batches=1)
MOE_FLAGS = ["--model", "mixtral-8x7b", "--layers", "2", "--dp", "4", "--ep", "4", "--seq",
             "1024", "--micro-batches", "1"]


@pytest.fixture(scope="module")
def uniform():
    return flux.generate.moe(**MOE, routing="uniform")


@pytest.fixture(scope="module")
def zipf():
    return flux.generate.moe(**MOE, routing="zipf:1.2")


@pytest.mark.parametrize("routing", ["uniform", "zipf:1.2"])
def test_moe_matches_cli(tmp_path, cli, routing):
    w = flux.generate.moe(**MOE, routing=routing)
    cli("generate", "moe", *MOE_FLAGS, "--routing", routing, "-o", tmp_path / "cli.json")
    flux.write_workload(w, tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert w.accelerators == 4 and w.num_sends > 0
    assert ("zipf:1.2" in w.name) == (routing != "uniform")


def test_moe_zipf_differs_from_uniform(uniform, zipf):
    # Same structure, other all-to-all sizes.
    assert (uniform.num_sends, uniform.num_deps) == (zipf.num_sends, zipf.num_deps)
    assert (uniform.src == zipf.src).all() and (uniform.dst == zipf.dst).all()
    assert not (uniform.bytes == zipf.bytes).all()


def test_moe_options_match_cli(tmp_path, cli):
    kw = dict(MOE, routing="zipf:1.5", routing_seed=7, capacity_factor=1.25, top_k=1,
              moe_ffn=4096, shared_experts=1, dense_layers=1, etp=1, gpu="a100",
              sequence_parallel=True, optimizer=False)
    w = flux.generate.moe(**kw)
    cli("generate", "moe", *MOE_FLAGS, "--routing", "zipf:1.5", "--routing-seed", "7",
        "--capacity-factor", "1.25", "--top-k", "1", "--moe-ffn", "4096", "--shared-experts", "1",
        "--dense-layers", "1", "--etp", "1", "--gpu", "a100", "--sequence-parallel",
        "--no-optimizer", "-o", tmp_path / "cli.json")
    flux.write_workload(w, tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()


def test_moe_defaults_are_the_clis(tmp_path, cli):
    w = flux.generate.moe(layers=1, seq=1024)
    cli("generate", "moe", "--layers", "1", "--seq", "1024", "-o", tmp_path / "cli.json")
    assert w.accelerators == 8  # EP8 over DP8, as `flux generate moe`
    flux.write_workload(w, tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()


@pytest.mark.parametrize("kw,flags,text", [
    (dict(ep=3, dp=3), ["--ep", "3", "--dp", "3"], "--ep = 3: must divide the experts (8)"),
    (dict(top_k=0), ["--top-k", "0"], "--top-k = 0: must be an integer between 1 and 1024"),
    (dict(model="mixtral"), ["--model", "mixtral"], "unknown MoE model"),
    (dict(routing="zipf:0"), ["--routing", "zipf:0"], None),
    (dict(capacity_factor=-1), ["--capacity-factor", "-1"], "--capacity-factor = -1"),
])
def test_moe_errors_are_the_clis(tmp_path, cli, kw, flags, text):
    with pytest.raises(flux.InputError) as e:
        flux.generate.moe(**kw)
    p = cli("generate", "moe", *flags, "-o", tmp_path / "cli.json", ok=False)
    assert p.returncode == 2 and not (tmp_path / "cli.json").exists()
    assert p.stderr == f"flux: error: {e.value}\n"
    if text is not None:
        assert text in str(e.value)


def test_moe_keywords_are_the_moe_commands():
    with pytest.raises(TypeError, match="moe.. got an unexpected keyword argument 'job'"):
        flux.generate.moe(job="llama3-8b")  # `flux generate moe` has no --job
    with pytest.raises(TypeError, match="experts"):
        flux.generate.llama3(experts=8)  # nor llama3 the MoE options
    with pytest.raises(TypeError):
        flux.generate.moe(routing=1)


def test_bad_routing_file(tmp_path, cli):
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps({"format": "flux.routing/v1", "bogus": 1}))
    with pytest.raises(flux.InputError) as e:
        flux.generate.moe(**MOE, routing=f"file:{bad}")
    assert (e.value.file, e.value.field) == (str(bad), "bogus")
    assert "unknown key" in str(e.value)
    p = cli("generate", "moe", *MOE_FLAGS, "--routing", f"file:{bad}", "-o", tmp_path / "c.json",
            ok=False)
    assert p.returncode == 2 and p.stderr == f"flux: error: {e.value}\n"
    missing = tmp_path / "none.json"
    with pytest.raises(flux.InputError) as e:
        flux.generate.moe(**MOE, routing=f"file:{missing}")
    assert e.value.file == str(missing) and "cannot open" in str(e.value)


def test_moe_chakra_matches_cli(tmp_path, cli, uniform):
    files = flux.export_chakra(uniform, tmp_path / "tr")
    assert len(files) == 4 + 1  # and tr.json
    cli("generate", "moe", *MOE_FLAGS, "--format", "chakra", "-o", tmp_path / "cli")
    for r in range(4):
        assert (tmp_path / f"tr.{r}.et").read_bytes() == (tmp_path / f"cli.{r}.et").read_bytes()
    assert (tmp_path / "tr.json").read_bytes() == (tmp_path / "cli.json").read_bytes()


def test_plan_for_uniform_run_on_zipf(tmp_path, cli, uniform, zipf):
    system = flux.System(switches=2, tau="10us", link_gbps=800)
    s = flux.schedule(uniform, system, scheduler="flux", time_limit=10, seed=1)
    r = flux.simulate(uniform, s, run_on=zipf)
    assert r.execution == "ordered" and r.all_delivered
    assert r.bytes_delivered == zipf.total_bytes
    assert r.iteration_time_ps > s.makespan_ps  # zipf's hot experts: longer all-to-alls
    assert flux.simulate(uniform, s, run_on=uniform).iteration_time_ps == s.makespan_ps
    # As the CLI: flux simulate UNIFORM --schedule S --run-on ZIPF.
    for name, w in [("u.json", uniform), ("z.json", zipf)]:
        flux.write_workload(w, tmp_path / name)
    flux.write_schedule(s, tmp_path / "s.json")
    r.write_metrics(tmp_path / "py.json")
    cli("simulate", tmp_path / "u.json", "--schedule", tmp_path / "s.json", "--run-on",
        tmp_path / "z.json", "-o", tmp_path / "cli.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()


def test_online_matches_cli(tmp_path, cli, uniform, zipf):
    """A plan for the uniform routing run online on the zipf one (online=True,
    flux simulate --online): the same online schedule and metrics as the CLI."""
    system = flux.System(switches=2, tau="10us", link_gbps=800)
    s = flux.schedule(uniform, system, scheduler="flux", time_limit=1, seed=1)
    r = flux.simulate(uniform, s, run_on=zipf, online=True, decision_budget="100us")
    assert r.all_delivered and r.bytes_delivered == zipf.total_bytes
    assert r.iteration_time_ps == r.schedule.makespan_ps  # replayed exactly
    assert r.decisions and all(d["latency_ps"] == 100_000_000 for d in r.decisions)
    assert all(0 <= d["placed"] <= d["sends"] for d in r.decisions)
    assert {d["label"].rsplit(".", 2)[-1] for d in r.decisions} <= {"dispatch", "combine"}
    # A known routing: the plan, unchanged.
    same = flux.simulate(uniform, s, run_on=uniform, online=True)
    assert same.decisions == [] and same.iteration_time_ps == s.makespan_ps
    for name, w in [("u.json", uniform), ("z.json", zipf)]:
        flux.write_workload(w, tmp_path / name)
    flux.write_schedule(s, tmp_path / "s.json")
    r.write_metrics(tmp_path / "py.json")
    flux.write_schedule(r.schedule, tmp_path / "py-online.json")
    cli("simulate", tmp_path / "u.json", "--schedule", tmp_path / "s.json", "--run-on",
        tmp_path / "z.json", "--online", "--decision-budget", "100us", "-o", tmp_path / "cli.json",
        "--save-schedule", tmp_path / "cli-online.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    online = json.loads((tmp_path / "py-online.json").read_text())
    cli_online = json.loads((tmp_path / "cli-online.json").read_text())
    online.pop("solve_time_s", None)
    cli_online.pop("solve_time_s", None)
    assert online == cli_online
    with pytest.raises(flux.InputError, match="online = True: needs run_on"):
        flux.simulate(uniform, s, online=True)
    with pytest.raises(flux.InputError, match="--decision-latency = fast: must be modelled or measured"):
        flux.simulate(uniform, s, run_on=zipf, online=True, decision_latency="fast")
    with pytest.raises(flux.InputError, match="apply with online=True only"):
        flux.simulate(uniform, s, run_on=zipf, decision_budget="1ms")
    assert {d["pick"] for d in r.decisions} <= {"plan", "plan-switch", "plan-order",
                                                 "longest-first"}
    with pytest.raises(flux.InputError, match="--decision-budget = -1us: must be between 0"):
        flux.simulate(uniform, s, run_on=zipf, online=True, decision_budget="-1us")
    with pytest.raises(flux.InputError, match="--decision-reserve = 30 us: applies with a measured"):
        flux.simulate(uniform, s, run_on=zipf, online=True, decision_reserve="30us")
    with pytest.raises(flux.InputError, match="apply with online=True only"):
        flux.simulate(uniform, s, run_on=zipf, decision_reserve="30us")
    # A reserve that leaves no time: every decision stops before its first step.
    kept = flux.simulate(uniform, s, run_on=zipf, online=True, decision_latency="measured",
                         decision_budget="1ns", decision_reserve="500ps")
    assert kept.decisions and all(d["placed"] == 0 for d in kept.decisions)
    # Without it (the same budget, measured) decisions place sends.
    free = flux.simulate(uniform, s, run_on=zipf, online=True, decision_latency="measured",
                         decision_budget="100us")
    assert sum(d["placed"] for d in free.decisions) > 0
