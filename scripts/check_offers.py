#!/usr/bin/env python3
"""Check src/gpuwise/catalog/data/offers.yaml without importing gpuwise (stdlib and PyYAML only).

Every offer must name a known GPU, a lower-case provider, an instance, a GPU count, a link, the
fabric between instances (or null) and whether it is rented as a cluster (or null), an offer
class, whether the price is indicative, a region, a price model, a currency with a sourced exchange
rate, a positive instance price, a date (YYYY-MM or YYYY-MM-DD; null exactly when its source is
undated) and a source key that exists in the file's `sources`. One instance states one fabric,
cluster and class in all its offers. Sources and exchange rates are checked the same way. The script prints counts per provider, GPU, price model
and currency, and exits 1 when anything is wrong (2 when the file cannot be read at all), so a
bad edit is caught before the planner prices a cluster with it.

Run from the repository root: `python3 scripts/check_offers.py [PATH]` (stdlib and PyYAML only).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "gpuwise" / "catalog" / "data"
OFFERS = DATA / "offers.yaml"
GPUS = DATA / "gpus.yaml"

# GPUs the market rents that gpus.yaml does not describe yet: their offers load and are
# listed by `gpuwise prices`, but the planner cannot use them until gpus.yaml has their figures.
NEW_GPU_IDS = frozenset({"rtx-a6000", "rtx-6000-ada", "rtx-pro-6000", "l20", "mi325x", "gh200", "b300"})
LINKS = frozenset({"pcie", "nvlink-bridge", "nvswitch", "none"})
PRICE_MODELS = frozenset({"on-demand", "spot", "1y", "3y"})
FABRIC_KINDS = frozenset({"infiniband", "roce", "efa", "ethernet", "none"})
OFFER_CLASSES = frozenset({"hyperscaler", "neocloud", "marketplace", "own"})
MAX_GBPS_PER_GPU = 10_000  # as the loader bounds it (gpuwise.catalog.schema.Fabric)
DATE_BASES = frozenset({"published", "collected", "bound", "accessed"})
OFFER_FIELDS = (
    "gpu",
    "provider",
    "instance",
    "gpus_per_instance",
    "link",
    "fabric",
    "cluster",
    "offer_class",
    "indicative",
    "region",
    "price_model",
    "currency",
    "price_per_hour",
    "date",
    "source",
    "available",
)
OPTIONAL_OFFER_FIELDS = frozenset({"note"})
SOURCE_FIELDS = ("title", "url", "date", "accessed", "date_basis")
FX_FIELDS = ("currency", "per_usd", "date", "source")
DATE_RE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$")
PROVIDER_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
CURRENCY_RE = re.compile(r"^[A-Z]{3}$")


def load_yaml(path: Path) -> Any:
    """Parse one YAML file; a missing or malformed file is reported, not raised."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SystemExit(f"error: cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise SystemExit(f"error: {path} is not valid YAML: {exc}") from None


def catalog_gpu_ids(gpus_doc: Any) -> set[str]:
    """The GPU ids of gpus.yaml, so offers cannot name a card the catalog lacks."""
    if not isinstance(gpus_doc, Mapping) or not isinstance(gpus_doc.get("gpus"), list):
        raise SystemExit(f"error: {GPUS} has no 'gpus' list")
    return {str(g["id"]) for g in gpus_doc["gpus"] if isinstance(g, Mapping) and "id" in g}


def is_date(value: Any) -> bool:
    """True for a quoted YYYY-MM or YYYY-MM-DD string (YAML would turn a bare date into a date)."""
    return isinstance(value, str) and bool(DATE_RE.match(value))


def is_positive_number(value: Any) -> bool:
    """True for an int or float above zero (booleans are not numbers here)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def check_sources(sources: Any) -> list[str]:
    """Each source needs a title, a URL, a publication date, an access date and a date basis."""
    if not isinstance(sources, Mapping) or not sources:
        return ["'sources' must be a non-empty mapping"]
    problems: list[str] = []
    for key, entry in sources.items():
        where = f"source {key!r}"
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: must be a mapping")
            continue
        problems += [f"{where}: missing {f!r}" for f in SOURCE_FIELDS if not entry.get(f)]
        for field in ("date", "accessed"):
            if entry.get(field) and not is_date(entry[field]):
                problems.append(f"{where}: {field} {entry[field]!r} is not a quoted YYYY-MM[-DD]")
        basis = entry.get("date_basis")
        if basis and basis not in DATE_BASES:
            problems.append(f"{where}: date_basis {basis!r} not one of {sorted(DATE_BASES)}")
    return problems


def check_fx(fx: Any, sources: Mapping[str, Any]) -> tuple[list[str], set[str]]:
    """Exchange rates: units of the currency per USD, each dated and sourced; returns the currencies."""
    if not isinstance(fx, list):
        return ["'fx' must be a list"], set()
    problems: list[str] = []
    currencies: set[str] = set()
    for i, rate in enumerate(fx):
        where = f"fx[{i}]"
        if not isinstance(rate, Mapping):
            problems.append(f"{where}: must be a mapping")
            continue
        problems += [f"{where}: missing {f!r}" for f in FX_FIELDS if rate.get(f) in (None, "")]
        cur = rate.get("currency")
        if not isinstance(cur, str) or not CURRENCY_RE.match(cur):
            problems.append(f"{where}: currency {cur!r} is not an ISO code like CNY")
        elif cur in currencies:
            problems.append(f"{where}: currency {cur} appears twice")
        else:
            currencies.add(cur)
        if not is_positive_number(rate.get("per_usd")):
            problems.append(f"{where}: per_usd {rate.get('per_usd')!r} must be a positive number")
        if rate.get("date") and not is_date(rate["date"]):
            problems.append(f"{where}: date {rate['date']!r} is not a quoted YYYY-MM[-DD]")
        if rate.get("source") and rate["source"] not in sources:
            problems.append(f"{where}: source {rate['source']!r} is not in 'sources'")
    return problems, currencies


def check_offer(
    offer: Any, where: str, gpu_ids: set[str], sources: Mapping[str, Any], currencies: set[str]
) -> list[str]:
    """One offer's fields, each against its allowed values."""
    if not isinstance(offer, Mapping):
        return [f"{where}: must be a mapping"]
    problems = [f"{where}: missing {f!r}" for f in OFFER_FIELDS if f not in offer]
    unknown = set(offer) - set(OFFER_FIELDS) - OPTIONAL_OFFER_FIELDS
    problems += [f"{where}: unknown field {f!r}" for f in sorted(unknown)]
    gpu, provider = offer.get("gpu"), offer.get("provider")
    if "gpu" in offer and gpu not in gpu_ids and gpu not in NEW_GPU_IDS:
        problems.append(f"{where}: gpu {gpu!r} is neither in gpus.yaml nor in the allowed new ids")
    if "provider" in offer and not (isinstance(provider, str) and PROVIDER_RE.match(provider)):
        problems.append(f"{where}: provider {provider!r} must be a lower-case id like aws or runpod-secure")
    for field in ("instance", "region"):
        if field in offer and not (isinstance(offer[field], str) and offer[field].strip()):
            problems.append(f"{where}: {field} must be a non-empty string")
    count = offer.get("gpus_per_instance")
    if "gpus_per_instance" in offer and not (isinstance(count, int) and not isinstance(count, bool) and count > 0):
        problems.append(f"{where}: gpus_per_instance {count!r} must be a positive integer")
    if "link" in offer and offer["link"] not in LINKS:
        problems.append(f"{where}: link {offer['link']!r} not one of {sorted(LINKS)}")
    elif isinstance(count, int) and offer.get("link") in LINKS and (count == 1) != (offer.get("link") == "none"):
        problems.append(
            f"{where}: link must be 'none' exactly when gpus_per_instance is 1 (got {count}, {offer['link']!r})"
        )
    if "price_model" in offer and offer["price_model"] not in PRICE_MODELS:
        problems.append(f"{where}: price_model {offer['price_model']!r} not one of {sorted(PRICE_MODELS)}")
    cur = offer.get("currency")
    if "currency" in offer and cur != "USD" and cur not in currencies:
        problems.append(f"{where}: currency {cur!r} has no rate in 'fx'")
    if "price_per_hour" in offer and not is_positive_number(offer["price_per_hour"]):
        problems.append(f"{where}: price_per_hour {offer['price_per_hour']!r} must be a positive number")
    problems += check_date(offer, where, sources)
    if "source" in offer and offer["source"] not in sources:
        problems.append(f"{where}: source {offer['source']!r} is not in 'sources'")
    for flag in ("available", "indicative"):
        if flag in offer and not isinstance(offer[flag], bool):
            problems.append(f"{where}: {flag} must be true or false")
    if "offer_class" in offer and offer["offer_class"] is not None and offer["offer_class"] not in OFFER_CLASSES:
        problems.append(f"{where}: offer_class {offer['offer_class']!r} not one of {sorted(OFFER_CLASSES)} or null")
    problems += check_fabric(offer.get("fabric"), where, sources)
    problems += check_cluster(offer.get("cluster"), where, sources, offer.get("fabric"))
    return problems


def check_date(offer: Mapping[str, Any], where: str, sources: Mapping[str, Any]) -> list[str]:
    """A quoted date, or null exactly when the offer's source is undated (date_basis accessed)."""
    if "date" not in offer:
        return []
    src = sources.get(offer.get("source")) if isinstance(offer.get("source"), str) else None
    undated = isinstance(src, Mapping) and src.get("date_basis") == "accessed"
    if offer["date"] is None:
        return [] if undated else [f"{where}: date is null but its source is dated (give the date)"]
    if undated:
        return [f"{where}: its source is undated (date_basis accessed): date must be null, not {offer['date']!r}"]
    return [] if is_date(offer["date"]) else [f"{where}: date {offer['date']!r} is not a quoted YYYY-MM[-DD]"]


def _cited(entry: Mapping[str, Any], where: str, sources: Mapping[str, Any]) -> list[str]:
    src = entry.get("source")
    return [] if src in sources else [f"{where}: source {src!r} is not in 'sources'"]


def check_fabric(fabric: Any, where: str, sources: Mapping[str, Any]) -> list[str]:
    """null (unknown) or {kind, gbps_per_gpu (null when unpublished; null for none), source}."""
    if fabric is None:
        return []
    where = f"{where}: fabric"
    if not isinstance(fabric, Mapping):
        return [f"{where} must be a mapping or null"]
    problems = [f"{where}: unknown field {k!r}" for k in sorted(set(fabric) - {"kind", "gbps_per_gpu", "source"})]
    if fabric.get("kind") not in FABRIC_KINDS:
        problems.append(f"{where}: kind {fabric.get('kind')!r} not one of {sorted(FABRIC_KINDS)}")
    rate = fabric.get("gbps_per_gpu")
    if rate is not None and not (is_positive_number(rate) and rate <= MAX_GBPS_PER_GPU):
        problems.append(f"{where}: gbps_per_gpu {rate!r} must be a positive number up to {MAX_GBPS_PER_GPU} or null")
    if fabric.get("kind") == "none" and rate is not None:
        problems.append(f"{where}: kind none has no rate (gbps_per_gpu null)")
    return problems + _cited(fabric, where, sources)


def check_cluster(cluster: Any, where: str, sources: Mapping[str, Any], fabric: Any) -> list[str]:
    """null, or {max_gpus, source} for an instance with a fabric (a cluster needs one)."""
    if cluster is None:
        return []
    where = f"{where}: cluster"
    if not isinstance(cluster, Mapping):
        return [f"{where} must be a mapping or null"]
    problems = [f"{where}: unknown field {k!r}" for k in sorted(set(cluster) - {"max_gpus", "source"})]
    size = cluster.get("max_gpus")
    if size is not None and not (isinstance(size, int) and not isinstance(size, bool) and size >= 2):
        problems.append(f"{where}: max_gpus {size!r} must be a whole number of at least 2, or null")
    if not isinstance(fabric, Mapping) or fabric.get("kind") in (None, "none"):
        problems.append(f"{where}: a cluster needs a fabric between its instances (fabric is null or none)")
    return problems + _cited(cluster, where, sources)


INSTANCE_FACTS = ("gpus_per_instance", "link", "fabric", "cluster", "offer_class")


def check_instances(offers: list[Any]) -> list[str]:
    """One instance (provider, instance, GPU) states the same fabric, cluster and class everywhere."""
    first: dict[tuple[Any, ...], tuple[int, tuple[Any, ...]]] = {}
    problems: list[str] = []
    for i, o in enumerate(offers):
        if not isinstance(o, Mapping):
            continue
        key = (o.get("provider"), o.get("instance"), o.get("gpu"))
        facts = tuple(repr(o.get(f)) for f in INSTANCE_FACTS)
        j, seen = first.setdefault(key, (i, facts))
        if seen != facts:
            problems.append(
                f"offers[{i}]: {key[1]!r} from {key[0]} states other {', '.join(INSTANCE_FACTS)} than offers[{j}]"
            )
    return problems


def offer_key(offer: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two offers the same offer (a repeated entry double-counts a price)."""
    fields = ("gpu", "provider", "instance", "region", "price_model", "currency", "date", "source")
    return tuple(offer.get(f) for f in fields)


def check_document(doc: Any, gpu_ids: set[str]) -> list[str]:
    """All problems in offers.yaml; an empty list means the file is fit to load."""
    if not isinstance(doc, Mapping):
        return ["the file must be a mapping with 'offers', 'sources' and 'fx'"]
    sources = doc.get("sources")
    problems = check_sources(sources)
    sources = sources if isinstance(sources, Mapping) else {}
    fx_problems, currencies = check_fx(doc.get("fx"), sources)
    problems += fx_problems
    offers = doc.get("offers")
    if not isinstance(offers, list) or not offers:
        return [*problems, "'offers' must be a non-empty list"]
    seen: dict[tuple[Any, ...], int] = {}
    for i, offer in enumerate(offers):
        where = f"offers[{i}]"
        problems += check_offer(offer, where, gpu_ids, sources, currencies)
        if isinstance(offer, Mapping):
            key = offer_key(offer)
            if key in seen:
                problems.append(f"{where}: repeats offers[{seen[key]}]")
            seen.setdefault(key, i)
    problems += check_instances(offers)
    used = {o.get("source") for o in offers if isinstance(o, Mapping)}
    used |= {
        o[f].get("source")
        for o in offers
        if isinstance(o, Mapping)
        for f in ("fabric", "cluster")
        if isinstance(o.get(f), Mapping)
    }
    used |= {r.get("source") for r in doc.get("fx") or [] if isinstance(r, Mapping)}
    problems += [f"source {key!r} is never used" for key in sources if key not in used]
    return problems


def format_counts(title: str, counts: Iterable[tuple[str, int]]) -> str:
    """A titled, aligned table of counts, most frequent first."""
    rows = sorted(counts, key=lambda kv: (-kv[1], kv[0]))
    width = max((len(k) for k, _ in rows), default=0)
    lines = [f"{title} ({len(rows)}):"] + [f"  {k.ljust(width)}  {n}" for k, n in rows]
    return "\n".join(lines)


def summary(offers: list[Mapping[str, Any]]) -> str:
    """Counts per provider, GPU, price model and currency."""
    parts = [f"offers: {len(offers)}"]
    for field, title in (
        ("provider", "providers"),
        ("gpu", "GPU models"),
        ("price_model", "price models"),
        ("currency", "currencies"),
        ("offer_class", "offer classes"),
    ):
        parts.append(format_counts(title, Counter(str(o.get(field)) for o in offers).items()))
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    """Check the file given (default: the package's offers.yaml) and print its counts."""
    path = Path(argv[1]) if len(argv) > 1 else OFFERS
    try:
        doc = load_yaml(path)
        gpu_ids = catalog_gpu_ids(load_yaml(GPUS))
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    problems = check_document(doc, gpu_ids)
    offers = [o for o in (doc.get("offers") or []) if isinstance(o, Mapping)] if isinstance(doc, Mapping) else []
    print(summary(offers))
    if problems:
        print(f"\n{len(problems)} problem(s) in {path}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"\n{path.name}: no problems")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
