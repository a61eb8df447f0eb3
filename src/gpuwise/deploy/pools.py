"""GPU pools for a team: dev (shared), train and inference, each sized from the workloads' plans.

A pools file names the team and tags workloads (plan files or inline) with the pool they run in:

    team: {engineers: 10}
    workloads:
      - {pool: inference, plan: chat-7b-p99.yaml}
      - {pool: train, plan: train-13b-multi-gpu-plan.yaml, requirements: {gpus: [h100-sxm]}}
      - {pool: dev, name: qlora, workload: {model: llama-2-7b, ...}, requirements: {max_gpus: 1}}

Train and inference pools hold what their chosen plans need; the dev pool is sized from the team
by a stated rule (ENGINEERS_PER_GPU) and shared with MIG on cards that have it, time-slicing on
others. Each pool gets its namespace with a GPU quota; the dev pool also a LimitRange and an
idle-GPU reclaimer.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from gpuwise.catalog import GPU, Catalog, load_catalog
from gpuwise.deploy import gpu as gpuinfo
from gpuwise.deploy.common import (
    DEFAULT_PROMETHEUS,
    Bundle,
    DeployConventions,
    DeployOptions,
    Manifest,
    dns_label,
    make,
    meta,
    namespace_manifest,
    slug,
    why,
)
from gpuwise.deploy.inference import growth_replicas, inference_manifests
from gpuwise.deploy.sharing import Sharing, sharing_layout
from gpuwise.deploy.training import training_manifests
from gpuwise.errors import ConfigError, UsageError
from gpuwise.estimate.cost import HOURS_PER_MONTH
from gpuwise.estimate.offers import default_market
from gpuwise.i18n import reason_text
from gpuwise.plan import PlanResult
from gpuwise.plan.results import Candidate, Code
from gpuwise.units import fmt_gib
from gpuwise.workload import TrainingJob

POOL_NAMES = ("dev", "train", "inference")
# ASSUMPTION (no published benchmark found): developers share a GPU, each using it a fraction of
# the day (notebooks, debugging, small runs); one physical GPU per 3 engineers, each engineer
# getting a slice. Set `team.engineers_per_gpu` to your own ratio.
ENGINEERS_PER_GPU = 3.0
# ASSUMPTION: a dev GPU idle for 30 minutes is an abandoned notebook or a finished experiment.
IDLE_MINUTES = 30
IDLE_THRESHOLD = 0.05  # below 5% utilization counts as idle


# ------------------------------------------------------------------------------------------
def plan_from_file(
    path: str | Path, overrides: dict[str, Any] | None = None, allowed: tuple[frozenset[str], str] | None = None
) -> tuple[PlanResult, str | None, list[str]]:
    """Plan a plan/workload YAML file for deployment: (plan, inter-node network, notes).

    A file that names hardware (`gpu: a10` or `gpu: a100-80gb-sxm:8`, as estimate files do)
    restricts the search to that GPU type; the count stays the planner's choice. `allowed` (GPU ids,
    and why) narrows the search to what the deploy target can run."""
    from gpuwise.api import make_plan
    from gpuwise.planfile import read_plan_file

    work, reqs, costs = read_plan_file(path)
    notes: list[str] = []
    named = reqs.pop("gpu", None)
    reqs.pop("gpus_per_node", None)
    network = reqs.pop("network", None)
    if named and "gpus" not in reqs and not (overrides or {}).get("gpus"):
        gpu_id = str(named).partition(":")[0]
        reqs["gpus"] = [gpu_id]
        notes.append(
            f"{Path(path).name} names gpu {named}: the plan is searched on {gpu_id} only (count: the planner's)"
        )
    reqs.update({k.replace("-", "_"): v for k, v in (overrides or {}).items()})
    if allowed is not None:
        _narrow(reqs, allowed, notes, Path(path).name)
    return make_plan(work, reqs, costs), (str(network) if network else None), notes


def _narrow(reqs: dict[str, Any], allowed: tuple[frozenset[str], str], notes: list[str], name: str) -> None:
    """Keep only the GPU types the deploy target can run (of those the file lists, if it lists any)."""
    ids, target = allowed
    listed = reqs.get("gpus")
    if isinstance(listed, str):
        listed = [g.strip() for g in listed.split(",") if g.strip()]
    if listed:
        keep = [str(g) for g in listed if str(g) in ids]
        if not keep:
            raise UsageError(
                f"{name}: none of the GPUs it allows ({', '.join(map(str, listed))}) is one {target} can run"
            )
        reqs["gpus"] = keep
    else:
        reqs["gpus"] = sorted(ids)
        notes.append(f"the plan is searched over the {len(ids)} GPU types {target} can run")


@dataclass(slots=True)
class PoolWorkload:
    name: str
    pool: str
    source: str
    result: PlanResult
    network: str | None = None

    @property
    def chosen(self) -> Candidate:
        c = self.result.chosen
        assert c is not None
        return c


@dataclass(slots=True)
class Pool:
    name: str
    namespace: str
    gpu: GPU | None
    gpus: int  # physical GPUs
    by_model: dict[str, int]
    quota: dict[str, int]  # extended resource -> units the namespace may request
    sharing: dict[str, Any]
    idle_minutes: int | None
    idle_why: str
    headroom_gpus: int | None
    headroom_why: str
    usd_per_month: float | None
    cost_why: str
    workloads: list[PoolWorkload] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    share: Sharing = field(default_factory=lambda: Sharing("none"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "pool": self.name,
            "namespace": self.namespace,
            "gpu": self.gpu.id if self.gpu else None,
            "gpus": self.gpus,
            "by_model": self.by_model,
            "quota": self.quota,
            "sharing": self.sharing,
            "idle_minutes": self.idle_minutes,
            "idle_why": self.idle_why,
            "headroom_gpus": self.headroom_gpus,
            "headroom_why": self.headroom_why,
            "usd_per_month": self.usd_per_month,
            "cost_why": self.cost_why,
            "workloads": [
                {"name": w.name, "source": w.source, "plan": w.chosen.label, "gpus": w.chosen.gpus}
                for w in self.workloads
            ],
            "notes": self.notes,
        }


def _total(amounts: list[float | None]) -> float | None:
    """The sum, or None when any part is unknown (a price missing from the plans and the catalog)."""
    return None if any(a is None for a in amounts) else sum(a for a in amounts if a is not None)


@dataclass(slots=True)
class PoolPlan:
    name: str
    engineers: int
    pools: dict[str, Pool]
    assumptions: list[str]
    prometheus_url: str = DEFAULT_PROMETHEUS
    account: str = "ml"  # the team's Slurm account (team.account; default: the namespace prefix)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "engineers": self.engineers,
            "pools": {k: p.as_dict() for k, p in self.pools.items()},
            "usd_per_month": _total([p.usd_per_month for p in self.pools.values()]),
            "assumptions": self.assumptions,
        }


# ------------------------------------------------------------------------------------------
def is_pools_file(doc: dict[str, Any]) -> bool:
    return "team" in doc


def _int(value: Any, what: str, minimum: int = 1) -> int:
    try:
        n = int(value)
        if n != float(value):
            raise ValueError
    except (TypeError, ValueError, OverflowError):  # OverflowError: .inf (an internal error before)
        raise ConfigError(f"{what} must be a whole number; got {value!r}") from None
    if n < minimum:
        raise ConfigError(f"{what} must be at least {minimum}; got {n}")
    return n


def plan_pools_file(path: str | Path, catalog: Catalog | None = None, prefix: str | None = None) -> PoolPlan:
    from gpuwise.files import read_yaml

    p = Path(path)
    return plan_pools(read_yaml(p), p.parent, catalog, source=p.name, prefix=prefix)


@dataclass(frozen=True, slots=True)
class _Team:
    engineers: int
    per_gpu: float  # engineers sharing one physical dev GPU
    idle: int  # minutes before an idle dev GPU is reclaimed
    stated: frozenset[str]  # which of engineers_per_gpu / idle_minutes the file sets itself


def _team(doc: dict[str, Any], source: str) -> _Team:
    """The `team:` block, checked: engineers, engineers per GPU, idle minutes."""
    team = doc.get("team")
    if not isinstance(team, dict) or "engineers" not in team:
        raise ConfigError(f"{source}: 'team' must be a mapping with 'engineers', e.g. team: {{engineers: 10}}")
    known = {"engineers", "engineers_per_gpu", "engineers-per-gpu", "idle_minutes", "idle-minutes", "gpu", "account"}
    unknown = set(team) - known
    if unknown:
        raise ConfigError(f"{source}: unknown team field(s) {', '.join(sorted(unknown))}")
    engineers = _int(team["engineers"], "team.engineers")
    per_gpu_raw: Any = team.get("engineers_per_gpu", team.get("engineers-per-gpu", ENGINEERS_PER_GPU))
    try:
        per_gpu = float(per_gpu_raw)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer past any float
        raise ConfigError(f"team.engineers_per_gpu must be a number; got {per_gpu_raw!r}") from None
    if not 0 < per_gpu < math.inf:  # NaN and .inf were internal errors further on
        raise ConfigError(f"team.engineers_per_gpu must be a positive finite number; got {per_gpu_raw!r}")
    idle = _int(team.get("idle_minutes", team.get("idle-minutes", IDLE_MINUTES)), "team.idle_minutes")
    stated = {k.replace("-", "_") for k in team} & {"engineers_per_gpu", "idle_minutes"}
    return _Team(engineers, per_gpu, idle, frozenset(stated))


def _plan_entry(entry: Any, i: int, base_dir: Path, source: str) -> tuple[PoolWorkload, list[str]]:
    """Plan one `workloads:` entry (a plan file or an inline workload): (the workload, notes)."""
    from gpuwise.api import make_plan

    if not isinstance(entry, dict):
        raise ConfigError(f"{source}: workloads[{i}] must be a mapping")
    pool = str(entry.get("pool", "")).lower()
    if pool not in POOL_NAMES:
        raise ConfigError(
            f"{source}: workloads[{i}].pool must be one of {', '.join(POOL_NAMES)}; got {entry.get('pool')!r}"
        )
    overrides = entry.get("requirements") or {}
    if not isinstance(overrides, dict):
        raise ConfigError(f"{source}: workloads[{i}].requirements must be a mapping")
    notes: list[str] = []
    if "plan" in entry:
        result, network, notes = plan_from_file(base_dir / str(entry["plan"]), overrides)
        name = str(entry.get("name") or Path(str(entry["plan"])).stem)
        src = str(entry["plan"])
    elif "workload" in entry:
        work = entry["workload"]
        if not isinstance(work, dict):
            raise ConfigError(f"{source}: workloads[{i}].workload must be a mapping")
        work = {k.replace("-", "_"): v for k, v in work.items()}
        result = make_plan(work, {k.replace("-", "_"): v for k, v in overrides.items()}, entry.get("costs") or {})
        network = entry.get("network")
        name = str(entry.get("name") or f"{pool}-{i}")
        src = "inline"
    else:
        raise ConfigError(f"{source}: workloads[{i}] needs 'plan: FILE' or an inline 'workload:'")
    if result.chosen is None:
        raise UsageError(
            f"{source}: workload {name!r} ({pool}) has no configuration that meets its requirements "
            "(`gpuwise plan` shows why)"
        )
    return PoolWorkload(name, pool, src, result, network), notes


def plan_pools(
    doc: dict[str, Any],
    base_dir: Path,
    catalog: Catalog | None = None,
    source: str = "pools",
    prefix: str | None = None,
) -> PoolPlan:
    """Plan every workload of a pools document, then size the dev, train and inference pools."""
    catalog = catalog or load_catalog()
    team = _team(doc, source)
    prefix = prefix or str(doc.get("namespace_prefix", doc.get("namespace-prefix", "ml")))
    for pool in POOL_NAMES:
        dns_label(f"{prefix}-{pool}", "namespace_prefix")
    entries = doc.get("workloads") or []
    if not isinstance(entries, list):
        raise ConfigError(f"{source}: 'workloads' must be a list")
    planned: list[PoolWorkload] = []
    notes: list[str] = []
    for i, entry in enumerate(entries):
        workload, entry_notes = _plan_entry(entry, i, base_dir, source)
        planned.append(workload)
        notes += entry_notes
    train = _train_pool(planned, f"{prefix}-train")
    inference = _inference_pool(planned, f"{prefix}-inference")
    gpu, gpu_why = _dev_gpu(planned, doc["team"].get("gpu"), catalog, train, inference)
    dev = _dev_pool(planned, f"{prefix}-dev", team, (gpu, gpu_why), DeployConventions.from_catalog(catalog))
    assumptions = [
        f"dev pool: one physical GPU per {team.per_gpu:g} engineers, each engineer a slice "
        + (
            "(team.engineers_per_gpu)"
            if "engineers_per_gpu" in team.stated
            else "(gpuwise ASSUMPTION, no published source: set team.engineers_per_gpu)"
        ),
        f"dev GPUs idle (below {IDLE_THRESHOLD:.0%} utilization) for {team.idle} minutes are reclaimed"
        + ("" if "idle_minutes" in team.stated else " (gpuwise ASSUMPTION: set team.idle_minutes)"),
        "train pool: the train workloads may run at the same time, so their GPUs add up",
        "monthly cost: GPUs held all month at the plans' hourly rates (cloud pricing of each plan)",
        *notes,
    ]
    return PoolPlan(
        str(doc.get("name") or source),
        team.engineers,
        {"dev": dev, "train": train, "inference": inference},
        assumptions,
        account=str(doc["team"].get("account") or prefix),
    )


def _by_model(items: list[tuple[GPU, int]]) -> tuple[GPU | None, dict[str, int], dict[str, int]]:
    by_model: Counter[str] = Counter()
    quota: Counter[str] = Counter()
    gpus: dict[str, GPU] = {}
    for gpu, n in items:
        by_model[gpu.id] += n
        quota[gpuinfo.resource_name(gpu)] += n
        gpus[gpu.id] = gpu
    main = gpus[by_model.most_common(1)[0][0]] if by_model else None
    return main, dict(by_model), dict(quota)


def _train_pool(planned: list[PoolWorkload], namespace: str) -> Pool:
    ws = [w for w in planned if w.pool == "train"]
    main, by_model, quota = _by_model([(w.chosen.est.hardware.gpu, w.chosen.gpus) for w in ws])
    headroom = 0
    why_parts = []
    for w in ws:
        g = w.chosen.growth
        if g is None:
            continue
        path = g.upgrade_path
        later = path.get("gpus") if not g.holds and path is not None and path.code == Code.GROWTH_SCALE_OUT else None
        if isinstance(later, int):
            headroom += max(0, later - w.chosen.gpus)
        why_parts.append(f"{w.name}: {reason_text(g.summary)}")
    rate = _total([w.chosen.usd_per_hour for w in ws])
    cost = None if rate is None else rate * HOURS_PER_MONTH
    runs = [
        f"{w.name} {w.chosen.label}: ${w.chosen.cost:,.0f} per run"
        for w in ws
        if w.chosen.cost is not None and w.chosen.hours
    ]
    return Pool(
        name="train",
        namespace=namespace,
        gpu=main,
        gpus=sum(by_model.values()),
        by_model=by_model,
        quota=quota,
        sharing={
            "mode": "none",
            "why": "whole GPUs: NCCL does not run across MIG instances; time-slicing slows every rank",
        },
        idle_minutes=None,
        idle_why="jobs release their GPUs when they end; gang scheduling keeps partial jobs from holding any",
        headroom_gpus=headroom if ws and why_parts else None,
        headroom_why="; ".join(why_parts) or "no growth check in the train plans",
        usd_per_month=cost if ws else 0.0,
        cost_why="the train configurations held all month at their hourly rate"
        + (f" ({'; '.join(runs)})" if runs else ""),
        workloads=ws,
    )


def _inference_pool(planned: list[PoolWorkload], namespace: str) -> Pool:
    ws = [w for w in planned if w.pool == "inference"]
    main, by_model, _ = _by_model([(w.chosen.est.hardware.gpu, w.chosen.gpus) for w in ws])
    quota: Counter[str] = Counter()
    headroom = 0
    why_parts = []
    for w in ws:
        c = w.chosen
        grown = growth_replicas(c)
        top = max(grown or 0, 2 * c.replicas)  # the ScaledObject's maxReplicaCount
        quota[gpuinfo.resource_name(c.est.hardware.gpu)] += top * c.est.hardware.count
        if c.growth is not None:
            why_parts.append(f"{w.name}: {reason_text(c.growth.summary)}")
            if grown:
                headroom += (grown - c.replicas) * c.est.hardware.count
    rate = _total([w.chosen.hourly for w in ws])
    cost = None if rate is None else rate * HOURS_PER_MONTH
    return Pool(
        name="inference",
        namespace=namespace,
        gpu=main,
        gpus=sum(by_model.values()),
        by_model=by_model,
        quota=dict(quota),
        sharing={
            "mode": "none",
            "why": "whole GPUs: each replica's capacity was planned on a whole GPU (deploy a plan with --sharing to pack small models)",
        },
        idle_minutes=None,
        idle_why="KEDA scales between the planned replicas and the growth target; it never scales below the plan",
        headroom_gpus=headroom if ws and why_parts else None,
        headroom_why="; ".join(why_parts) or "no growth check in the serving plans",
        usd_per_month=cost if ws else 0.0,
        cost_why="the planned replicas all month (the autoscaler's extra replicas cost more)",
        workloads=ws,
    )


def _dev_gpu(
    planned: list[PoolWorkload], gpu_id: Any, catalog: Catalog, train: Pool, inference: Pool
) -> tuple[GPU, str]:
    """(the dev pool's GPU, where it comes from): team.gpu, the largest dev workload's plan, or
    the train or inference pool's GPU."""
    ws = [w for w in planned if w.pool == "dev"]
    if gpu_id:
        return catalog.gpu(str(gpu_id)), "team.gpu"
    if ws:
        top = max(ws, key=lambda w: w.chosen.est.memory.per_gpu.total)
        return top.chosen.est.hardware.gpu, f"from the plan of dev workload {top.name}"
    if train.gpu is not None:
        return train.gpu, "the train pool's GPU (develop on what you train on)"
    if inference.gpu is not None:
        return inference.gpu, "the inference pool's GPU"
    raise ConfigError("the dev pool needs a GPU model: give team.gpu or at least one workload")


@dataclass(frozen=True, slots=True)
class _DevShare:
    share: Sharing
    sharing: dict[str, Any]  # as the pool reports it
    gpus: int  # physical GPUs
    units: int  # what the device plugin advertises: slices, or whole GPUs


def _dev_share(gpu: GPU, base: int, engineers: int, need: float, conv: DeployConventions) -> _DevShare:
    """How `engineers` share the dev GPUs: MIG slices where the GPU has MIG, else time-slicing
    (whole GPUs on AMD), each share holding the largest dev workload (`need` bytes)."""
    if gpuinfo.vendor(gpu) == "amd":
        share = Sharing("none", reason="the AMD device plugin advertises whole GPUs only (no MIG, no time-slicing)")
        return _DevShare(share, {"mode": "none", "why": share.reason}, base, base)
    if gpuinfo.mig_capable(gpu):
        profile, gpus = gpuinfo.mig_profile_for_users(gpu, base, engineers, need)
        share = Sharing(
            "mig",
            profile,
            profile.per_gpu,
            profile.compute_slices / gpuinfo.MIG_COMPUTE_SLICES,
            f"{engineers} engineers on {gpus} {gpu.id}: {profile.per_gpu}x {profile.name} per GPU "
            f"= {gpus * profile.per_gpu} isolated slices"
            + (f", each holding the largest dev workload ({fmt_gib(need)})" if need else ""),
        )
        sharing = {"mode": "mig", "profile": profile.name, "per_gpu": profile.per_gpu, "why": share.reason}
        return _DevShare(share, sharing, gpus, gpus * profile.per_gpu)
    fits = int(gpu.capacity_bytes // need) if need else conv.time_slices_max
    slices = max(1, min(conv.time_slices_max, math.ceil(engineers / base), fits))
    gpus = max(base, math.ceil(engineers / slices))
    if slices == 1:
        share = Sharing("none", reason="one engineer per GPU: nothing to share")
        return _DevShare(share, {"mode": "none", "why": share.reason}, gpus, gpus)
    share = Sharing(
        "time-slicing",
        None,
        slices,
        1 / slices,
        f"{gpu.id} has no MIG (catalog mig_max_instances {gpu.mig_max_instances}): each GPU advertised "
        f"{slices} times for {engineers} engineers; no memory isolation"
        + (f" (the largest dev workload needs {fmt_gib(need)})" if need else ""),
    )
    return _DevShare(share, {"mode": "time-slicing", "per_gpu": slices, "why": share.reason}, gpus, gpus * slices)


def _dev_pool(
    planned: list[PoolWorkload], namespace: str, team: _Team, gpu: tuple[GPU, str], conv: DeployConventions
) -> Pool:
    """The shared dev pool: one GPU per `team.per_gpu` engineers, sliced by MIG or time-slicing."""
    ws = [w for w in planned if w.pool == "dev"]
    dev_gpu, gpu_why = gpu
    notes: list[str] = []
    base = math.ceil(team.engineers / team.per_gpu)
    need = max(
        (w.chosen.est.memory.per_gpu.total for w in ws if w.chosen.est.hardware.gpu.id == dev_gpu.id), default=0.0
    )
    for w in ws:
        if w.chosen.est.hardware.count > 1:
            notes.append(
                f"{w.name} is planned on {w.chosen.est.hardware.count} GPUs: a dev slice is one (part of a) GPU; "
                "plan it with max_gpus: 1 or move it to the train pool"
            )
    rate = _gpu_rate(dev_gpu, planned)
    dev = _dev_share(dev_gpu, base, team.engineers, need, conv)
    return Pool(
        name="dev",
        namespace=namespace,
        gpu=dev_gpu,
        gpus=dev.gpus,
        by_model={dev_gpu.id: dev.gpus},
        quota={gpuinfo.resource_name(dev_gpu): dev.units},
        sharing=dev.sharing,
        idle_minutes=team.idle,
        idle_why=f"pods whose GPUs stay below {IDLE_THRESHOLD:.0%} utilization for {team.idle} minutes are deleted by the reclaimer",
        headroom_gpus=None,
        headroom_why="grows with the team: ceil(engineers / engineers_per_gpu)",
        usd_per_month=None if rate is None else rate * dev.gpus * HOURS_PER_MONTH,
        cost_why=f"{dev.gpus} {dev_gpu.id} ({gpu_why}) held all month"
        + ("" if rate is not None else ": no price for this GPU in the plans or the catalog"),
        workloads=ws,
        notes=notes,
        share=dev.share,
    )


def _gpu_rate(gpu: GPU, planned: list[PoolWorkload]) -> float | None:
    """USD per GPU-hour: from a plan on this GPU (its candidate's cost), else one GPU rented on demand
    from the catalog's offers (gpuwise.estimate.offers)."""
    for w in planned:
        c = w.chosen
        if c.est.hardware.gpu.id == gpu.id and c.hourly is not None:
            return c.hourly / c.gpus
    q = default_market(load_catalog()).quote(gpu.id, 1, 1, "on-demand")
    return None if q is None else q.usd_per_hour / q.gpus_paid


# ------------------------------------------------------------------------------------------
RECLAIMER_IMAGE = "python:3.12-alpine"
# The script the reclaimer CronJob runs (`python3 -c`): standard library only, kept as package data.
RECLAIMER_SCRIPT = resources.files("gpuwise.deploy").joinpath("data/idle_reclaimer.py.txt").read_text(encoding="utf-8")


def _reclaimer_access(name: str, namespace: str, labels: dict[str, str]) -> list[dict[str, Any]]:
    """The reclaimer's ServiceAccount, a Role that may delete pods of this namespace, the binding."""
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(name, namespace, labels)}
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": meta(name, namespace, labels),
        "rules": [
            why(
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "delete"]},
                "read pods' start time and annotations, delete the idle ones; this namespace only",
            )
        ],
    }
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": meta(name, namespace, labels),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
    }
    return [sa, role, binding]


def _reclaimer_cron(name: str, namespace: str, labels: dict[str, str], env: list[Any]) -> dict[str, Any]:
    """The CronJob that runs the reclaimer script every 5 minutes."""
    container = {
        "name": "reclaimer",
        "image": why(RECLAIMER_IMAGE, "Python standard library only: no other dependency"),
        "command": ["python3", "-c", RECLAIMER_SCRIPT],
        "env": env,
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "128Mi"}},
    }
    pod = {"serviceAccountName": name, "restartPolicy": "Never", "containers": [container]}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": meta(name, namespace, labels),
        "spec": {
            "schedule": why(
                "*/5 * * * *", "every 5 minutes: a GPU is reclaimed at most 5 minutes after its idle window"
            ),
            "concurrencyPolicy": why("Forbid", "one sweep at a time"),
            "successfulJobsHistoryLimit": 1,
            "failedJobsHistoryLimit": 3,
            "jobTemplate": {"spec": {"backoffLimit": 0, "template": {"metadata": {"labels": labels}, "spec": pod}}},
        },
    }


def idle_reclaimer(
    namespace: str, minutes: int, prometheus_url: str, directory: str, threshold: float = IDLE_THRESHOLD
) -> list[Manifest]:
    """A CronJob (with its ServiceAccount and Role) that deletes pods whose GPUs sit idle."""
    name = "gpu-idle-reclaimer"
    labels = {"app.kubernetes.io/name": name}
    path = f"{directory}/40-idle-reclaimer.yaml"
    header = [
        "Idle-GPU reclaimer. Needs Prometheus scraping the gpuwise exporter (gpuwise exporter), whose",
        "gpuwise_gpu_utilization_ratio series must carry namespace and pod labels (the GPU -> pod mapping",
        "from the kubelet's PodResources API, as dcgm-exporter does). Without those labels it deletes nothing.",
        "Pods owned by a Deployment or Job are recreated after deletion: annotate gpuwise.io/keep=true to opt out.",
    ]
    env = [
        {"name": "NAMESPACE", "value": namespace},
        why({"name": "IDLE_MINUTES", "value": str(minutes)}, "the pool plan's idle reclamation window"),
        why(
            {"name": "IDLE_THRESHOLD", "value": f"{threshold:g}"},
            "peak utilization over the window below this counts as idle",
        ),
        {"name": "PROMETHEUS_URL", "value": prometheus_url},
        why({"name": "DRY_RUN", "value": "false"}, "set to true to only log what would be deleted"),
    ]
    sa, role, binding = _reclaimer_access(name, namespace, labels)
    cron = _reclaimer_cron(name, namespace, labels, env)
    why_line = f"deletes pods idle (GPU < {threshold:.0%}) for {minutes} min"
    return [
        make(sa, path, "identity of the reclaimer", header),
        make(role, path, "may get/list/delete pods in this namespace", header),
        make(binding, path, "binds the Role to the reclaimer", header),
        make(cron, path, why_line, header),
    ]


def quota_manifest(pool: Pool, directory: str) -> Manifest:
    hard = {}
    for res, units in sorted(pool.quota.items()):
        if pool.name == "dev" and pool.sharing.get("mode") in ("mig", "time-slicing"):
            reason = (
                f"{pool.gpus} {pool.gpu.id if pool.gpu else ''} x {units // max(pool.gpus, 1)} shared slices: the device "
                f"plugin advertises each slice as one {res}"
            )
        elif pool.name == "inference":
            reason = "the replicas' GPUs at the autoscaler's maximum (growth target or twice the plan)"
        else:
            reason = f"the {pool.gpus} GPUs the {pool.name} plans need"
        hard[f"requests.{res}"] = why(str(units), reason)
    body = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": meta("gpu-quota", pool.namespace, {"gpuwise.io/pool": pool.name}),
        "spec": {"hard": hard},
    }
    total = ", ".join(f"{u} {r}" for r, u in sorted(pool.quota.items())) or "no GPUs"
    return make(body, f"{directory}/10-resourcequota.yaml", f"the {pool.name} pool: at most {total}")


def limit_range(pool: Pool, directory: str) -> Manifest:
    res = gpuinfo.resource_name(pool.gpu) if pool.gpu else "nvidia.com/gpu"
    body = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": meta("dev-limits", pool.namespace, {"gpuwise.io/pool": "dev"}),
        "spec": {
            "limits": [
                {
                    "type": "Container",
                    "max": {res: why("1", "one GPU (or slice) per container: nobody holds the shared pool alone")},
                    "defaultRequest": why(
                        {"cpu": "1", "memory": "8Gi"},
                        "ASSUMPTION: what a notebook or debug session asks for when it does not say",
                    ),
                    "default": why({"cpu": "4", "memory": "32Gi"}, "ASSUMPTION: default limits for the same"),
                }
            ]
        },
    }
    return make(body, f"{directory}/20-limitrange.yaml", "one GPU/slice per container, default CPU and memory")


def pool_manifests(plan: PoolPlan, options: DeployOptions | None = None, catalog: Catalog | None = None) -> Bundle:
    """Namespaces and quotas for the three pools, the dev pool's sharing, limits and reclaimer,
    and every train/inference workload's manifests in its pool's namespace."""
    options = (options or DeployOptions()).checked()
    catalog = catalog or load_catalog()
    bundle = Bundle()
    for key in POOL_NAMES:
        pool = plan.pools[key]
        if not pool.quota and not pool.workloads and key != "dev":
            continue
        d = key
        bundle.manifests.append(
            namespace_manifest(pool.namespace, DeployOptions(directory=d), f"the {key} pool", {"gpuwise.io/pool": key})
        )
        bundle.manifests.append(quota_manifest(pool, d))
        if key == "dev":
            bundle.manifests.append(limit_range(pool, d))
            if pool.idle_minutes:
                bundle.manifests += idle_reclaimer(pool.namespace, pool.idle_minutes, options.prometheus_url, d)
            share = pool.share
            if share.mode != "none" and pool.gpu is not None:
                layout = sharing_layout(
                    pool.gpu,
                    share,
                    DeployOptions(directory="gpu-operator"),
                    nodes="dev-pool nodes",
                    purpose="the dev pool",
                )
                bundle.extend(layout)
            continue
        for w in pool.workloads:
            opts = DeployOptions(
                name=slug(w.name),
                namespace=pool.namespace,
                engine=options.engine,
                image=options.image,
                scheduler=options.scheduler,
                queue=options.queue,
                network=w.network or options.network,
                prometheus_url=options.prometheus_url,
                socket_ifname=options.socket_ifname,
                ib_hca=options.ib_hca,
                directory=f"{d}/{slug(w.name)}",
            ).checked()
            c = w.chosen
            part = (
                training_manifests(c, opts, catalog)
                if isinstance(c.est.workload, TrainingJob)
                else inference_manifests(c, opts, catalog, w.result.requirements)
            )
            bundle.extend(part)
    bundle.summary = {"kind": "pools", **plan.as_dict()}
    return bundle
