"""The package's surface: the stub (.pyi) against the module, the keywords
documented from the option tables, and the GIL released by long calls."""

import ast
import inspect
import pathlib
import re
import threading

import flux

STUBS = pathlib.Path(flux.__file__).parent


def stub_function(stub, name):
    tree = ast.parse((STUBS / stub).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise AssertionError(f"{name} not in {stub}")


def stub_keywords(stub, name):
    return {a.arg for a in stub_function(stub, name).args.kwonlyargs}


def doc_keywords(fn):
    return set(re.findall(r"^    (\w+): ", fn.__doc__, flags=re.M))


def test_stub_lists_what_the_module_takes():
    assert stub_keywords("__init__.pyi", "schedule") == doc_keywords(flux.schedule)
    assert stub_keywords("__init__.pyi", "simulate") == doc_keywords(flux.simulate)
    assert stub_keywords("generate.pyi", "random") == doc_keywords(flux.generate.random)
    assert stub_keywords("generate.pyi", "llama3") == doc_keywords(flux.generate.llama3)
    assert stub_keywords("generate.pyi", "moe") == doc_keywords(flux.generate.moe)
    # The pure-Python functions: their own signatures, positional parameters too.
    for name in ("sweep", "read_sweep_csv"):
        stub = stub_function("__init__.pyi", name)
        params = inspect.signature(getattr(flux, name)).parameters.values()
        assert [a.arg for a in stub.args.args] == [
            p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD]
        assert [a.arg for a in stub.args.kwonlyargs] == [
            p.name for p in params if p.kind == p.KEYWORD_ONLY]
    tree = ast.parse((STUBS / "__init__.pyi").read_text())
    init = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "System")
    fn = next(n for n in init.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert {a.arg for a in fn.args.kwonlyargs} == doc_keywords(flux.System)


def test_every_public_name_exists():
    for name in flux.__all__:
        assert getattr(flux, name) is not None
    tree = ast.parse((STUBS / "__init__.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert stubbed <= set(dir(flux))
    assert (STUBS / "py.typed").exists()


def test_docstrings_give_defaults_and_bounds():
    assert "time_limit: wall-clock budget" in flux.schedule.__doc__
    assert "[default 1m" in flux.schedule.__doc__ or "[default 60" in flux.schedule.__doc__
    assert "lp_bound: False: " in flux.schedule.__doc__
    assert "switches: number of optical circuit switches (s) [default 2; between 1 and" in (
        flux.System.__doc__)


def test_long_calls_release_the_gil():
    w = flux.generate.random(ranks=16, sends=3000, seed=1)
    done = threading.Event()
    ticks = 0

    def run():
        flux.schedule(w, time_limit=1, moves=0)  # searches until the time limit
        done.set()

    t = threading.Thread(target=run)
    t.start()
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    t.join()
    # Held, the GIL would have let the loop run at most a few times.
    assert ticks > 50


def test_moe_generation_releases_the_gil():
    done = threading.Event()
    ticks = 0

    def run():
        flux.generate.moe(dp=64, ep=8, micro_batches=4)  # about 0.5M sends: ~1 s
        done.set()

    t = threading.Thread(target=run)
    t.start()
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    t.join()
    assert ticks > 50


def stopped_by_ctrl_c(call, after=0.5):
    """Runs call() with Ctrl-C (as the terminal would send it) `after` seconds in;
    asserts it raised KeyboardInterrupt and returns the seconds it took."""
    import _thread
    import time

    timer = threading.Timer(after, _thread.interrupt_main)
    t0 = time.monotonic()
    timer.start()
    try:
        call()
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("no KeyboardInterrupt")
    finally:
        timer.cancel()
    return time.monotonic() - t0


def test_ctrl_c_stops_a_schedule():
    w = flux.generate.random(ranks=16, sends=3000, seed=2)
    # Would search for 60 s; stopped, not run to its limit.
    assert stopped_by_ctrl_c(lambda: flux.schedule(w, time_limit=60, moves=0)) < 20
    # The module still works afterwards.
    assert flux.schedule(w, time_limit=5).status in ("optimal", "feasible")


def test_ctrl_c_stops_flux_milp():
    # CBC does not close this instance's gap in 15 s (flux-milp's watchdog kills it).
    w = flux.generate.random(ranks=8, sends=120, seed=3)
    call = lambda: flux.schedule(w, scheduler="flux-milp", time_limit=60)  # noqa: E731
    assert stopped_by_ctrl_c(call, after=1.0) < 20
    s = flux.schedule(w, scheduler="greedy")
    assert flux.validate(w, s).ok


def test_ctrl_c_stops_a_simulation(llama):
    s = flux.schedule(llama, scheduler="rotornet")
    one = flux.simulate(llama, s, compute_jitter=0.05)
    # A million perturbed trials would take hours.
    call = lambda: flux.simulate(llama, s, compute_jitter=0.05, trials=1000000)  # noqa: E731
    assert stopped_by_ctrl_c(call) < 20
    assert flux.simulate(llama, s, compute_jitter=0.05).iteration_time_ps == one.iteration_time_ps
