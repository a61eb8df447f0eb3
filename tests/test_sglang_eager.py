"""--enforce-eager under SGLang (its --disable-cuda-graph): the decoder layer's kernels, counted from SGLang's
llama.py as vLLM's, issued from Python, and the deployed server started without CUDA graphs."""

from __future__ import annotations

from gpuwise.api import make_estimate
from gpuwise.catalog import load_catalog
from gpuwise.deploy.engines import _sglang_args
from gpuwise.workload import build_workload

CAT = load_catalog()


def test_sglang_counts_the_layer_as_vllm_does():
    """SGLang's llama.py is vLLM's layer (12 kernels, 2 all-reduces under TP): the same counts, sourced."""
    sg, vl = CAT.engine("sglang"), CAT.engine("vllm")
    assert (sg.eager_kernels_per_layer, sg.eager_collectives_per_layer, sg.eager_kernels_head) == (12, 2, 20)
    assert (vl.eager_kernels_per_layer, vl.eager_collectives_per_layer) == (12, 2)
    assert sg.source_of("eager_kernels_per_layer") == "sglang-llama-layer"


def test_a_host_bound_eager_step_by_hand():
    """Llama 2 7B at one sequence on an H100 without CUDA graphs launches 32 x 12 + 20 = 404 kernels a step
    from Python, so its decode step is at least 404 host dispatches (decode_host_seconds_eager each), and
    longer than with graphs."""
    spec = {"model": "llama-2-7b", "task": "inference", "engine": "sglang", "input_tokens": 128, "output_tokens": 128}
    eager = make_estimate({**spec, "enforce_eager": True}, {"gpu": "h100-sxm:1"}).inference
    graphs = make_estimate(spec, {"gpu": "h100-sxm:1"}).inference
    assert eager is not None and graphs is not None
    assert eager.decode_seconds_per_token >= (32 * 12 + 20) * CAT.convention("decode_host_seconds_eager")
    assert eager.decode_seconds_per_token > graphs.decode_seconds_per_token


def test_the_deployed_server_runs_without_cuda_graphs():
    """A plan timed without CUDA graphs starts SGLang with --disable-cuda-graph; one timed with them does not."""
    opts = {"model": "llama-3.1-8b", "task": "inference", "engine": "sglang"}

    def flags(work) -> list[str]:
        args = _sglang_args(work, ("meta-llama/Llama-3.1-8B", "the model"), 32, (0.88, False), 8000)
        return [str(getattr(a, "value", a)) for a in args]

    assert "--disable-cuda-graph" in flags(build_workload({**opts, "enforce_eager": True}, CAT))
    assert "--disable-cuda-graph" not in flags(build_workload(opts, CAT))
