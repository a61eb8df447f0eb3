"""Kubernetes manifests from a plan: pure functions from a chosen candidate to manifest dicts.

Serving becomes a Deployment (Triton or vLLM), a Service and a KEDA ScaledObject
(`deploy.inference`); training a Volcano Job with gang scheduling (or a plain Indexed batch/v1
Job) wired for torchrun, with NCCL settings from the planned interconnect (`deploy.training`);
GPU sharing a MIG layout (only on GPUs the catalog says have MIG) or a device-plugin
time-slicing config (`deploy.sharing`). Every value that is not a Kubernetes or engine default
is wrapped in `why(...)` (`deploy.common`); the reason travels with the manifest as a comment.
Nothing here reads or writes files.
"""

from __future__ import annotations

from gpuwise.catalog import Catalog, load_catalog
from gpuwise.deploy.common import Bundle, DeployOptions, Manifest, namespace_manifest
from gpuwise.deploy.inference import inference_manifests
from gpuwise.deploy.training import training_manifests
from gpuwise.errors import RequirementNotMet, UsageError
from gpuwise.plan import PlanResult
from gpuwise.plan.results import Candidate
from gpuwise.workload import TrainingJob
from gpuwise.workload.requirements import Requirements

# Bundle, DeployOptions and Manifest live in deploy.common; named here because they are this
# module's argument and return types.
__all__ = ["Bundle", "DeployOptions", "Manifest", "candidate_manifests", "plan_manifests"]


def plan_manifests(result: PlanResult, options: DeployOptions | None = None, catalog: Catalog | None = None) -> Bundle:
    """The manifests for a plan's chosen configuration."""
    options = (options or DeployOptions()).checked()
    chosen = result.chosen
    if chosen is None:
        raise RequirementNotMet(
            "nothing to deploy: no configuration meets the requirements (`gpuwise plan` shows what rules "
            "each GPU type out)"
        )
    return candidate_manifests(chosen, options, catalog, result.requirements)


def candidate_manifests(
    c: Candidate,
    options: DeployOptions | None = None,
    catalog: Catalog | None = None,
    requirements: Requirements | None = None,
) -> Bundle:
    """The manifests for one candidate: its namespace, then its training or serving objects."""
    options = (options or DeployOptions()).checked()
    catalog = catalog or load_catalog()
    bundle = Bundle()
    if options.namespace != "default":
        bundle.manifests.append(
            namespace_manifest(options.namespace, options, f"namespace for {c.label}", {"gpuwise.io/workload": "true"})
        )
    if isinstance(c.est.workload, TrainingJob):
        if options.sharing != "none":
            raise UsageError(
                "training uses whole GPUs: NCCL does not run across MIG instances and time-sliced GPUs would "
                "slow every rank; deploy training without --sharing"
            )
        part = training_manifests(c, options, catalog)
    else:
        part = inference_manifests(c, options, catalog, requirements or Requirements())
    bundle.extend(part)
    bundle.summary = part.summary
    return bundle
