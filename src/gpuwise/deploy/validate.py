"""Check manifests against their schemas before anyone applies them.

Core Kubernetes kinds: the OpenAPI schemas that the `kubernetes-validate` package ships (offline,
strict: unknown fields are errors, as `kubectl apply --validate=strict` makes them).
Custom resources (Volcano Job, KEDA ScaledObject, ...): the `openAPIV3Schema` of their
CustomResourceDefinition, read from a folder of CRD YAML files, checked with `jsonschema`, with
unknown fields rejected wherever the CRD does not preserve them (what the API server's strict
field validation does). Both packages are optional: a kind that cannot be checked is reported
as skipped, with the reason, never as valid.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwise.deploy.common import LABEL_VALUE_RULE, Manifest, is_label_key, is_label_value
from gpuwise.errors import ConfigError
from gpuwise.files import parse_yaml_all, read_text

MAX_CRD_FILES = 500  # YAML files read from a --crds folder (a cluster has tens of CRDs)

CORE_GROUPS = {
    "v1",
    "apps/v1",
    "batch/v1",
    "rbac.authorization.k8s.io/v1",
    "policy/v1",
    "networking.k8s.io/v1",
    "scheduling.k8s.io/v1",
    "autoscaling/v2",
}
INSTALL_HINT = "pip install kubernetes-validate"


@dataclass(frozen=True, slots=True)
class Check:
    kind: str
    name: str
    file: str
    status: str  # ok | invalid | skipped
    detail: str  # schema used, the error, or why it was skipped

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name, "file": self.file, "status": self.status, "detail": self.detail}


@dataclass(slots=True)
class Report:
    checks: list[Check]
    kubernetes_version: str | None
    validator: str | None  # "kubernetes-validate X.Y.Z" or None when it is not installed

    @property
    def ok(self) -> bool:
        return not any(c.status == "invalid" for c in self.checks)

    @property
    def invalid(self) -> list[Check]:
        return [c for c in self.checks if c.status == "invalid"]

    @property
    def skipped(self) -> list[Check]:
        return [c for c in self.checks if c.status == "skipped"]

    def summary(self) -> str:
        ok = sum(c.status == "ok" for c in self.checks)
        checked = len(self.checks) - len(self.skipped)  # a skipped object is neither valid nor invalid
        if checked:
            parts = [
                f"{ok} of {checked} checked object(s) valid"
                + (f", {len(self.skipped)} not checked" if self.skipped else "")
            ]
        else:
            parts = [f"none of the {len(self.checks)} object(s) checked"]
        if self.kubernetes_version:
            parts.append(f"core kinds against Kubernetes {self.kubernetes_version} ({self.validator})")
        else:
            parts.append(f"core kinds not checked: kubernetes-validate is not installed ({INSTALL_HINT})")
        if self.invalid:
            parts.append(f"{len(self.invalid)} INVALID")
        skipped = sorted({f"{c.kind}" for c in self.skipped})
        if skipped:
            parts.append(f"not checked: {', '.join(skipped)}")
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "kubernetes_version": self.kubernetes_version,
            "validator": self.validator,
            "summary": self.summary(),
            "checks": [c.as_dict() for c in self.checks],
        }


# ------------------------------------------------------------------------------------------
def _kubernetes_validate() -> Any | None:
    try:
        import kubernetes_validate
    except ImportError:
        return None
    return kubernetes_validate


def kubernetes_validate_version() -> str | None:
    kv = _kubernetes_validate()
    if kv is None:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kubernetes-validate")
    except PackageNotFoundError:  # pragma: no cover - imported but not installed as a distribution
        return "unknown"


def schema_version(requested: str | None = None) -> str | None:
    """The Kubernetes minor version whose schemas are used: `requested`, else the newest shipped."""
    kv = _kubernetes_validate()
    if kv is None:
        return None
    from kubernetes_validate import utils

    versions = utils.all_versions()
    if requested is None:
        return utils.major_minor(versions[-1])
    want = requested.lstrip("v")
    shipped = {utils.major_minor(v) for v in versions}
    if utils.major_minor(want) not in shipped:
        raise ConfigError(
            f"--k8s-version {requested}: kubernetes-validate {kubernetes_validate_version()} ships schemas for "
            f"{', '.join(sorted(shipped, key=lambda v: tuple(int(x) for x in v.split('.'))))}"
        )
    return utils.major_minor(want)


def _check_core(m: Manifest, version: str) -> Check:
    from kubernetes_validate import utils

    try:
        utils.validate(m.body, version, strict=True)
    except utils.ValidationError as exc:
        where = ".".join(str(p) for p in exc.path) or "(top level)"
        return Check(m.kind, m.name, m.file, "invalid", f"{where}: {exc.message}")
    except utils.SchemaNotFoundError:
        return Check(
            m.kind, m.name, m.file, "skipped", f"no schema for {m.api_version} {m.kind} in Kubernetes {version}"
        )
    return Check(m.kind, m.name, m.file, "ok", f"Kubernetes {version} OpenAPI schema (strict)")


# ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CrdSchema:
    group: str
    version: str
    kind: str
    schema: dict[str, Any]
    source: str

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"


_LEADING_FLAGS = re.compile(r"^\^\(\?([a-zA-Z]+)\)")


def _python_regex(pattern: str) -> str:
    """A CRD's pattern (Go RE2) as Python's re reads it: RE2 takes `^(?i)...`, Python wants the
    flags first (`(?i)^...`, the same language); e.g. the Prometheus Operator's PrometheusRule."""
    m = _LEADING_FLAGS.match(pattern)
    return f"(?{m.group(1)})^{pattern[m.end() :]}" if m else pattern


def _strict(schema: Any) -> Any:
    """Reject unknown fields wherever the structural schema lists the properties and does not
    preserve unknown fields (the API server prunes them, or refuses them under strict validation)."""
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items()}
        if isinstance(out.get("pattern"), str):
            out["pattern"] = _python_regex(out["pattern"])
        if (
            out.get("type") == "object"
            and "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


def load_crds(directory: str | Path) -> dict[tuple[str, str], CrdSchema]:
    """(apiVersion, kind) -> schema for every CustomResourceDefinition in the folder's YAML files."""
    return dict(_load_crds(str(Path(directory).resolve())))


@functools.cache
def _load_crds(directory: str) -> tuple[tuple[tuple[str, str], CrdSchema], ...]:
    root = Path(directory)
    try:
        is_dir = root.is_dir()
    except OSError:  # a name too long for the file system
        is_dir = False
    if not is_dir:
        raise ConfigError(f"--crds {directory[:200]!r}: not a directory of CustomResourceDefinition YAML files")
    found: dict[tuple[str, str], CrdSchema] = {}
    for path in sorted([*root.glob("*.yaml"), *root.glob("*.yml")])[:MAX_CRD_FILES]:
        for doc in parse_yaml_all(read_text(path, "CRD file"), str(path)):  # size, depth, alias, UTF-8 limits
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                for crd in _crd_versions(doc, path):
                    found[(crd.api_version, crd.kind)] = crd
    return tuple(found.items())


def _crd_versions(doc: dict[str, Any], path: Path) -> list[CrdSchema]:
    """The served versions of one CRD that carry a schema; a malformed CRD is a ConfigError."""
    shape = "needs spec.group, spec.names.kind and spec.versions[].name, each text, and schemas as mappings"
    spec = doc.get("spec")
    versions = spec.get("versions") if isinstance(spec, dict) else None
    names = spec.get("names") if isinstance(spec, dict) else None
    if not isinstance(spec, dict) or not isinstance(versions, list | None) or not isinstance(names, dict):
        raise ConfigError(f"{path}: malformed CustomResourceDefinition ({shape})")
    out = []
    for ver in versions or []:
        holder = ver.get("schema") if isinstance(ver, dict) else None
        schema = holder.get("openAPIV3Schema") if isinstance(holder, dict) else None
        if not isinstance(ver, dict) or not isinstance(holder, dict | None) or not isinstance(schema, dict | None):
            raise ConfigError(f"{path}: malformed CustomResourceDefinition ({shape})")
        if not schema or not ver.get("served", True):
            continue
        group, name, kind = spec.get("group"), ver.get("name"), names.get("kind")
        if not all(isinstance(v, str) and v for v in (group, name, kind)):
            raise ConfigError(f"{path}: malformed CustomResourceDefinition ({shape})")
        out.append(CrdSchema(str(group), str(name), str(kind), _strict(copy.deepcopy(schema)), str(path)))
    return out


def _have_jsonschema() -> bool:
    import importlib.util

    return importlib.util.find_spec("jsonschema") is not None


def _path_key(error: Any) -> list[tuple[int, int, str]]:
    """Sort key of a validation error's path: list indexes and mapping keys never compared."""
    return [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path]


def _check_crd(m: Manifest, crd: CrdSchema) -> Check:
    import jsonschema

    # OpenAPI v3.0 schemas are closest to JSON Schema draft 4 (boolean exclusiveMinimum, nullable aside)
    try:
        jsonschema.Draft4Validator.check_schema(crd.schema)
        validator = jsonschema.Draft4Validator(crd.schema)
        errors = sorted(validator.iter_errors(m.body), key=_path_key)
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.UnknownType, re.error) as exc:
        where = Path(crd.source).name
        raise ConfigError(f"{where}: the schema of {crd.kind}.{crd.group} is not valid: {str(exc)[:200]}") from None
    if errors:
        e = errors[0]
        where = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return Check(m.kind, m.name, m.file, "invalid", f"{where}: {e.message}{more}")
    return Check(m.kind, m.name, m.file, "ok", f"CRD {crd.kind}.{crd.group}/{crd.version} from {Path(crd.source).name}")


# ------------------------------------------------------------------------------------------
def _label_maps(body: Any, path: str = "") -> Iterable[tuple[str, dict[str, Any]]]:
    """(where, labels) of the maps of Kubernetes labels in an object: metadata.labels, matchLabels and
    nodeSelector (the schemas type them only as maps of strings)."""
    if isinstance(body, list):
        for i, v in enumerate(body):
            yield from _label_maps(v, f"{path}.{i}")
        return
    if not isinstance(body, dict):
        return
    for k, v in body.items():
        where = f"{path}.{k}".lstrip(".")
        if k == "metadata" and isinstance(v, dict) and isinstance(v.get("labels"), dict):
            yield f"{where}.labels", v["labels"]
        elif k in ("matchLabels", "nodeSelector") and isinstance(v, dict):
            yield where, v
        yield from _label_maps(v, where)


def label_problems(body: Any) -> list[str]:
    """What Kubernetes would refuse in the object's label keys and values."""
    out = []
    maps = list(_label_maps(body))
    spec = body.get("spec") if isinstance(body, dict) else None
    if isinstance(spec, dict) and body.get("kind") == "Service" and isinstance(spec.get("selector"), dict):
        maps.append(("spec.selector", spec["selector"]))
    for where, labels in maps:
        for key, value in labels.items():
            if not is_label_key(str(key)):
                out.append(f"{where}: {str(key)!r} is not a label key (an optional DNS prefix and '/', then a name)")
            if isinstance(value, str) and not is_label_value(value):
                out.append(f"{where}.{key}: {value!r} is not a label value ({LABEL_VALUE_RULE})")
    return out


# Volcano Job and KEDA ScaledObject CRDs shipped with the package (sources in data/CRDS.md).
SHIPPED_CRDS = Path(__file__).parent / "data"


def validate(
    manifests: Iterable[Manifest], crd_dir: str | Path | None = None, kubernetes_version: str | None = None
) -> Report:
    """Check each manifest: core kinds with kubernetes-validate, custom kinds with their CRD schema."""
    manifests = list(manifests)
    version = schema_version(kubernetes_version)
    crds = load_crds(crd_dir if crd_dir is not None else SHIPPED_CRDS)
    have_jsonschema = _have_jsonschema()
    checks: list[Check] = []
    for m in manifests:
        labels = label_problems(m.body)
        if labels:
            more = f" (+{len(labels) - 1} more)" if len(labels) > 1 else ""
            checks.append(Check(m.kind, m.name, m.file, "invalid", labels[0] + more))
            continue
        if m.api_version in CORE_GROUPS:
            if version is None:
                checks.append(
                    Check(m.kind, m.name, m.file, "skipped", f"kubernetes-validate is not installed ({INSTALL_HINT})")
                )
            else:
                checks.append(_check_core(m, version))
            continue
        crd = crds.get((m.api_version, m.kind))
        if crd is not None and not have_jsonschema:
            checks.append(Check(m.kind, m.name, m.file, "skipped", f"jsonschema is not installed ({INSTALL_HINT})"))
            continue
        if crd is None:
            hint = "pass --crds DIR with its CustomResourceDefinition" if crd_dir is None else f"not in {crd_dir}"
            checks.append(
                Check(m.kind, m.name, m.file, "skipped", f"custom resource {m.api_version}: no schema ({hint})")
            )
            continue
        checks.append(_check_crd(m, crd))
    kv = kubernetes_validate_version()
    return Report(checks, version, f"kubernetes-validate {kv}" if kv else None)
