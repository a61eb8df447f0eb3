"""`gpuwise deploy PLAN.yaml -o DIR`: Kubernetes manifests from a plan or a pools file.

`register(app)` adds the command to the main Typer app. Everything heavy is imported inside
the command so `gpuwise --help` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from gpuwise.deploy.common import Bundle, DeployOptions
    from gpuwise.deploy.shell import Rendered
    from gpuwise.deploy.validate import Report


TARGETS = ("kubernetes", "slurm", "skypilot")
TargetOption = Annotated[
    str, typer.Option(help="Where the team runs: kubernetes (manifests), slurm (batch scripts), skypilot (task).")
]
PartitionOption = Annotated[str | None, typer.Option(help="slurm: the partition the jobs run in.")]
AccountOption = Annotated[str | None, typer.Option(help="slurm: the account the jobs are charged to.")]
PrometheusOption = Annotated[str | None, typer.Option(help="Prometheus URL for the autoscaler and the idle reclaimer.")]
CrdsOption = Annotated[
    Path | None, typer.Option(help="Folder of CustomResourceDefinition YAML to validate Volcano/KEDA objects.")
]
K8sVersionOption = Annotated[
    str | None, typer.Option(help="Kubernetes version of the schemas (default: newest shipped).")
]
GresTypeOption = Annotated[
    str | None, typer.Option(help="slurm: the GRES type of the GPU in your gres.conf (default: Slurm's NVML name).")
]


def register(app: typer.Typer) -> None:
    """Add `deploy` to `app`."""
    app.command("deploy")(deploy)


def deploy(
    plan_file: Annotated[
        Path, typer.Argument(help="Plan YAML (as in examples/), or a pools file (one with a 'team:' key).")
    ],
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Folder to write the manifests into.")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print what would be written (kind, name, why); write nothing.")
    ] = False,
    engine: Annotated[
        str | None, typer.Option(help="Serving engine: triton|vllm (default: vLLM for LLMs, Triton otherwise).")
    ] = None,
    image: Annotated[str | None, typer.Option(help="Container image (serving engine or training image).")] = None,
    scheduler: Annotated[
        str, typer.Option(help="Training: volcano (gang-scheduled) or job (batch/v1 Indexed).")
    ] = "volcano",
    queue: Annotated[str, typer.Option(help="Volcano queue for training jobs.")] = "default",
    namespace: Annotated[
        str | None, typer.Option(help="Namespace (pools file: the prefix of the pool namespaces).")
    ] = None,
    sharing: Annotated[
        str, typer.Option(help="Serving GPUs: none|auto|mig|time-slicing (MIG only where the GPU has it).")
    ] = "none",
    network: Annotated[str | None, typer.Option(help="Inter-node network for NCCL, e.g. ib-ndr, 8x400g.")] = None,
    gpu_product: Annotated[
        str | None, typer.Option(help="Node label value of the GPU (nvidia.com/gpu.product).")
    ] = None,
    model_source: Annotated[
        str | None, typer.Option(help="vLLM --model: Hugging Face repo id or path in the image.")
    ] = None,
    script: Annotated[str, typer.Option(help="Training script torchrun runs.")] = "train.py",
    prometheus: PrometheusOption = None,
    crds: CrdsOption = None,
    k8s_version: K8sVersionOption = None,
    db: Annotated[
        str | None, typer.Option("--db", help="ops: the fleet store whose hosts get a bench CronJob.")
    ] = None,
    node: Annotated[list[str] | None, typer.Option("--node", help="ops: a GPU node NAME[:GPUS] (repeat).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    target: TargetOption = "kubernetes",
    partition: PartitionOption = None,
    account: AccountOption = None,
    gres_type: GresTypeOption = None,
) -> None:
    """Launch a plan where the team runs: Kubernetes manifests (serving, training, GPU pools, MIG/time-slicing
    layout), Slurm batch scripts and pool config (--target slurm), or a SkyPilot task (--target skypilot).
    `gpuwise deploy ops -o DIR`: the ops stack (exporter, monitoring, benchmark CronJobs, acceptance)."""
    from gpuwise.deploy.common import DEFAULT_PROMETHEUS, DeployOptions
    from gpuwise.deploy.validate import validate
    from gpuwise.errors import UsageError

    if out is None and not dry_run:
        raise UsageError("give the output folder with -o DIR (or --dry-run to only show what would be written)")
    _check_target(target)
    options = DeployOptions(
        namespace=namespace or "default",
        engine=engine,
        image=image,
        scheduler=scheduler,
        queue=queue,
        sharing=sharing,
        network=network,
        gpu_product=gpu_product,
        model_source=model_source,
        script=script,
        prometheus_url=prometheus or DEFAULT_PROMETHEUS,
    ).checked()
    site = {"partition": partition, "account": account, "gres_type": gres_type}
    if target != "kubernetes" or any(site.values()):
        _deploy_target(target, plan_file, options, namespace, site, bool(db or node), (out, dry_run, as_json))
        return
    bundle, title = _bundle(plan_file, options, namespace, db, node or [])
    report = validate(bundle.manifests, crds, k8s_version)
    written = _write(bundle, out) if not dry_run and out is not None else []
    if as_json:
        _print_json(bundle, report, written, dry_run)
    else:
        _show(title, bundle, report, written, out, dry_run)
    if not report.ok:
        raise typer.Exit(1)


def _deploy_target(
    target: str,
    plan_file: Path,
    options: DeployOptions,
    prefix: str | None,
    site: dict[str, str | None],
    extra: bool,
    output: tuple[Path | None, bool, bool],
) -> None:
    """--target slurm|skypilot: render, write (unless --dry-run) and show the files."""
    from gpuwise.errors import UsageError

    if target == "kubernetes":
        raise UsageError("--partition, --account and --gres-type apply to --target slurm")
    out, dry_run, as_json = output
    rendered = _rendered(target, plan_file, options, prefix=prefix, site=site, extra=extra)
    written = [] if dry_run or out is None else _write_texts(rendered.files, out)
    _show_rendered(rendered, written, out, dry_run, as_json)


def _check_target(target: str) -> None:
    from gpuwise.errors import UsageError, shorten, suggest

    if target not in TARGETS:
        hint = suggest(target, TARGETS, 1)
        raise UsageError(
            f"--target must be one of {', '.join(TARGETS)}; got {shorten(target)!r}"
            + (f" (did you mean {hint[0]}?)" if hint else "")
        )


def _write(bundle: Bundle, out: Path) -> list[Path]:
    """Write the files; a name the file system refuses is a usage error, not a traceback."""
    from gpuwise.deploy.writer import write
    from gpuwise.errors import UsageError

    try:
        return write(bundle, out)
    except OSError as exc:  # a name too long for the file system, and the like
        raise UsageError(f"cannot write to {str(out)[:200]!r}: {exc.strerror or exc}") from None


def _bundle(
    plan_file: Path, options: DeployOptions, prefix: str | None, db: str | None, nodes: list[str]
) -> tuple[Bundle, str]:
    """(the manifests, a title): the ops stack for `ops`, pools for a pools file, else the plan file's
    chosen configuration. A plan file's `network:` applies unless --network was given."""
    from dataclasses import replace

    from gpuwise.deploy.manifests import plan_manifests
    from gpuwise.deploy.pools import is_pools_file, plan_from_file, plan_pools, pool_manifests
    from gpuwise.errors import UsageError
    from gpuwise.files import read_yaml

    if is_ops(plan_file):
        return _ops_bundle(options, prefix, db, nodes), "Deploy: the gpuwise ops stack"
    if db or nodes:
        raise UsageError("--db and --node apply to `gpuwise deploy ops`, not to a plan file")
    doc = read_yaml(plan_file)

    if is_pools_file(doc):
        if options.sharing != "none":
            raise UsageError("--sharing applies to one serving plan; a pools file shares its dev pool by itself")
        pools = plan_pools(doc, plan_file.parent, source=plan_file.name, prefix=prefix)
        return pool_manifests(pools, options), f"Pools: {pools.name} ({pools.engineers} engineers)"
    result, file_network, notes = plan_from_file(plan_file)
    if file_network and options.network is None:
        options = replace(options, network=file_network)
    bundle = plan_manifests(result, options)
    bundle.notes = notes + bundle.notes
    return bundle, f"Deploy: {bundle.summary.get('plan', '?')}"


def _rendered(
    target: str, plan_file: Path, options: DeployOptions, prefix: str | None, site: dict[str, str | None], extra: bool
) -> Rendered:
    """Batch scripts (slurm) or a task (skypilot) for a plan file, or Slurm config for a pools file."""
    from dataclasses import replace

    from gpuwise.catalog import load_catalog
    from gpuwise.deploy.pools import is_pools_file, plan_from_file, plan_pools
    from gpuwise.errors import RequirementNotMet, UsageError
    from gpuwise.files import read_yaml

    if is_ops(plan_file) or extra:
        raise UsageError("the ops stack (`gpuwise deploy ops`, --db, --node) deploys to Kubernetes only")
    doc = read_yaml(plan_file)
    if is_pools_file(doc):
        if target != "slurm":
            raise UsageError(f"a pools file deploys to kubernetes or slurm, not {target}")
        from gpuwise.deploy.slurm_pools import slurm_pool_files

        pools = plan_pools(doc, plan_file.parent, source=plan_file.name, prefix=prefix)
        return slurm_pool_files(pools, load_catalog())
    allowed = None
    if target == "skypilot":
        from gpuwise.deploy.skypilot import skypilot_gpus

        allowed = (skypilot_gpus(), "SkyPilot")
    result, file_network, notes = plan_from_file(plan_file, allowed=allowed)
    if file_network and options.network is None:
        options = replace(options, network=file_network)
    chosen = result.chosen
    if chosen is None:
        raise RequirementNotMet("nothing to deploy: no configuration meets the requirements (`gpuwise plan` shows why)")
    if target == "slurm":
        from gpuwise.deploy.slurm import slurm_files

        rendered = slurm_files(chosen, options, load_catalog(), site["partition"], site["account"], site["gres_type"])
    else:
        if any(site.values()):
            raise UsageError("--partition, --account and --gres-type apply to --target slurm")
        from gpuwise.deploy.skypilot import skypilot_files

        rendered = skypilot_files(chosen, options, load_catalog())
    return replace(rendered, notes=(*notes, *rendered.notes))


def _write_texts(texts: dict[str, str], out: Path) -> list[Path]:
    from gpuwise.deploy.writer import write_texts
    from gpuwise.errors import UsageError

    try:
        return write_texts(texts, out)
    except OSError as exc:
        raise UsageError(f"cannot write to {str(out)[:200]!r}: {exc.strerror or exc}") from None


def _show_rendered(rendered: Rendered, written: list[Path], out: Path | None, dry_run: bool, as_json: bool) -> None:
    """The files and their reasons (a table, or JSON), the notes, and how to use them."""
    if as_json:
        from gpuwise.cli.output import print_json

        files = [str(p) for p in written] if written else sorted(rendered.files)
        print_json({**rendered.as_dict(), "dry_run": dry_run, "written": files})
        return
    from rich.console import Console
    from rich.markup import escape as e
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=160)
    console.print(f"[bold]Deploy ({e(rendered.target)}): {e(str(rendered.summary.get('plan', '?')))}[/bold]")
    t = Table(title="Files" + (" (dry run: nothing written)" if dry_run else ""), header_style="bold")
    t.add_column("file")
    t.add_column("why")
    for f in rendered.files:
        t.add_row(e(f), e(rendered.why.get(f, "")))
    console.print(t)
    for note in rendered.notes:
        console.print(f"  note: {note}", markup=False)
    if written:
        console.print(f"wrote {len(written)} file(s) to {out}; then, from that folder:", markup=False)
        for cmd in rendered.commands:
            console.print(f"  {cmd}", markup=False)


def is_ops(plan_file: Path) -> bool:
    """`gpuwise deploy ops`: the word `ops`, where no file of that name exists (a folder named ops,
    such as the one `deploy ops -o ops` wrote, is no plan file)."""
    return str(plan_file) == "ops" and not plan_file.is_file()


def _ops_bundle(options: DeployOptions, prefix: str | None, db: str | None, nodes: list[str]) -> Bundle:
    """The ops stack; benchmark CronJobs for the --node list, else the hosts of the fleet store
    (--db, or GPUWISE_DB when set)."""
    import os

    from gpuwise.deploy.ops_stack import (
        DEFAULT_IMAGE,
        DEFAULT_NAMESPACE,
        GpuNode,
        OpsOptions,
        ops_manifests,
        parse_node,
    )

    gpu_nodes = [parse_node(n) for n in nodes]
    notes = []
    url = db or os.environ.get("GPUWISE_DB")
    if not gpu_nodes and url:
        from collections import Counter

        from gpuwise.ops.fleet import list_cards
        from gpuwise.store import open_store

        with open_store(url) as store:
            cards = [c for c in list_cards(store) if c.host and c.status != "retired"]
        per_host = Counter(str(c.host) for c in cards)
        model = {str(c.host): c.catalog_id for c in cards}
        gpu_nodes = [GpuNode(h, n, model[h]) for h, n in sorted(per_host.items())]
        notes.append(
            f"benchmark CronJobs for the {len(gpu_nodes)} host(s) of the fleet store: host names as node names"
        )
    o = OpsOptions(
        prefix or DEFAULT_NAMESPACE,
        options.image or DEFAULT_IMAGE,
        tuple(gpu_nodes),
        network=options.network,
        queue=options.queue,
        notes=notes,
    )
    return ops_manifests(o)


def _print_json(bundle: Bundle, report: Report, written: list[Path], dry_run: bool) -> None:
    """Everything as JSON: the objects, node labels, notes, validation and the files."""
    from gpuwise.cli.output import print_json
    from gpuwise.deploy.writer import files

    payload = {
        **bundle.as_dict(),
        "validation": report.as_dict(),
        "dry_run": dry_run,
        "files": [str(p) for p in written] if written else sorted(files(bundle)),
    }
    print_json(payload)


def _show(title: str, bundle: Bundle, report: Report, written: list[Path], out: Path | None, dry_run: bool) -> None:
    from rich.console import Console
    from rich.markup import escape as e
    from rich.table import Table

    console = Console() if sys.stdout.isatty() else Console(width=160)
    console.print(f"[bold]{e(title)}[/bold]")
    summary = bundle.summary
    if summary.get("kind") == "pools":
        t = Table(title="GPU pools", header_style="bold")
        for col in ("pool", "namespace", "GPUs", "sharing", "quota", "idle", "headroom", "$/month"):
            t.add_column(col, justify="right" if col in ("GPUs", "$/month", "idle", "headroom") else "left")
        for p in summary["pools"].values():
            share = p["sharing"]
            mode = share["mode"] + (
                f" {share['per_gpu']}x {share.get('profile', '')}".rstrip() if share.get("per_gpu") else ""
            )
            t.add_row(
                e(p["pool"]),
                e(p["namespace"]),
                ", ".join(f"{n}x {g}" for g, n in p["by_model"].items()) or "0",
                mode,
                ", ".join(f"{u} {r}" for r, u in p["quota"].items()) or "—",
                f"{p['idle_minutes']} min" if p["idle_minutes"] else "—",
                "—" if p["headroom_gpus"] is None else str(p["headroom_gpus"]),
                "—" if p["usd_per_month"] is None else f"${p['usd_per_month']:,.0f}",
            )
        console.print(t)
        for a in summary.get("assumptions", []):
            console.print(f"  • {a}", markup=False)
    t = Table(title="Manifests" + (" (dry run: nothing written)" if dry_run else ""), header_style="bold")
    t.add_column("kind")
    t.add_column("name")
    t.add_column("file")
    t.add_column("why")
    for m in bundle.manifests:
        t.add_row(e(m.kind), e(m.name), e(m.file), e(m.why))
    console.print(t)
    if bundle.node_labels:
        console.print("Label the nodes (label-nodes.sh):")
        for n in bundle.node_labels:
            console.print(f"  {e(n.command())}  [dim]# {e(n.why)}[/dim]")
    for note in bundle.notes:
        console.print(f"  note: {note}", markup=False)
    style = "green" if report.ok and not report.skipped else ("yellow" if report.ok else "red")
    console.print(f"[{style}]validation: {e(report.summary())}[/{style}]")
    for c in report.invalid:
        console.print(f"[red]  INVALID {e(c.kind)} {e(c.name)} ({e(c.file)}): {e(c.detail)}[/red]")
    for c in report.skipped:
        console.print(f"  not checked: {c.kind} {c.name}: {c.detail}", markup=False)
    if written:
        console.print(f"wrote {len(written)} file(s) to {out}; apply with: kubectl apply -R -f {out}", markup=False)
