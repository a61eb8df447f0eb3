"""Request bodies of the JSON API: the CLI's names, typed, so the OpenAPI schema documents them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Pos = Field(default=None, gt=0, le=10**9)


class WorkloadIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, max_length=200, description="catalog id (gpuwise models)")
    task: Literal["pretrain", "finetune", "inference"] | None = None
    method: Literal["full", "lora", "qlora"] | None = None
    precision: Literal["fp32", "tf32", "fp16", "bf16", "fp8"] | None = None
    weights_dtype: Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "nf4"] | None = None
    kv_dtype: Literal["fp32", "fp16", "bf16", "fp8", "int8"] | None = None
    optimizer: Literal["adamw", "adamw-8bit", "sgd", "adafactor"] | None = None
    micro_batch: int | None = Field(default=None, ge=1, le=65536)
    global_batch: int | None = Field(default=None, ge=1, le=10**7)
    seq: int | None = Field(default=None, ge=1, le=1_048_576)
    recompute: Literal["none", "selective", "full"] | None = None
    lora_rank: int | None = Field(default=None, ge=1, le=4096)
    tokens: float | None = Field(default=None, gt=0, le=1e15)
    samples: float | None = Field(default=None, gt=0, le=1e13)
    input_tokens: int | None = Field(default=None, ge=1, le=1_048_576)
    output_tokens: int | None = Field(default=None, ge=0, le=1_048_576)
    concurrency: int | None = Field(default=None, ge=1, le=65536)


class RequirementsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    deadline: str | None = Field(default=None, max_length=32, description="e.g. 2h, 3d")
    qps: float | None = Field(default=None, gt=0, le=1e7)
    p95_ms: float | None = Field(default=None, gt=0, le=1e7)
    p99_ms: float | None = Field(default=None, gt=0, le=1e7)
    budget: float | None = Field(default=None, gt=0, le=1e12)
    max_gpus: int | None = Field(default=None, ge=1, le=4096)
    growth_model: str | None = Field(default=None, max_length=200)
    growth_data: float | None = Field(default=None, gt=0, le=1000)
    growth_users: float | None = Field(default=None, gt=0, le=1000)
    objective: Literal["cost", "time"] | None = None
    pricing: Literal["on-demand", "reserved", "spot", "owned"] | None = None
    years: float | None = Field(default=None, gt=0, le=30)
    gpus: list[str] | None = Field(default=None, max_length=64)
    methods: list[Literal["full", "lora", "qlora"]] | None = Field(default=None, max_length=3)


class PlanIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workload: WorkloadIn
    requirements: RequirementsIn = Field(default_factory=RequirementsIn)
    top: int = Field(default=5, ge=1, le=50)


class EstimateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workload: WorkloadIn
    gpu: str = Field(min_length=1, max_length=64, description="GPU id and total count, e.g. h100-sxm:8")
    qps: float | None = Field(default=None, gt=0, le=1e7)
    p95_ms: float | None = Field(default=None, gt=0, le=1e7)
    p99_ms: float | None = Field(default=None, gt=0, le=1e7)
