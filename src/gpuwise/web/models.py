"""Request bodies of the JSON API, derived from the one schema (gpuwise.workload.schema).

The field names, types, bounds and descriptions are the CLI's; only the nesting is the API's own.
"""

from __future__ import annotations

from pydantic import Field

from gpuwise.workload.schema import HardwareFields, RequirementFields, StrictFields, TargetFields, WorkloadFields


class WorkloadIn(WorkloadFields):
    """A workload; `model` is required here (the CLI may take it from a file)."""

    model: str = Field(
        min_length=1,
        max_length=1024,
        description=WorkloadFields.model_fields["model"].description,
        examples=["llama-2-7b"],
    )


class RequirementsIn(RequirementFields):
    """What a plan must meet: the serving target and the plan's own requirements."""


class PlanIn(StrictFields):
    """A plan request: the workload, its requirements, and how many candidates to return."""

    workload: WorkloadIn
    requirements: RequirementsIn = Field(default_factory=RequirementsIn)
    top: int = Field(default=5, ge=1, le=50)


class EstimateIn(HardwareFields, TargetFields):
    """An estimate request: the workload, the hardware (`gpu` is required) and an optional target."""

    workload: WorkloadIn
    gpu: str = Field(min_length=1, max_length=128, description=HardwareFields.model_fields["gpu"].description)
