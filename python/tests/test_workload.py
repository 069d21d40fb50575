"""Workloads: generators, files, arrays and Chakra traces, against the CLI."""

import numpy as np
import pytest

import flux
from conftest import LLAMA, LLAMA_FLAGS


def test_llama3_matches_cli(tmp_path, cli, llama, llama_file):
    cli("generate", "llama3", *LLAMA_FLAGS, "-o", tmp_path / "cli.json")
    assert (tmp_path / "cli.json").read_bytes() == llama_file.read_bytes()
    assert llama.accelerators == 8
    assert llama.num_sends == len(llama) > 0


def test_llama3_defaults_are_the_clis(tmp_path, cli):
    w = flux.generate.llama3(layers=1)
    cli("generate", "llama3", "--layers", "1", "-o", tmp_path / "cli.json")
    assert w.accelerators == 8  # TP4 x DP2, as `flux generate llama3`
    flux.write_workload(w, tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()


def test_llama3_options_match_cli(tmp_path, cli):
    w = flux.generate.llama3(model="8b", layers=4, tp=2, dp=2, pp=2, micro_batches=2,
                             sequence_parallel=True, optimizer=False, gpu="h100",
                             dp_sharding="optimizer", gemm_efficiency=0.6)
    cli("generate", "llama3", "--model", "8b", "--layers", "4", "--tp", "2", "--dp", "2", "--pp",
        "2", "--micro-batches", "2", "--sequence-parallel", "--no-optimizer", "--gpu", "h100",
        "--dp-sharding", "optimizer", "--gemm-efficiency", "0.6", "-o", tmp_path / "cli.json")
    flux.write_workload(w, tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert w.accelerators == 8


def test_random_matches_cli(tmp_path, cli):
    w = flux.generate.random(ranks=6, sends=50, depth=4, seed=7, transfer="20us", compute=5e-6)
    cli("generate", "random", "--ranks", "6", "--sends", "50", "--depth", "4", "--seed", "7",
        "--transfer", "20us", "--compute", "5us", "-o", tmp_path / "cli.json")
    flux.write_workload(w, tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert (w.accelerators, w.num_sends) == (6, 50)


def test_read_write_round_trip(tmp_path, llama, llama_file):
    w = flux.read_workload(llama_file)
    assert (w.name, w.accelerators, w.num_sends, w.num_deps, w.total_bytes) == (
        llama.name, llama.accelerators, llama.num_sends, llama.num_deps, llama.total_bytes)
    flux.write_workload(w, str(tmp_path / "again.json.gz"))
    again = flux.read_workload(tmp_path / "again.json.gz")
    assert np.array_equal(again.bytes, llama.bytes)


def test_arrays(llama):
    n = llama.num_sends
    for a, dtype in [(llama.ids, np.uint64), (llama.src, np.uint32), (llama.dst, np.uint32),
                     (llama.bytes, np.uint64), (llama.release_ps, np.int64),
                     (llama.tail_ps, np.int64)]:
        assert a.shape == (n,) and a.dtype == dtype
    assert int(llama.bytes.sum()) == llama.total_bytes
    assert np.all(llama.src != llama.dst)
    assert np.all(llama.src < llama.accelerators) and np.all(llama.dst < llama.accelerators)
    assert llama.dep_from.shape == llama.dep_to.shape == (llama.num_deps,)
    assert np.all(llama.dep_compute_ps >= 0)
    assert np.all(llama.dep_to < n)


def test_traffic_matrix(llama):
    m = llama.traffic_matrix()
    assert m.shape == (8, 8) and m.dtype == np.uint64
    assert int(m.sum()) == llama.total_bytes
    assert np.all(np.diag(m) == 0)
    src, dst, b = llama.traffic_pairs()
    assert np.array_equal(m[src, dst], b)
    assert np.count_nonzero(m) == len(b)
    # The matrix adds the bytes of each pair's sends.
    expect = np.zeros((8, 8), dtype=np.uint64)
    np.add.at(expect, (llama.src, llama.dst), llama.bytes)
    assert np.array_equal(m, expect)


def test_summary_matches_info(cli, llama, llama_file):
    s = llama.summary()
    assert s["sends"] == llama.num_sends and s["total_bytes"] == llama.total_bytes
    out = cli("info", llama_file).stdout
    assert f"pairs           {s['pairs']} (src, dst)" in out
    assert f"dependencies    {s['deps']}\n" in out
    path_ms = f"{s['critical_path_ps'] / 1e9:.2f} ms on an ideal network"
    assert f"critical path   {path_ms}" in out
    assert 0 < s["compute_on_path_ps"] <= s["critical_path_ps"]
    # The CLI's matrix, in MiB, from the same numbers.
    m = llama.traffic_matrix()
    assert f"{m[0, 1] / 2**20:.1f}" in out.splitlines()[-8]


def test_chakra_round_trip(tmp_path, cli, llama, llama_file):
    files = flux.export_chakra(llama, tmp_path / "tr")
    assert files[0].endswith("tr.0.et") and len(files) == 8 + 1  # and tr.json
    cli("generate", "llama3", *LLAMA_FLAGS, "--format", "chakra", "-o", tmp_path / "cli")
    for r in range(8):
        assert (tmp_path / f"tr.{r}.et").read_bytes() == (tmp_path / f"cli.{r}.et").read_bytes()
    back = flux.import_chakra(tmp_path / "tr")
    flux.write_workload(back, tmp_path / "back.json")
    # Importing what Flux exported gives back the workload, byte for byte.
    assert (tmp_path / "back.json").read_bytes() == llama_file.read_bytes()
    named = flux.import_chakra(str(tmp_path / "tr"), name="renamed", scaleup_size=4)
    assert (named.name, named.scaleup_size) == ("renamed", 4)


def test_export_needs_a_generated_llama(tmp_path, llama_file):
    w = flux.read_workload(llama_file)
    with pytest.raises(flux.InputError) as e:
        flux.export_chakra(w, tmp_path / "tr")
    assert e.value.field == "workload"
    folded = flux.generate.llama3(model="8b", layers=1, tp=2, dp=8, fold_dp=4)
    assert folded.fold_copies == 2 and folded.job_accelerators == 16
    with pytest.raises(flux.InputError, match="no Chakra form"):
        flux.export_chakra(folded, tmp_path / "f")
