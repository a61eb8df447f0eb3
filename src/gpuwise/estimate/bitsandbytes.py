"""What bitsandbytes' quantized linear layers add to a step of a generate loop.

A generate loop (transformers, Lit-GPT) runs int8 and nf4 weights through bitsandbytes, not through
a serving engine's fused kernels. Its layers are Python that launches several kernels per call where
a 16-bit nn.Linear launches one GEMM, and the loop issues every kernel from Python, so the extra
launches lengthen the step's host floor:

- LLM.int8() (Linear8bitLt, threshold 6.0, bitsandbytes 0.32 to 0.44): row and column statistics,
  the int8 quantization with its outlier count read back by the host, the outlier columns sorted,
  extracted and multiplied in 16 bits, the activations transformed to col32, the cublasLt int8 GEMM
  and the dequantization: about 42 launches a call;
- 4-bit (Linear4bit): one token takes bitsandbytes' GEMV kernel (0.40 on) on the packed weights,
  with the absmax dequantized first under double quantization (QLoRA) or the input cast to the fp32
  compute dtype and back (load_in_4bit as transformers leaves it); more than one token dequantizes
  each weight to 16 bits and multiplies it in a 16-bit GEMM (fp32 for load_in_4bit, after a copy),
  so the GPU also writes and rereads the whole 16-bit (or fp32) weight in every such step.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog import Catalog, TransformerArch
from gpuwise.catalog.schema import EngineProfile
from gpuwise.estimate.compute import block_linear_params
from gpuwise.workload import InferenceJob


@dataclass(frozen=True, slots=True)
class BnbLinears:
    """Per step of one replica: the host seconds the quantized linears' extra launches add (a step
    over one token, over more) and the GPU bytes their dequantization adds over more than one token."""

    host_one: float
    host_many: float
    dequant_bytes_many: float

    def host(self, tokens: int) -> float:
        return self.host_one if tokens <= 1 else self.host_many

    def dequant_bytes(self, tokens: int) -> float:
        return 0.0 if tokens <= 1 else self.dequant_bytes_many


def linear_modules(model: TransformerArch) -> float:
    """nn.Linear calls of one block in the Hugging Face (and Lit-GPT) modules: Llama-style blocks
    (gated MLP) call q, k, v, o, gate, up and down apart; BLOOM, Falcon, GPT-NeoX and GPT-2 one fused
    query_key_value, the output projection and the two MLP layers; a MoE block its routed experts'
    MLP once per expert a token picks, plus its shared expert."""
    attention: float = 4 if model.gated_ffn else 2
    mlp: float = 3 if model.gated_ffn else 2
    if model.is_moe:
        share = model.moe_layers / model.layers
        mlp = mlp * (1 - share) + mlp * share * (model.experts_per_token + (1 if model.shared_ffn else 0))
    return attention + mlp


def bnb_linears(
    job: InferenceJob, profile: EngineProfile, catalog: Catalog, host_per_kernel: float
) -> BnbLinears | None:
    """The bitsandbytes terms of a generate loop's step (None: not bitsandbytes weights, or an engine
    with its own quantized kernels: vLLM, TGI, TensorRT-LLM and the like are left as they are)."""
    model = job.model
    wd = job.weights_dtype
    if not profile.static_batching or wd not in ("int8", "nf4") or not isinstance(model, TransformerArch):
        return None
    calls = model.layers * linear_modules(model)
    conv = catalog.convention
    if wd == "int8":
        host = calls * conv("bnb_int8_extra_launches") * host_per_kernel
        return BnbLinears(host, host, 0.0)
    path = "qlora" if job.bnb_4bit == "qlora" else "load_in_4bit"
    one = calls * conv("bnb_4bit_gemv_extra_launches") * host_per_kernel
    many = calls * conv(f"bnb_4bit_dequant_extra_launches_{path}") * host_per_kernel
    weights = model.layers * block_linear_params(model) / job.parallel.tp
    return BnbLinears(one, many, weights * conv(f"bnb_4bit_dequant_bytes_{path}"))
