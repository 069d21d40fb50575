"""Paths from Python: a NUL character would make the system open the shorter
path before it ("w.json\\0x" names w.json), so every reader and writer
refuses it with flux.InputError, as Python's own open() refuses it, and
leaves the file as it was."""

import pytest

import flux


def test_nul_refused_by_readers(llama_file):
    for read in (flux.read_workload, flux.read_schedule, flux.read_metrics):
        with pytest.raises(flux.InputError, match="NUL|null byte"):
            read(str(llama_file) + "\0x")
    sweep_file = llama_file.parent / "s.toml"
    sweep_file.write_text('[axes]\nscheduler = ["ideal"]\n')
    with pytest.raises(flux.InputError, match="NUL"):
        flux.sweep(str(sweep_file) + "\0x", llama_file.parent / "out")
    assert not (llama_file.parent / "out").exists()
    # Read by Python's own open(): its ValueError, of which flux.InputError
    # is a kind too.
    with pytest.raises(ValueError, match="null byte"):
        flux.read_sweep_csv(str(llama_file) + "\0x")


def test_nul_refused_by_writers(tmp_path, llama, llama_file):
    target = tmp_path / "w.json"
    target.write_text("precious")
    with pytest.raises(flux.InputError, match="NUL"):
        flux.write_workload(llama, str(target) + "\0x")
    s = flux.schedule(llama, flux.System(switches=2, tau="10us"), scheduler="greedy")
    with pytest.raises(flux.InputError, match="NUL"):
        flux.write_schedule(s, str(target) + "\0x")
    with pytest.raises(flux.InputError, match="NUL"):
        flux.export_chakra(llama, str(tmp_path / "t") + "\0x")
    assert target.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json"]

