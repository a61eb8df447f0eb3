"""A plan as JSON (`gpuwise plan --json`, `POST /api/plan`): the typed result (gpuwise.plan.results)
written out, SI units, each reason as `{code, params, text}` with the text in --lang."""

from __future__ import annotations

from typing import Any

from gpuwise.i18n import Lang, check_lang, pipeline_text, reason_json, reason_text, rejection_json
from gpuwise.plan.results import Candidate, Growth, Meet, PipelineUpgrade, PlanResult, Serving

__all__ = ["candidate_json", "plan_json"]


def _meet(m: Meet, lang: Lang) -> dict[str, Any]:
    d: dict[str, Any] = {"ok": m.ok, "value": m.value, "limit": m.limit, "margin": m.margin}
    if m.level is not None:  # the pessimistic end of the figure's band, where the requirement is judged
        d.update({"high" if m.low is None else "low": m.high if m.low is None else m.low, "level": m.level})
    if m.why is not None:
        d["why"] = reason_text(m.why, lang)
    return d


def _growth(g: Growth | None, lang: Lang) -> dict[str, Any] | None:
    if g is None:
        return None
    d: dict[str, Any] = {"holds": g.holds, "summary": reason_text(g.summary, lang)}
    if g.upgrade_path is not None:
        d["upgrade_path"] = reason_text(g.upgrade_path, lang)
    return d


def _serving(s: Serving) -> dict[str, Any]:
    d: dict[str, Any] = {
        "max_batch": s.max_batch,
        "capacity_rps_per_replica": s.capacity_rps_per_replica,
        "latency_seconds": s.latency_seconds,
        "replicas": s.replicas,
        "basis": s.basis,
    }
    if s.simulated is not None:
        d.update(s.simulated.as_dict())
        d.update(max_batch=s.max_batch, capacity_rps_per_replica=s.capacity_rps_per_replica)
        d.update(latency_seconds=s.latency_seconds, replicas=s.replicas)
    d["options"] = [s.tp, s.batch]
    if s.redundancy:
        d.update(
            redundancy=s.redundancy,
            replicas_needed=s.replicas_needed,
            replicas=s.replicas,
            nodes=s.nodes,
            spread="one replica per node",
        )
    return d


def _pipeline(p: PipelineUpgrade | None) -> dict[str, Any] | None:
    if p is None:
        return None
    d: dict[str, Any] = {
        "label": pipeline_text(p.loader_cores_per_node, p.storage, p.format),  # English, as ids are
        "loader_cores_per_node": p.loader_cores_per_node,
        "storage": p.storage,
        "format": p.format,
        "read_bandwidth_per_node": p.read_bandwidth_per_node,
        "decode_seconds": p.decode_seconds,
        "extra_usd_per_hour": p.extra_usd_per_hour,
        "staging_seconds": p.staging_seconds,
        "nodes": p.nodes,
        "gpu_only": None
        if p.gpu_only is None
        else {"label": p.gpu_only.label, "gpus": p.gpu_only.gpus, "cost": p.gpu_only.cost},
    }
    return d


def candidate_json(c: Candidate, lang: Lang = "en") -> dict[str, Any]:
    """One candidate: the estimate's fields, then what the plan adds (design.md's contract)."""
    d = c.est.as_dict()
    d["label"] = c.label
    d["replicas"] = c.replicas
    d["gpus_total"] = c.gpus
    if d.get("inference") is not None and c.serving is not None:
        d["inference"]["serving"] = _serving(c.serving)
    d["cost"] = c.cost_dict()
    d["meets"] = {k: _meet(m, lang) for k, m in c.meets.items()}
    d["why"] = [reason_json(r, lang) for r in c.why]
    d["growth"] = _growth(c.growth, lang)
    d["confirmed_by_simulation"] = c.confirmed
    d["command"] = c.command
    d["pipeline"] = _pipeline(c.pipeline)
    d["offer"] = None if c.offer is None else c.offer.as_dict()
    d["currency"] = c.money()
    return d


def plan_json(result: PlanResult) -> dict[str, Any]:
    """The whole plan: requirements, ranked candidates (the Pareto front marked), the chosen one,
    the GPU types ruled out and why, and the notes, in the requirements' language."""
    lang = check_lang(result.requirements.lang)
    front = {id(c) for c in result.pareto()}
    cands = [{**candidate_json(c, lang), "pareto": id(c) in front} for c in result.candidates]
    return {
        "requirements": result.requirements.as_dict(),
        "candidates": cands,
        "chosen": cands[0] if result.chosen is not None else None,
        "rejected": [rejection_json(r, lang) for r in result.rejected],
        "notes": [reason_text(n, lang) for n in result.notes],
    }
