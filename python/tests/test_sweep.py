"""flux.sweep against `flux sweep` on the same sweep file (tests/data/sweep):
the same CSV (wall-time columns aside), its columns as numpy arrays, resume,
Ctrl-C, progress, errors; flux.read_sweep_csv."""

import _thread
import os
import pathlib
import threading

import numpy as np
import pytest

import flux
from conftest import ROOT, without_wall

DATA = ROOT / "tests" / "data" / "sweep"


@pytest.fixture(scope="module")
def cli_small(tmp_path_factory, cli):
    out = tmp_path_factory.mktemp("cli")
    cli("sweep", DATA / "small.toml", "-o", out, "-j", "2", "--no-plot")
    return out / "small.csv"


@pytest.fixture(scope="module")
def py_small(tmp_path_factory):
    out = tmp_path_factory.mktemp("py")
    seen = []
    result = flux.sweep(DATA / "small.toml", out, jobs=2, progress=seen.append)
    return result, seen


def test_same_csv_as_the_cli(cli_small, py_small):
    result, _ = py_small
    assert without_wall(cli_small) == without_wall(pathlib.Path(result.csv))
    assert result.points == 24 and result.ran == 24 and result.resumed == 0


def test_rows_as_columns(cli_small, py_small):
    result, _ = py_small
    cli_rows = flux.read_sweep_csv(cli_small)
    assert list(result) == list(cli_rows)
    assert len(result["point_status"]) == 24
    assert set(result["point_status"]) == {"ok"}
    # Axes as the file gives them; metrics as numbers.
    assert result["layers"].dtype == np.int64 and set(result["layers"]) == {1, 2}
    assert result["tau"].dtype.kind == "U" and set(result["tau"]) == {"10us", "1ms"}
    assert result["tau_s"].dtype == np.float64
    assert result["peak_nic_bytes"].dtype == np.int64
    np.testing.assert_array_equal(result["iteration_time_s"], cli_rows["iteration_time_s"])
    np.testing.assert_array_equal(result["peak_nic_bytes"], cli_rows["peak_nic_bytes"])
    np.testing.assert_array_equal(result["reconfigurations"], cli_rows["reconfigurations"])
    # A metric the scheduler does not have is NaN (only flux-milp plans a makespan).
    milp = result["scheduler"] == "flux-milp"
    assert np.isnan(result["schedule_makespan_s"][~milp]).all()
    assert not np.isnan(result["schedule_makespan_s"][milp]).any()
    # The filter kept tp * dp == 8.
    assert set(zip(result["tp"], result["dp"])) == {(2, 4), (4, 2)}
    # At every point the ideal network is never slower than a real schedule.
    config = list(zip(result["layers"], result["tp"], result["dp"], result["tau"]))
    ideal = {c: t for c, s, t in zip(config, result["scheduler"], result["iteration_time_s"])
             if s == "ideal"}
    assert len(ideal) == 8
    assert all(ideal[c] <= t for c, t in zip(config, result["iteration_time_s"]))
    assert "small" in result.summary


def test_progress_sees_every_point(py_small):
    _, seen = py_small
    assert [p["done"] for p in seen] == list(range(1, 25))
    assert {p["total"] for p in seen} == {24}
    assert {p["status"] for p in seen} == {"ok"}
    assert len({p["point"] for p in seen}) == 24


def test_dict_spec_and_resume(tmp_path, py_small):
    result, _ = py_small
    spec = {
        "name": "small",
        "filter": "tp * dp == 8",
        "axes": {"layers": [1], "tp": [2, 4], "dp": [2, 4], "tau": ["10us", "1ms"],
                 "scheduler": ["rotornet", "ideal"]},
    }
    first = flux.sweep(spec, tmp_path, jobs=1)
    assert first.ran == 8 and first.resumed == 0
    again = flux.sweep(spec, tmp_path, jobs=1)
    assert again.ran == 0 and again.resumed == 8
    for column in ("iteration_time_s", "peak_nic_bytes", "tau"):
        np.testing.assert_array_equal(first[column], again[column])
    # The same points as the TOML sweep's, the same numbers.
    mine = dict(zip(zip(first["tp"], first["tau"], first["scheduler"]), first["iteration_time_s"]))
    for layers, tp, tau, sched, t in zip(result["layers"], result["tp"], result["tau"],
                                         result["scheduler"], result["iteration_time_s"]):
        if layers == 1 and sched != "flux-milp":
            assert mine[(tp, tau, sched)] == t
    assert flux.sweep(spec, tmp_path, jobs=1, fresh=True).ran == 8


def test_ctrl_c_stops_and_resumes(tmp_path):
    # The ideal point takes milliseconds; flux-milp's takes its 30 s (CBC does
    # not close this instance's gap), so Ctrl-C finds it running.
    spec = {"name": "long", "axes": {"layers": [8], "tp": [4], "dp": [2], "gpu": ["h100"],
                                     "tau": ["1ms"], "scheduler": ["ideal", "flux-milp"],
                                     "time_limit": ["30s"]}}
    timer = threading.Timer(1.5, _thread.interrupt_main)  # as Ctrl-C would
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            flux.sweep(spec, tmp_path, jobs=1)
    finally:
        timer.cancel()
    with pytest.raises(ChildProcessError):  # every point's process reaped
        os.waitpid(-1, os.WNOHANG)
    lines = (tmp_path / "long.csv").read_text().splitlines()
    assert len(lines) == 2 and ",ideal,ok," in lines[1]  # the killed point not recorded
    assert not (tmp_path / "long-summary.txt").exists()
    # Resumed: the ideal point kept, flux-milp's killed at its point timeout.
    result = flux.sweep(spec, tmp_path, jobs=1, point_timeout=2)
    assert result.resumed == 1 and result.ran == 1
    assert list(result["point_status"]) == ["ok", "timeout"]
    assert (tmp_path / "long-summary.txt").exists()


def test_progress_that_raises_stops_the_sweep(tmp_path):
    def stop(p):
        raise RuntimeError(f"enough after {p['point']}")

    with pytest.raises(RuntimeError, match="enough after"):
        flux.sweep(DATA / "small.toml", tmp_path, jobs=1, progress=stop)
    lines = (tmp_path / "small.csv").read_text().splitlines()
    assert len(lines) == 2  # the point that had finished


def test_errors(tmp_path):
    with pytest.raises(flux.InputError) as e:
        flux.sweep(DATA / "missing.toml", tmp_path)
    assert e.value.file.endswith("missing.toml")
    with pytest.raises(flux.InputError) as e:
        flux.sweep({"name": "x", "axes": {"layers": [1], "colour": ["red"]}}, tmp_path)
    assert e.value.file == "<dict>" and "colour" in e.value.field
    with pytest.raises(flux.InputError) as e:
        flux.sweep(DATA / "small.toml", tmp_path, memory_budget="lots")
    assert e.value.field == "--memory-budget" and e.value.value == "lots"
    with pytest.raises(flux.InputError) as e:
        flux.sweep(DATA / "small.toml", tmp_path, jobs=0)
    assert e.value.field == "--jobs"
    with pytest.raises(flux.InputError) as e:
        flux.sweep(DATA / "small.toml", tmp_path, point_timeout="soon")
    assert e.value.field == "--point-timeout"
    # point_timeout as every numeric argument: a bad value is flux.InputError
    # naming it, a wrong type TypeError, never pybind11's cast error.
    for bad_timeout in (float("nan"), -1, 1e30, "-1s"):
        with pytest.raises(flux.InputError) as e:
            flux.sweep(DATA / "small.toml", tmp_path, point_timeout=bad_timeout)
        assert e.value.field == "--point-timeout"
    for wrong_type in ([1], {"s": 1}, True):
        with pytest.raises(TypeError, match="point_timeout"):
            flux.sweep(DATA / "small.toml", tmp_path, point_timeout=wrong_type)
    with pytest.raises(TypeError):
        flux.sweep(DATA / "small.toml", tmp_path, jobs="2")
    assert not (tmp_path / "small.csv").exists()  # nothing run, nothing written
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3\n")
    with pytest.raises(flux.InputError) as e:
        flux.read_sweep_csv(bad)
    assert e.value.field == "line 3"


def test_deep_and_huge_specs_are_refused(tmp_path):
    """Issue 28: a filter or a spec nested past its bound, a product past
    its bound, a name with a control character: flux.InputError (before,
    a deep filter killed the interpreter with SIGSEGV), nothing written."""
    axes = {"layers": [1, 2], "scheduler": "ideal"}

    def nested(n):
        v = []
        for _ in range(n - 1):
            v = [v]
        return v

    deep = "(" * 20000 + "layers" + ")" * 20000 + " > 0"
    for spec, field, problem in [
        ({"axes": axes, "filter": deep}, "filter", "nested deeper than 256 levels"),
        ({"axes": axes, "filter": "-" * 30000 + "1"}, "filter", "nested deeper than 256"),
        ({"axes": axes, "filter": " + ".join(["layers"] * 30000)}, "filter", "longer than 65536"),
        ({"axes": axes, "x": nested(300)}, "x[0][0]", "nested deeper than 256 levels"),
        ({"axes": axes, "x": nested(100000)}, "", "nested deeper than 256 levels"),
        ({"axes": {"layers": list(range(1, 101)), "tp": list(range(1, 101)),
                   "dp": list(range(1, 101)), "seq": list(range(1, 101)),
                   "scheduler": ["ideal", "bvn"]}}, "axes", "200000000 combinations"),
        ({"name": "a\0b", "axes": axes}, "name", "control characters"),
    ]:
        with pytest.raises(flux.InputError) as e:
            flux.sweep(spec, tmp_path)
        assert e.value.file == "<dict>"
        assert e.value.field.startswith(field), e.value.field
        assert problem in e.value.problem
        assert "\n" not in str(e.value)
    assert list(tmp_path.iterdir()) == []
    # A long flat sum within the bound is evaluated (one node, in a loop).
    result = flux.sweep({"name": "flat", "axes": axes,
                         "filter": " + ".join(["layers"] * 7000) + " > 7000"}, tmp_path)
    assert result.points == 1 and list(result["layers"]) == [2]
