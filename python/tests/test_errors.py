"""Errors: library exceptions as flux.Error subclasses carrying file, field
and value, with the text the CLI prints after "flux: error: "."""

import json

import pytest

import flux


def cli_error(cli, *args):
    p = cli(*args, ok=False)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("flux: error: "), p.stderr
    return lines[0][len("flux: error: "):]


def test_bad_workload_file(tmp_path, cli, llama_file):
    doc = json.loads(llama_file.read_text())
    doc["tasks"][3]["bytes"] = -5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(flux.InputError) as e:
        flux.read_workload(bad)
    assert (e.value.file, e.value.field, e.value.value) == (str(bad), "tasks[3].bytes", "-5")
    assert e.value.problem and isinstance(e.value, flux.Error) and isinstance(e.value, ValueError)
    assert str(e.value) == cli_error(cli, "info", bad)


def test_missing_file(tmp_path, cli):
    with pytest.raises(flux.InputError) as e:
        flux.read_workload(tmp_path / "nope.json")
    assert e.value.file == str(tmp_path / "nope.json")
    assert str(e.value) == cli_error(cli, "info", tmp_path / "nope.json")


@pytest.mark.parametrize("kwargs,flags,field,value", [
    (dict(switches=0), ["--switches", "0"], "--switches", "0"),
    (dict(switches=2.5), ["--switches", "2.5"], "--switches", "2.5"),
    (dict(switches="x"), ["--switches", "x"], "--switches", "x"),
    (dict(tau="-1us"), ["--tau", "-1us"], "--tau", "-1us"),
    (dict(tau="10"), ["--tau", "10"], "--tau", "10"),
    (dict(link_gbps=0), ["--link-gbps", "0"], "--link-gbps", "0"),
])
def test_system_errors_match_cli(cli, llama_file, kwargs, flags, field, value):
    with pytest.raises(flux.InputError) as e:
        flux.System(**kwargs)
    assert (e.value.file, e.value.field, e.value.value) == ("", field, value)
    assert str(e.value) == cli_error(cli, "schedule", llama_file, *flags)


def test_negative_seconds():
    with pytest.raises(flux.InputError) as e:
        flux.System(tau=-1e-6)
    assert e.value.field == "--tau" and "must be" in e.value.problem


@pytest.mark.parametrize("kwargs,flags", [
    (dict(scheduler="nope"), ["--scheduler", "nope"]),
    (dict(time_limit=-1), ["--time-limit", "-1s"]),
    (dict(gap=1.5), ["--gap", "1.5"]),
    (dict(threads=0), ["--threads", "0"]),
    (dict(scheduler="flux", export_milp="m.lp"), ["--export-milp", "m.lp"]),
])
def test_schedule_errors_match_cli(cli, llama, llama_file, kwargs, flags):
    with pytest.raises(flux.InputError) as e:
        flux.schedule(llama, **kwargs)
    assert e.value.field == flags[0]
    if kwargs.get("time_limit") is None:
        assert str(e.value) == cli_error(cli, "schedule", llama_file, *flags)


@pytest.mark.parametrize("kwargs,field,flags", [
    (dict(scheduler="bvn", moves=5), "--moves", ["--scheduler", "bvn", "--moves", "5"]),
    (dict(duty_cycle=0.5), "--duty-cycle", ["--duty-cycle", "0.5"]),
    (dict(scheduler="greedy", lp_bound=False), "--no-lp-bound",
     ["--scheduler", "greedy", "--no-lp-bound"]),
])
def test_ignored_options_refused_as_on_the_cli(cli, llama, llama_file, kwargs, field, flags):
    with pytest.raises(flux.InputError) as e:
        flux.schedule(llama, **kwargs)
    assert e.value.field == field and "only (not" in e.value.problem
    assert str(e.value) == cli_error(cli, "schedule", llama_file, *flags)


def test_options_read_by_the_scheduler_accepted(llama):
    s = flux.schedule(llama, scheduler="rotornet", duty_cycle=0.5)
    assert s.scheduler == "rotornet"


@pytest.mark.parametrize("kwargs,flags", [
    (dict(tp=3), ["--tp", "3"]),
    (dict(model="9b"), ["--model", "9b"]),
    (dict(layers=0), ["--layers", "0"]),
    (dict(collective="tree"), ["--collective", "tree"]),
    (dict(gemm_efficiency=1.5), ["--gemm-efficiency", "1.5"]),
])
def test_generate_errors_match_cli(tmp_path, cli, kwargs, flags):
    with pytest.raises(flux.InputError) as e:
        flux.generate.llama3(**kwargs)
    assert str(e.value) == cli_error(cli, "generate", "llama3", *flags, "-o", tmp_path / "w.json")
    assert not (tmp_path / "w.json").exists()


def test_random_errors_match_cli(tmp_path, cli):
    with pytest.raises(flux.InputError) as e:
        flux.generate.random(ranks=1)
    assert e.value.field == "--ranks" and e.value.value == "1"
    assert str(e.value) == cli_error(cli, "generate", "random", "--ranks", "1", "-o",
                                     tmp_path / "w.json")


@pytest.mark.parametrize("kwargs,flags", [
    (dict(trials=0), ["--trials", "0"]),
    (dict(execution="fast"), ["--execution", "fast"]),
    (dict(compute_jitter="-5%"), ["--compute-jitter", "-5%"]),
    (dict(straggler="3"), ["--straggler", "3"]),
    (dict(straggler=(9, 1.5)), ["--straggler", "9:1.5"]),
    # One meaning per number: a bare 5 is ambiguous in both (5% is "5%").
    (dict(compute_jitter=5), ["--compute-jitter", "5"]),
    (dict(compute_jitter="5"), ["--compute-jitter", "5"]),
    (dict(compute_jitter=1.5), ["--compute-jitter", "1.5"]),
])
def test_simulate_errors_match_cli(tmp_path, cli, llama, llama_file, kwargs, flags):
    s = flux.schedule(llama, time_limit=5)
    flux.write_schedule(s, tmp_path / "s.json")
    with pytest.raises(flux.InputError) as e:
        flux.simulate(llama, s, **kwargs)
    expect = cli_error(cli, "simulate", llama_file, "--schedule", tmp_path / "s.json", *flags)
    if kwargs.get("straggler") == (9, 1.5):  # the CLI names the file; Python has none
        assert e.value.field == "--straggler" and e.value.value == "9"
    else:
        assert str(e.value) == expect


def test_jitter_is_a_fraction(llama):
    s = flux.schedule(llama, time_limit=5)
    frac = flux.simulate(llama, s, compute_jitter=0.05, trials=3, seed=4)
    pct = flux.simulate(llama, s, compute_jitter="5%", trials=3, seed=4)
    text = flux.simulate(llama, s, compute_jitter="0.05", trials=3, seed=4)
    assert list(frac.trial_iteration_time_ps) == list(pct.trial_iteration_time_ps)
    assert list(text.trial_iteration_time_ps) == list(pct.trial_iteration_time_ps)
    big = flux.simulate(llama, s, compute_jitter="150%", trials=3, seed=4)
    assert list(big.trial_iteration_time_ps) != list(pct.trial_iteration_time_ps)


@pytest.mark.parametrize("kwargs,field,value", [
    (dict(seed=-1), "seed", "-1"),
    (dict(seed=2**63), "seed", str(2**63)),
    (dict(seed=2**64), "seed", str(2**64)),
    (dict(straggler=(-1, 1.5)), "--straggler", "(-1, 1.5)"),
    (dict(straggler=(0, 1.5, 2)), "--straggler", "(0, 1.5, 2)"),
    (dict(straggler=[2**32, 1.5]), "--straggler", "[4294967296, 1.5]"),
    (dict(straggler=("a", 1.5)), "--straggler", "('a', 1.5)"),
    (dict(straggler=(0, "x")), "--straggler", "(0, 'x')"),
])
def test_simulate_arguments_raise_input_error(llama, kwargs, field, value):
    s = flux.schedule(llama, time_limit=5)
    with pytest.raises(flux.InputError) as e:
        flux.simulate(llama, s, **kwargs)
    assert e.value.field == field and e.value.value == value


def test_simulate_seed_range(llama):
    s = flux.schedule(llama, time_limit=5)
    flux.simulate(llama, s, compute_jitter=0.05, seed=2**63 - 1)
    with pytest.raises(TypeError):
        flux.simulate(llama, s, run_on=3)
    with pytest.raises(TypeError):
        flux.simulate(llama, s, compute_jitter=True)


def test_schedule_error(llama):
    other = flux.generate.llama3(model="8b", layers=1, tp=4, dp=2)
    s = flux.schedule(other, time_limit=5)
    with pytest.raises(flux.ScheduleError) as e:
        flux.simulate(llama, s)
    assert e.value.violation_count >= 1 and e.value.violations
    assert isinstance(e.value, flux.Error) and not isinstance(e.value, flux.InputError)


def test_library_error(llama):
    s = flux.schedule(llama, time_limit=5)
    with pytest.raises(flux.Error) as e:
        flux.simulate(llama, s, max_time="1ns")
    assert type(e.value) is flux.Error and "has not finished" in str(e.value)
    assert "simulated-time limit max_time (--max-time 1 ns)" in str(e.value)


def test_output_errors(tmp_path, llama):
    target = tmp_path / "no" / "such" / "dir" / "w.json"
    with pytest.raises(flux.InputError) as e:
        flux.write_workload(llama, target)
    assert str(target) in e.value.file or str(target) in str(e.value)
    assert not target.exists()


def test_type_errors(llama):
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        flux.System(bogus=1)
    with pytest.raises(TypeError, match="switches"):
        flux.System(switches=[2])
    with pytest.raises(TypeError):
        flux.System(switches=True)
    with pytest.raises(TypeError, match="lp_bound"):
        flux.schedule(llama, lp_bound=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'tau'"):
        flux.generate.llama3(tau=1)
