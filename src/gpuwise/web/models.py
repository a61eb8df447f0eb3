"""Request and error bodies of the JSON API, derived from the one schema (gpuwise.workload.schema).

The field names, types, bounds and descriptions are the CLI's; only the nesting is the API's own,
and `model` is a catalog id only: the server never opens a path a request names. A model of one's
own is sent as the text of its config.json (`config_json`), parsed in memory.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from gpuwise.web.data import MAX_CONFIG_BYTES
from gpuwise.workload.schema import HardwareFields, RequirementFields, StrictFields, TargetFields, WorkloadFields

MODEL_HELP = (
    "Catalog id (GET /api/models lists them). A path is not accepted: send a Hugging Face "
    "config.json as `config_json` instead."
)
CONFIG_JSON_HELP = (
    "The text of a Hugging Face config.json, used instead of `workload.model` "
    "(named from its `_name_or_path`); parsed in memory, never stored."
)


class WorkloadIn(WorkloadFields):
    """A workload; `model` is a catalog id (or the request carries `config_json`)."""

    model: str | None = Field(
        default=None, min_length=1, max_length=128, description=MODEL_HELP, examples=["llama-2-7b"]
    )


class RequirementsIn(RequirementFields):
    """What a plan must meet: the serving target and the plan's own requirements. The fields that
    name a file (`prices`) are the CLI's only: hidden here, and refused if sent."""

    prices: SkipJsonSchema[str | None] = None


class PlanIn(StrictFields):
    """A plan request: the workload, its requirements, and how many candidates to return."""

    model_config = ConfigDict(defer_build=False)  # a request body: FastAPI needs its schema at once

    workload: WorkloadIn
    requirements: RequirementsIn = Field(default_factory=RequirementsIn)
    top: int = Field(default=5, ge=1, le=50)
    config_json: str | None = Field(
        default=None, min_length=2, max_length=MAX_CONFIG_BYTES, description=CONFIG_JSON_HELP
    )


class EstimateIn(HardwareFields, TargetFields):
    """An estimate request: the workload, the hardware (`gpu` is required) and an optional target."""

    model_config = ConfigDict(defer_build=False)  # a request body: FastAPI needs its schema at once

    workload: WorkloadIn
    gpu: str = Field(min_length=1, max_length=128, description=HardwareFields.model_fields["gpu"].description)
    config_json: str | None = Field(
        default=None, min_length=2, max_length=MAX_CONFIG_BYTES, description=CONFIG_JSON_HELP
    )


class ErrorOut(BaseModel):
    """A request gpuwise cannot answer: what was wrong and what to do."""

    detail: str = Field(description="What was wrong and what to do (names the field and the rule).")


class UnprocessableOut(BaseModel):
    """422: a body that fails validation (a list of problems, FastAPI's shape) or a valid question
    that no configuration meets (a message)."""

    detail: str | list[dict[str, Any]]


def _answer(description: str, model: type[BaseModel] = ErrorOut) -> dict[str, Any]:
    return {"model": model, "description": description}


# every status any /api route can answer besides 200 (the guard's, the server's and the handlers' own)
ERRORS: dict[int | str, dict[str, Any]] = {
    400: _answer(
        'A value this schema refuses, checked by gpuwise: an id the catalog lacks (with "did you mean"), '
        "a field naming a file; or a Host this server does not answer to."
    ),
    401: _answer("The server runs with a token and the request has none or a wrong one."),
    408: _answer("The request body arrived too slowly."),
    413: _answer("The request body is larger than the server's limit."),
    503: {
        "description": "Too many connections from one address, or all busy (plain text, before the request is read); retry."
    },
}
# and what a route that takes input can answer besides
INPUT_ERRORS: dict[int | str, dict[str, Any]] = {
    422: _answer(
        "The input failed validation (a list of problems), or each value is valid but together they break "
        "a rule (options of the other task, a layout that cannot exist, an uploaded config that is not one), "
        "or nothing meets the requirements (a message).",
        UnprocessableOut,
    ),
}


def constrain(openapi: dict[str, Any]) -> dict[str, Any]:
    """`openapi` with what gpuwise checks against its catalog said in it, so that a request the
    schema allows is never a 400: model and GPU ids as enums (a GPU with an optional `:count`), the
    inter-node networks, the GPU list's vendors and sort keys, a size's format. The server still
    checks each (an unknown id is a 400 with "did you mean")."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.network import network_pattern
    from gpuwise.catalog.query import SORT_CHOICES
    from gpuwise.units import SIZE_PATTERN

    cat = load_catalog()
    models, gpus = sorted(cat.models), sorted(cat.gpus)
    gpu_spec = "^(?:" + "|".join(g.replace(".", "\\.") for g in gpus) + ")(?::[0-9]*)?$"
    body = openapi["components"]["schemas"]
    _string(body["WorkloadIn"]["properties"]["model"])["enum"] = models
    _string(body["RequirementsIn"]["properties"]["growth_model"])["enum"] = models
    _string(body["RequirementsIn"]["properties"]["gpus"]["anyOf"][0]["items"])["enum"] = gpus
    _string(body["EstimateIn"]["properties"]["gpu"])["pattern"] = gpu_spec
    _string(body["EstimateIn"]["properties"]["network"])["pattern"] = network_pattern(cat)
    query = {p["name"]: p["schema"] for p in openapi["paths"]["/api/gpus"]["get"]["parameters"]}
    _string(query["vendor"])["enum"] = ["", *sorted({g.vendor for g in cat.gpus.values()})]  # "": any vendor
    _string(query["sort"])["enum"] = list(SORT_CHOICES)
    _string(query["min_memory"])["pattern"] = f"^{SIZE_PATTERN}$"
    tco = {p["name"]: p["schema"] for p in openapi["paths"]["/api/tco"]["get"]["parameters"]}
    tco["gpu"]["items"]["pattern"] = gpu_spec
    return openapi


def _string(schema: dict[str, Any]) -> dict[str, Any]:
    """The string schema within a property's (itself, or its string branch of an anyOf with null)."""
    if schema.get("type") == "string":
        return schema
    return next(branch for branch in schema.get("anyOf", ()) if branch.get("type") == "string")
