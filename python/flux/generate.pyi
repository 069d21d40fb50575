from typing import Literal

from . import Workload

_Int = int | str
_Number = float | int | str
_Time = float | int | str

def llama3(
    *,
    job: str = ...,
    model: Literal["8b", "70b", "405b"] = ...,
    gpu: Literal["a100", "h100"] = ...,
    collective: Literal["ring", "direct", "halving-doubling"] = ...,
    order: Literal["tp-cp-dp-pp", "tp-cp-pp-dp"] = ...,
    dp_sharding: Literal["none", "optimizer", "full"] = ...,
    sequence_parallel: bool = ...,
    embeddings: bool = ...,
    optimizer: bool = ...,
    layers: _Int = ...,
    hidden: _Int = ...,
    ffn: _Int = ...,
    heads: _Int = ...,
    kv_heads: _Int = ...,
    vocab: _Int = ...,
    tp: _Int = ...,
    dp: _Int = ...,
    fold_dp: _Int = ...,
    pp: _Int = ...,
    vpp: _Int = ...,
    cp: _Int = ...,
    seq: _Int = ...,
    micro_batch: _Int = ...,
    micro_batches: _Int = ...,
    scaleup_size: _Int = ...,
    gemm_efficiency: _Number = ...,
    attention_efficiency: _Number = ...,
    memory_efficiency: _Number = ...,
) -> Workload: ...
def random(
    *,
    ranks: _Int = ...,
    sends: _Int = ...,
    seed: _Int = ...,
    depth: _Int = ...,
    fan_in: _Int = ...,
    skip: _Number = ...,
    locality: _Number = ...,
    transfer: _Time = ...,
    size_spread: _Number = ...,
    compute: _Time = ...,
    compute_spread: _Number = ...,
    release: _Time = ...,
    tail: _Time = ...,
) -> Workload: ...
