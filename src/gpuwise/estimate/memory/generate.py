"""The transient peak of a generate loop (Hugging Face transformers), beyond its weights and its
final KV cache: what the loop holds at each of the moments that can be the peak.

Unlike a serving engine (paged KV cache, prompts in chunks, logits of the last tokens only), a
generate call prefills the whole batch in one forward pass and grows a contiguous cache by
torch.cat (catalog engines.yaml, the `transformers` profiles):

- the last layer's attention during the prefill: the cache of the prompt, one layer's
  activations over every prompt token, and with eager attention the score matrix
  (batch x heads x prompt x prompt) scaled, masked and softmaxed in fp32, or (later in the layer,
  whichever is larger) the softmaxed weights the layer still holds beside a linear's transients;
- the end of the prefill: the LM head's logits in 16-bit and their fp32 copy, for every
  position (before logits_to_keep) or for the last;
- a decode step: the cache grown by one token beside the previous step's, whole when the loop
  keeps it referenced until the step returns (tuple caches) or one layer's otherwise, plus the
  previous step's fp32 logits, which generate's outputs keep alive.

bitsandbytes 4-bit weights loaded as transformers leaves `load_in_4bit=True` compute in fp32
(BitsAndBytesConfig's bnb_4bit_compute_dtype): Linear4bit casts its input to fp32, and a forward over
more than one row (bitsandbytes' matmul_4bit: gemv_4bit only for a single row) runs MatMul4Bit,
which dequantizes the whole weight to 16 bits and copies it to fp32 before F.linear: the largest
linear's weight in 16-bit and fp32, its fp32 input and fp32 output are transient beside the layer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpuwise.catalog import TransformerArch
from gpuwise.catalog.schema import EngineProfile
from gpuwise.estimate.compute import kv_width_per_gpu
from gpuwise.workload.specs import DTYPE_BYTES, InferenceJob

FP32 = DTYPE_BYTES["fp32"]  # the logits' and softmax's upcast


@dataclass(frozen=True, slots=True)
class GeneratePeak:
    """Bytes on one GPU at each candidate peak (`kv` included), and the largest's name."""

    attention: float
    logits: float
    decode: float
    final_kv: float

    @property
    def peak(self) -> float:
        return max(self.attention, self.logits, self.decode, self.final_kv)

    @property
    def moment(self) -> str:
        named = {"prefill attention": self.attention, "prefill logits": self.logits, "a decode step": self.decode}
        return max(named, key=lambda k: named[k])


def score_matrix_peak(batch: int, heads: float, seq: int, dtype: str) -> float:
    """Bytes eager attention holds at once over a prompt of `seq` tokens: with S the 16-bit
    scores, the scaled copy beside the matmul's output (2 S), then the softmax with an fp32
    result beside its input: bf16 is first converted to an fp32 copy (S + 2 x fp32 scores),
    fp16 is upcast inside the kernel (S + fp32 scores), then cast back (S + fp32 + S); plus the
    4D causal mask batch x 1 x seq x seq (PyTorch softmax, engines.yaml pytorch-softmax-upcast)."""
    act_bytes = DTYPE_BYTES[dtype]
    pairs = batch * heads * seq * seq
    s, s32 = pairs * act_bytes, pairs * FP32
    softmax = s + 2 * s32 if dtype == "bf16" else s + s32
    return max(2 * s, softmax, s + s32 + s) + batch * seq * seq * act_bytes


def eager_score_bytes(dtype: str) -> float:
    """Bytes of memory traffic per score of eager attention's prefill, over the same kernels as
    `score_matrix_peak`: the QK^T matmul writes it, the scale and the mask add each read and write
    it, the softmax reads it and writes fp32 (bf16: through an fp32 copy, written then read again),
    the cast back reads fp32 and writes 16-bit, the PV matmul reads it."""
    e = DTYPE_BYTES[dtype]
    softmax = e + FP32 + (2 * FP32 if dtype == "bf16" else 0.0)
    return e + 2 * e + 2 * e + softmax + (FP32 + e) + e


def fp32_dequant_bytes(model: TransformerArch, rows: int, tp: int) -> float:
    """The most one 4-bit linear holds at once under an fp32 compute dtype with `rows` rows in its
    input (MatMul4Bit: `F.dequantize_4bit(B).to(A.dtype)`, then `F.linear`): its fp32 input, the fp32
    weight, and the 16-bit weight while it is copied or the fp32 output while the GEMM runs; none for a
    single row (gemv_4bit reads the packed weight)."""
    if rows <= 1:
        return 0.0
    most = 0.0
    for _, dense in model.block_kinds():
        for lin in model.linears(dense):
            weight = lin.d_in * lin.d_out / tp
            out = rows * lin.d_out / tp * FP32
            most = max(most, rows * lin.d_in * FP32 + weight * FP32 + max(weight * DTYPE_BYTES["bf16"], out))
    return most


def generate_peak(
    model: TransformerArch, job: InferenceJob, profile: EngineProfile, kv_at: Callable[[int], float], dtype: str
) -> GeneratePeak:
    """The candidate peaks of one generate call (module docstring); `kv_at(tokens)` is the
    cache of the whole batch at `tokens` tokens a request, on this GPU."""
    tp, b, s = job.parallel.tp, job.concurrency, job.input_tokens
    act_bytes = int(DTYPE_BYTES[dtype])
    attention = job.attention or profile.attention
    vocab = model.vocab / tp if model.lm_head else 0.0
    tokens = b * s
    layer = (
        act_bytes
        * tokens
        * (
            2 * model.hidden
            + model.q_dim / tp
            + kv_width_per_gpu(model, tp)
            + (3 if model.gated_ffn else 2) * model.mlp_width() / tp
        )
    )
    scores = score_matrix_peak(b, model.heads / tp, s, dtype) if attention == "eager" else 0.0
    fp32_compute = job.weights_dtype == "nf4" and job.bnb_4bit == "load-in-4bit"
    dequant = fp32_dequant_bytes(model, tokens, tp) if fp32_compute else 0.0
    # the score matrix's transients and a linear's dequantized weight are never alive together; eager
    # attention returns its softmaxed weights and the decoder layer holds them (`hidden_states, _ =
    # self.self_attn(...)`) through its MLP, so they sit beside the largest linear's dequantization
    kept_probs = b * model.heads / tp * s * s * act_bytes if attention == "eager" else 0.0
    transient = max(scores, kept_probs + dequant)
    step_dequant = fp32_dequant_bytes(model, b, tp) if fp32_compute else 0.0
    positions = s if profile.prefill_logits == "all" else 1
    prefill_logits = b * positions * vocab * (act_bytes + FP32)
    kept = b * positions * vocab * FP32  # generate's outputs keep the fp32 logits into the next step
    step_logits = b * vocab * (act_bytes + FP32)
    final = kv_at(s + max(job.output_tokens, 1) - 1) if job.output_tokens > 1 else kv_at(s)
    decode = 0.0
    if job.output_tokens > 1:
        last = s + job.output_tokens - 1
        if profile.kv_concat == "cache":  # the previous step's whole cache beside the new one
            first = kv_at(s) + kv_at(s + 1) + kept + step_logits
            later = kv_at(last - 1) + kv_at(last) + b * vocab * FP32 + step_logits
        else:  # one layer's previous tensor at a time
            first = kv_at(s + 1) * (1 + 1 / model.layers) + kept + step_logits
            later = kv_at(last) * (1 + 1 / model.layers) + b * vocab * FP32 + step_logits
        decode = max(first, later) + step_dequant
    return GeneratePeak(
        attention=kv_at(s) + layer + transient,
        logits=kv_at(s) + prefill_logits,
        decode=decode,
        final_kv=final,
    )
