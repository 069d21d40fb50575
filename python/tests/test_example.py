"""docs/examples/fig2_panel.py: its rows are the CLI's numbers."""

import importlib.util

import pytest

import flux
from conftest import ROOT

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")


def load_example():
    spec = importlib.util.spec_from_file_location("fig2_panel",
                                                  ROOT / "docs" / "examples" / "fig2_panel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_panel_rows_match_cli(tmp_path, cli):
    example = load_example()
    df = example.panel(layers=1, taus=["100us"], time_limit=10)
    assert isinstance(df, pd.DataFrame)
    assert list(df.scheduler) == example.SCHEDULERS
    w = tmp_path / "w.json"
    cli("generate", "llama3", "--model", "8b", "--layers", "1", "--tp", "4", "--dp", "2",
        "-o", w)
    for _, row in df.iterrows():
        cli("simulate", w, "--scheduler", row.scheduler, "--switches", 2, "--tau", "100us",
            "--time-limit", "10s", "-o", tmp_path / "m.json")
        m = flux.read_metrics(tmp_path / "m.json")
        assert row.iteration_time_ms == m["iteration_time_s"] * 1e3, row.scheduler
        assert row.reconfigurations == m["reconfigurations"]
    example.plot(df, 1, str(tmp_path / "panel.png"))
    assert (tmp_path / "panel.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
