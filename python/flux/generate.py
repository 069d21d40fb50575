"""Workload generators: flux.generate.llama3(...), flux.generate.moe(...) and
flux.generate.random(...).

Keywords are `flux generate`'s options (--micro-batches -> micro_batches;
--no-optimizer -> optimizer=False); help(flux.generate.llama3) lists them with
their defaults and bounds, taken from the library's option tables.
"""

from . import _flux

__all__ = ["llama3", "moe", "random"]


def llama3(**options):
    return _flux.generate_llama3(**options)


def moe(**options):
    return _flux.generate_moe(**options)


def random(**options):
    return _flux.generate_random(**options)


llama3.__doc__ = _flux.generate_llama3.__doc__
moe.__doc__ = _flux.generate_moe.__doc__
random.__doc__ = _flux.generate_random.__doc__
