"""The uncertainty band of each predicted figure, from the published cases most like this one.

The bands are data (catalog uncertainty.yaml, written by scripts/fit_bands.py from the corpus'
out-of-sample errors); this module only finds a figure's class and reads its band: a pure lookup.

A class is figure x model family x GPU vendor x stack (training framework or serving engine, for
LLMs) x GPU architecture. The most specific class the file holds gives the band; a vendor and stack
with no validated case get the widest band of the figure and family, and the basis says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpuwise.catalog import GenericArch, TransformerArch
from gpuwise.workload.requirements import DEFAULT_CONFIDENCE

if TYPE_CHECKING:
    from gpuwise.catalog.schema import GPU, BandClass, UncertaintyTable
    from gpuwise.workload import Workload

ANY = "*"
LEVELS = tuple(pct / 100 for pct in range(50, 100, 5))  # the levels the file holds: 0.5, 0.55, ..., 0.95
LEVEL_SLACK = 1e-9  # a level asked for equals a stored one within float rounding (0.8 from "0.8" or 80 / 100)
DEFAULT_LEVEL = DEFAULT_CONFIDENCE
Sense = Literal["speed", "time", "memory"]
# figure -> (what its ratio measures, words for people)
FIGURES: dict[str, tuple[Sense, str]] = {
    "memory": ("memory", "peak memory"),
    "training": ("speed", "training throughput"),
    "prefill": ("time", "time to first token"),
    "decode": ("speed", "decode rate"),
    "onepass": ("speed", "one-pass inference throughput"),
}
FAMILIES = {
    "llm": "LLMs (decoders)",
    "moe": "mixture-of-experts LLMs",
    "encoder": "encoders",
    "operators": "models described by operators",
}
# the families timed by a training framework or a serving engine (their classes carry the stack)
DECODERS = frozenset({"llm", "moe"})
# figure families: the rank of each field in a class key, most general first
_FIELDS = ("figure", "family", "vendor", "stack", "arch")


@dataclass(frozen=True, slots=True)
class ClassKey:
    """A class of published cases; ANY in a field means every value (a parent class)."""

    figure: str
    family: str = ANY
    vendor: str = ANY
    stack: str = ANY
    arch: str = ANY

    @property
    def text(self) -> str:
        return "/".join((self.figure, self.family, self.vendor, self.stack, self.arch))

    @classmethod
    def parse(cls, text: str) -> ClassKey:
        parts = text.split("/")
        if len(parts) != len(_FIELDS) or not parts[0]:
            raise ValueError(f"a band class is {'/'.join(_FIELDS)}, got {text!r}")
        return cls(*parts)

    @property
    def vendor_name(self) -> str:
        """The vendor as people write it: AMD, Nvidia."""
        return self.vendor.upper() if self.vendor == "amd" else self.vendor.capitalize()

    def describe(self) -> str:
        """'decode rate of LLMs (decoders) on AMD cdna3 under vllm' for the basis text."""
        bits = [FIGURES[self.figure][1] if self.figure in FIGURES else self.figure]
        if self.family != ANY:
            bits.append(f"of {FAMILIES.get(self.family, self.family)}")
        if self.vendor != ANY:
            bits.append(f"on {self.vendor_name}")
            if self.arch != ANY:
                bits.append(self.arch)
        if self.stack != ANY:
            bits.append(f"under {self.stack}")
        return " ".join(bits)


def lineage(key: ClassKey) -> list[ClassKey]:
    """The class and its parents, most specific first: architecture, stack, vendor, family dropped
    in turn (duplicates left out where a field is already ANY)."""
    chain = [
        key,
        ClassKey(key.figure, key.family, key.vendor, key.stack),
        ClassKey(key.figure, key.family, key.vendor),
        ClassKey(key.figure, key.family),
        ClassKey(key.figure),
    ]
    return list(dict.fromkeys(chain))


def validated_key(key: ClassKey) -> ClassKey:
    """The class that must hold a case for a figure to count as validated: vendor and stack."""
    return ClassKey(key.figure, key.family, key.vendor, key.stack)


def family_of(model: object) -> str:
    """llm (dense decoder transformers), moe (decoders with routed experts: their expert and
    all-to-all costs are a model of their own, so dense cases do not vouch for them), encoder
    (BERT-like), operators (models described operator by operator or by totals)."""
    if isinstance(model, TransformerArch):
        if not model.decoder:
            return "encoder"
        return "moe" if model.is_moe else "llm"
    if isinstance(model, GenericArch):
        return "operators"
    raise TypeError(f"no model family for {type(model).__name__}")


def class_key(figure: str, work: Workload, gpu: GPU) -> ClassKey:
    """The class of one estimate's figure: its model family, GPU vendor and architecture, and for
    LLMs the stack (training framework, or serving engine)."""
    fam = family_of(work.model)
    stack = ANY
    if fam in DECODERS:
        stack = str(getattr(work, "framework", None) or getattr(work, "engine", None) or ANY)
    return ClassKey(figure, fam, gpu.vendor, stack, gpu.architecture)


# a class whose published cases lie on one side of its estimates by at least this median (a gpuwise choice:
# a tenth, where a plan's margin starts to matter) has a known bias that the terminal, the report and the
# web name beside the figure; a smaller one stays in the basis
KNOWN_BIAS_MIN = 0.10


def bias_word(figure: str, median: float) -> str:
    """How a class's measurements lie against its estimates, by the sign of their median ratio
    (measured / predicted - 1): slower or faster for rates and times, smaller or larger for memory."""
    if FIGURES[figure][0] == "memory":
        return "smaller" if median < 0 else "larger"
    return "slower" if median < 0 else "faster"


@dataclass(frozen=True, slots=True)
class KnownBias:
    """A class's published cases on one side of its estimates: `cases` of `of` measured `word`
    (bias_word) than estimated, by a median of `median` (a fraction); not corrected in the model
    until its cause is."""

    key: ClassKey
    cases: int
    of: int
    median: float

    @property
    def word(self) -> str:
        return bias_word(self.key.figure, self.median)

    def text(self) -> str:
        """In English, as the JSON carries it."""
        return (
            f"{self.key.describe()}: {self.cases} of {self.of} cases measured {self.word} than estimated "
            f"(median {self.median:+.0%}), not corrected in the model"
        )


@dataclass(frozen=True, slots=True)
class Band:
    """Multipliers on a figure's own value: the measured figure lies in [value*low, value*high]
    with probability `level`, as far as the `cases` behind it tell (`basis` says which). `bias`: the
    known bias of the class it comes from, in words (its published cases on one side of the
    estimate by a median of KNOWN_BIAS_MIN or more; not corrected in the model), else None."""

    low: float
    high: float
    level: float
    cases: int
    basis: str
    bias: KnownBias | None = None

    def inverted(self) -> Band:
        """The band of the reciprocal figure (a time from a rate, and back)."""
        return Band(1 / self.high, 1 / self.low, self.level, self.cases, self.basis, self.bias)

    def around(self, value: float) -> dict[str, object]:
        """The JSON of the band around `value`: low <= value <= high (`bias` only where known)."""
        out: dict[str, object] = {
            "low": value * self.low,
            "high": value * self.high,
            "level": self.level,
            "cases": self.cases,
            "basis": self.basis,
        }
        if self.bias is not None:
            out["bias"] = self.bias.text()
        return out


def stored_level(table: UncertaintyTable, level: float) -> float:
    """The level the file holds at or above `level` (the next wider band), or its widest."""
    above = [lv for lv in table.levels if lv >= level - LEVEL_SLACK]
    return min(above) if above else max(table.levels)


def _sample_words(c: BandClass) -> str:
    if c.out_of_sample == c.cases:
        return "out of sample"
    if c.out_of_sample == 0:
        return c.in_sample_note or "in sample"
    return f"{c.out_of_sample} out of sample, {c.cases - c.out_of_sample} {c.in_sample_note or 'in sample'}"


def _count(n: int, noun: str, plural: str = "") -> str:
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _basis(key: ClassKey, c: BandClass, table: UncertaintyTable, level: float) -> tuple[str, int]:
    """Words for the basis of a class's band at `level`, and the cases it rests on."""
    fams = f"{_count(c.families, 'family', 'families')}" if c.families != c.sources else ""
    own = (
        f"{_count(c.cases, 'published case')} from {_count(c.sources, 'source')}{f' ({fams})' if fams else ''} "
        f"of {key.describe()} ({_sample_words(c)})"
    )
    lv = f"{level:g}"
    src = c.widened_from.get(lv)
    cases = c.cases
    need = table.min_families.get(lv, 0)
    if src is not None:
        parent = table.classes[src]
        own += (
            f"; fewer than {need} source families for a {level:.0%} band: the band of "
            f"{ClassKey.parse(src).describe()} ({parent.cases} cases from {_count(parent.families, 'family', 'families')}),"
            f" widened to hold the central {level:.0%} of these"
        )
        cases = parent.cases
    elif c.families < need:
        own += f"; fewer than {need} source families for a {level:.0%} band: wide, its largest error either way"
    if c.flag:
        own += f"; {c.flag}"
    return own + _calibrated(table, f"{key.figure}/validated", lv), cases


def known_bias(key: ClassKey, c: BandClass) -> KnownBias | None:
    """A class's bias where it is known and material: flagged (scripts/fit_bands.py: the central 80 % of
    its cases on one side of the estimate) with a median of KNOWN_BIAS_MIN or more."""
    if c.biased_cases is None or abs(c.bias) < KNOWN_BIAS_MIN:
        return None
    return KnownBias(key, c.biased_cases, c.cases, c.bias)


def _calibrated(table: UncertaintyTable, scope: str, lv: str) -> str:
    """Words for the calibration of a scope's widths at a level (none where the file has none)."""
    cal = table.calibration.get(scope)
    if cal is None or lv not in cal.factors:
        return ""
    pooled = cal.pooled.get(lv)
    return (
        f"; width x{cal.factors[lv]:.2f} (log scale) to hold {float(lv):.0%} of the errors on sources no fit saw "
        f"(the corpus held out by family and the holdouts' first scorings{f', pooled as {pooled}' if pooled else ''})"
    )


_CACHE: dict[tuple[int, ClassKey, float], tuple[UncertaintyTable, Band]] = {}
_CACHE_SIZE = 4096  # classes x levels seen in one process; the plan search asks for the same few often


def band_for(table: UncertaintyTable, key: ClassKey, level: float) -> Band:
    """The band of one class at `level` (pure: a lookup in the catalog's table, remembered per
    table; the entry holds the table, so its id cannot be reused while it is remembered)."""
    hit = _CACHE.get((id(table), key, level))
    if hit is not None and hit[0] is table:
        return hit[1]
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    band = _lookup(table, key, level)
    _CACHE[(id(table), key, level)] = (table, band)
    return band


def _lookup(table: UncertaintyTable, key: ClassKey, level: float) -> Band:
    lv = stored_level(table, level)
    if validated_key(key).text not in table.classes:
        fam = f"{key.figure}/{key.family}"
        widest = table.widest.get(fam) or table.widest[key.figure]
        low, high = widest[f"{lv:g}"]
        what = ClassKey(key.figure, key.family, key.vendor, key.stack).describe()
        basis = (
            f"no validated case of {what}: the widest {lv:.0%} band of {ClassKey(key.figure, key.family).describe()}"
        )
        return Band(low, high, lv, 0, basis + _calibrated(table, f"{key.figure}/unvalidated", f"{lv:g}"))
    for k in lineage(key):
        c = table.classes.get(k.text)
        if c is not None:
            low, high = c.bands[f"{lv:g}"]
            basis, cases = _basis(k, c, table, lv)
            return Band(low, high, lv, cases, basis, known_bias(k, c))
    raise AssertionError(f"{key.text}: its validated class is in the table")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# a figure calibrated on the team's own run: its measured spread
# --------------------------------------------------------------------------------------------
MEASURED_LOW_FLOOR = 1e-3  # a measured spread of 100 % or more still leaves a positive low end (a ratio, not 0)
MEASURED_NEAR = 4.0  # a measured run's ratio is carried this far (x) in each size; beyond, the published bands
SIZE_KEYS = ("concurrency", "input_tokens", "output_tokens", "micro_batch", "seq", "global_batch")


def workload_sizes(work: Workload) -> dict[str, float]:
    """The sizes of a workload a measured run is compared by (concurrency and lengths for serving;
    micro-batch, sequence and global batch for training)."""
    out = {k: getattr(work, k, None) for k in SIZE_KEYS}
    return {k: float(v) for k, v in out.items() if isinstance(v, int | float) and not isinstance(v, bool) and v > 0}


def size_distance(asked: Mapping[str, float], measured: Mapping[str, float], keys: Sequence[str] = SIZE_KEYS) -> float:
    """Sum over the sizes both have of |log2(asked / measured)|: 1 for each doubling away."""
    total = 0.0
    for k in keys:
        a, m = asked.get(k), measured.get(k)
        if isinstance(a, int | float) and isinstance(m, int | float) and a > 0 and m > 0:
            total += abs(math.log2(a / m))
    return total


@dataclass(frozen=True, slots=True)
class MeasuredSpread:
    """The bands of figures calibrated on the team's measured run: at its workload, its own spread
    (relative half-widths, what the calibrated model still misses included); away from it, widened
    toward the published cases' band, all the way at MEASURED_NEAR x in the sizes combined."""

    halfwidths: Mapping[str, float]  # JSON path -> relative half-width at the measured workload
    shape: Mapping[str, float]  # the measured workload's sizes (workload_sizes' names)
    cases: int  # measurements behind it
    basis: str

    def band(self, path: str, model: Band, asked: Mapping[str, float]) -> Band | None:
        """The band of `path` (None: not calibrated); `model` is the published cases' band there."""
        w = self.halfwidths.get(path)
        if w is None:
            return None
        t = min(1.0, size_distance(asked, self.shape) / math.log2(MEASURED_NEAR))
        low, high = max(1 - w, MEASURED_LOW_FLOOR) * model.low**t, (1 + w) * model.high**t
        where = "" if t == 0 else f", widened {t:.0%} of the way to the published cases' band with the distance from it"
        return Band(min(low, 1.0), max(high, 1.0), model.level, self.cases, f"{self.basis}{where}")


# --------------------------------------------------------------------------------------------
# which band each JSON figure takes
# --------------------------------------------------------------------------------------------
TRAINING_RATES = ("training.tokens_per_second", "training.samples_per_second")
# the expected run (failure-free time plus what a run at its scale loses) takes the training time's band, as the
# plan's deadline does: the losses are sourced constants, not fitted, and carry no band of their own
TRAINING_TIMES = (
    "training.step_seconds",
    "training.total_seconds",
    "training.gpu_hours",
    "reliability.expected_seconds",
    "reliability.expected_gpu_hours",
)
INFERENCE_RATES = ("inference.tokens_per_second", "inference.samples_per_second", "inference.requests_per_second")


def figure_bands(
    values: Mapping[str, float | None],
    work: Workload,
    gpu: GPU,
    table: UncertaintyTable,
    level: float,
    measured: MeasuredSpread | None = None,
    rerun: Callable[[float], Mapping[str, float]] | None = None,
) -> dict[str, Band]:
    """The band of each predicted figure present in `values` (JSON path -> value), as multipliers
    on the figure: rates and times of one class are reciprocal, an LLM request's latency is its
    TTFT and its decode weighted by their shares; a paced run's widened to carry its queue (`rerun`:
    its figures at a scale of its times, queued_bands). Figures calibrated on the team's own run
    (`measured`) take its spread instead, widened toward these bands with the distance from it (the
    team's runs carry their own queue)."""
    bands = _model_bands(values, work, gpu, table, level)
    if rerun is not None:
        bands = queued_bands(bands, values, rerun)
    if measured is None:
        return bands
    asked = workload_sizes(work)
    return {p: measured.band(p, b, asked) or b for p, b in bands.items()}


def _model_bands(
    values: Mapping[str, float | None],
    work: Workload,
    gpu: GPU,
    table: UncertaintyTable,
    level: float,
) -> dict[str, Band]:
    """figure_bands from the published cases alone."""

    def get(figure: str) -> Band:
        return band_for(table, class_key(figure, work, gpu), level)

    def has(path: str) -> bool:
        v = values.get(path)
        return v is not None and v > 0

    out: dict[str, Band] = {}
    if has("memory.per_gpu.total"):
        out["memory.per_gpu.total"] = get("memory")
    if any(has(p) for p in (*TRAINING_RATES, *TRAINING_TIMES)):
        b = get("training")
        out.update({p: b for p in TRAINING_RATES if has(p)})
        out.update({p: b.inverted() for p in TRAINING_TIMES if has(p)})
    if not has("inference.latency_seconds"):
        return out
    if family_of(work.model) not in DECODERS:
        b = get("onepass")
        out.update({p: b for p in INFERENCE_RATES if has(p)})
        for p in ("inference.time_to_first_token_seconds", "inference.latency_seconds"):
            if has(p):
                out[p] = b.inverted()
        return out
    prefill, decode = get("prefill"), get("decode")
    out["inference.time_to_first_token_seconds"] = prefill
    out.update({p: decode for p in INFERENCE_RATES if has(p)})
    if has("inference.decode_seconds_per_token"):
        out["inference.decode_seconds_per_token"] = decode.inverted()
    share = min(
        1.0, (values.get("inference.time_to_first_token_seconds") or 0.0) / (values["inference.latency_seconds"] or 1.0)
    )
    per_token = decode.inverted()
    out["inference.latency_seconds"] = Band(
        share * prefill.low + (1 - share) * per_token.low,
        share * prefill.high + (1 - share) * per_token.high,
        prefill.level,
        min(prefill.cases, decode.cases),
        f"time to first token ({share:.0%} of it): {prefill.basis}; decode ({1 - share:.0%}): {decode.basis}",
        prefill.bias or decode.bias,
    )
    return out


# a paced run's figures re-simulated at its band's ends: JSON path -> whether it is a time (else a rate)
QUEUED = {
    "inference.time_to_first_token_seconds": True,
    "inference.decode_seconds_per_token": True,
    "inference.latency_seconds": True,
    **dict.fromkeys(INFERENCE_RATES, False),
}


def queued_bands(
    bands: Mapping[str, Band], values: Mapping[str, float | None], rerun: Callable[[float], Mapping[str, float]]
) -> dict[str, Band]:
    """The bands of a paced run (requests arriving at a set rate) with its queue carried: each figure's
    band widened to where the run itself lands re-simulated with its times at that band's ends (a
    time's band is its multipliers; a rate's, their reciprocals). Why: a band is a multiplier, right
    where a figure scales with the engine's speed; near capacity a 20 % slower engine can wait minutes
    for its first token (a queue that grows). Never narrowed: well below capacity the throughput is
    the offered load whatever the speed, but a published run is another draw of the arrivals, which
    the band's multipliers carry and one simulated draw does not."""
    out = dict(bands)
    for path, time in QUEUED.items():
        b, v = bands.get(path), values.get(path)
        if b is None or not v:
            continue
        scales = (b.low, b.high) if time else (1 / b.high, 1 / b.low)
        ends = sorted(rerun(scale).get(path, 0.0) / v for scale in scales)
        if not all(math.isfinite(e) and e > 0 for e in ends):
            continue
        low, high = min(ends[0], b.low), max(ends[1], b.high)
        if (low, high) == (b.low, b.high):
            continue
        basis = f"{b.basis}; widened to the paced run re-simulated at the band's ends (its times x{scales[0]:.2f}, x{scales[1]:.2f})"
        out[path] = Band(low, high, b.level, b.cases, basis, b.bias)
    return out


def known_biases(bands: Iterable[Band]) -> list[KnownBias]:
    """The known biases behind some figures' bands, each once, in the order met (a request's latency
    carries its time to first token's, else its decode's: both are said through their own figures)."""
    return list(dict.fromkeys(b.bias for b in bands if b.bias is not None))


def json_biases(uncertainty: Mapping[str, Mapping[str, object]] | None) -> list[str]:
    """The known biases an estimate's JSON `uncertainty` carries, each once, in the order met (what
    known_biases gives the views that hold the bands themselves)."""
    return list(dict.fromkeys(str(b["bias"]) for b in (uncertainty or {}).values() if b.get("bias")))


def as_json(bands: Mapping[str, Band], values: Mapping[str, float | None]) -> dict[str, dict[str, object]]:
    """`uncertainty` of the JSON contract: each path's band around its value."""
    return {p: b.around(float(values[p] or 0.0)) for p, b in bands.items()}


# --------------------------------------------------------------------------------------------
# the pessimistic end, for targets
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Margins:
    """Multipliers from a serving estimate to the pessimistic end of its bands at `level`: each
    latency's high end (>= 1) and the throughput's low end (<= 1). A target is met at `level` when
    the figure times its multiplier meets it."""

    level: float
    ttft: float = 1.0
    tpot: float = 1.0
    e2e: float = 1.0
    rate: float = 1.0

    def of(self, metric: str) -> float:
        """The multiplier of a latency metric (ttft, tpot, e2e)."""
        return {"ttft": self.ttft, "tpot": self.tpot, "e2e": self.e2e}[metric]

    def as_dict(self) -> dict[str, float]:
        return {"level": self.level, "ttft": self.ttft, "tpot": self.tpot, "e2e": self.e2e, "rate": self.rate}


def serving_margins(
    work: Workload,
    gpu: GPU,
    table: UncertaintyTable | None,
    level: float,
    ttft: float,
    latency: float,
    measured: MeasuredSpread | None = None,
) -> Margins:
    """The margins of a serving layout whose request takes `latency` seconds, `ttft` of them to
    its first token (the end-to-end band weighs the two parts as `figure_bands` does; a run the
    team measured narrows them to its spread)."""
    if table is None:
        return Margins(level)
    values = {
        "inference.time_to_first_token_seconds": ttft,
        "inference.decode_seconds_per_token": 1.0 if latency > ttft else None,
        "inference.latency_seconds": latency,
        "inference.requests_per_second": 1.0,
    }
    b = figure_bands(values, work, gpu, table, level, measured)
    tpot = b.get("inference.decode_seconds_per_token")
    return Margins(
        b["inference.latency_seconds"].level,
        ttft=b["inference.time_to_first_token_seconds"].high,
        tpot=tpot.high if tpot is not None else 1.0,
        e2e=b["inference.latency_seconds"].high,
        rate=b["inference.requests_per_second"].low,
    )
