"""flux.evaluate against `flux evaluate` on a reduced paper-fig2 preset: the
same CSV (wall-time columns aside), the summary, the counts, resume, the
progress lines, errors."""

import pytest

import flux
from conftest import without_wall

ARGS = dict(layers=[1], taus=["1ms"], schedulers=["ideal", "bvn"])


@pytest.fixture(scope="module")
def fig2(tmp_path_factory):
    out = tmp_path_factory.mktemp("py")
    lines = []
    return flux.evaluate("paper-fig2", out, progress=lines.append, **ARGS), out, lines


def test_runs_the_preset(fig2):
    r, out, lines = fig2
    csv = out / "fig2.csv"
    assert r["csv"] == str(csv) and csv.exists()
    assert len(csv.read_text().splitlines()) == 1 + 2  # the header, a row per scheduler
    assert (r["points"], r["ran"], r["measured"], r["resumed"]) == (2, 2, 2, 0)
    assert r["cannot_run"] == []
    assert "ideal" in r["summary"] and "bvn" in r["summary"]
    assert (out / "summary.txt").read_text() == r["summary"]
    assert lines[0].startswith("flux evaluate: preset paper-fig2, 2 points")
    assert [line[:8] for line in lines[2:]] == ["[  1/2] ", "[  2/2] "]


def test_same_csv_as_the_cli(fig2, tmp_path, cli):
    r, out, _ = fig2
    cli("evaluate", "--preset", "paper-fig2", "--layers", "1", "--tau", "1ms",
        "--schedulers", "ideal,bvn", "-o", tmp_path, "--no-plot")
    assert without_wall(out / "fig2.csv") == without_wall(tmp_path / "fig2.csv")
    assert (tmp_path / "summary.txt").read_text().splitlines()[:1] == \
        r["summary"].splitlines()[:1]


def test_resumes(fig2):
    _, out, _ = fig2
    r = flux.evaluate("paper-fig2", out, **ARGS)
    assert (r["points"], r["ran"], r["resumed"]) == (2, 0, 2)


def test_errors(tmp_path):
    with pytest.raises(flux.InputError) as e:
        flux.evaluate("fig3", tmp_path)
    assert str(e.value).startswith("--preset = fig3: unknown preset")
    assert "\n" not in str(e.value)
    with pytest.raises(flux.InputError, match="--schedulers = magic"):
        flux.evaluate("paper-fig2", tmp_path, schedulers=["magic"])
    with pytest.raises(flux.InputError, match="--jobs = 0"):
        flux.evaluate("paper-fig2", tmp_path, jobs=0)
    with pytest.raises(TypeError, match="taus: expected a list"):
        flux.evaluate("paper-fig2", tmp_path, taus="1ms")


def test_stub_lists_the_keywords():
    import re

    from test_api import STUBS, stub_function

    signature = flux.evaluate.__doc__.splitlines()[0]
    positional, keywords = signature.split("*,")
    stub = stub_function("__init__.pyi", "evaluate")
    assert [a.arg for a in stub.args.args] == re.findall(r"(\w+):", positional.split("(", 1)[1])
    assert [a.arg for a in stub.args.kwonlyargs] == re.findall(r"(\w+):", keywords)
