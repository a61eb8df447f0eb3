"""Small, dependency-free SVG charts (inline in HTML reports, files beside Markdown ones)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape

PALETTE = ("#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f", "#718096", "#c53030", "#319795")


def _open(width: int, height: int, title: str) -> list[str]:
    """The <svg> element and its bold title, as the first lines of a chart."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="{escape(title)}" font-family="sans-serif" font-size="12">',
        f'<text x="8" y="18" font-weight="bold">{escape(title)}</text>',
    ]


def hbars(items: Sequence[tuple[str, float]], title: str, fmt: Callable[[float], str], highlight: int = 0) -> str:
    """One horizontal bar per item; the `highlight` one in the first colour, the rest grey."""
    width, left, row = 720, 260, 26
    height = 40 + row * len(items)
    top = max((v for _, v in items), default=1.0) or 1.0
    out = _open(width, height, title)
    for i, (label, value) in enumerate(items):
        y = 30 + i * row
        w = (width - left - 90) * value / top
        colour = PALETTE[0] if i == highlight else "#a0aec0"
        out.append(f'<text x="8" y="{y + 15}">{escape(label[:38])}</text>')
        out.append(f'<rect x="{left}" y="{y + 3}" width="{max(w, 1):.1f}" height="{row - 8}" fill="{colour}"/>')
        out.append(f'<text x="{left + w + 6:.1f}" y="{y + 15}">{escape(fmt(value))}</text>')
    out.append("</svg>")
    return "\n".join(out)


def stacked(
    rows: Sequence[tuple[str, dict[str, float]]],
    parts: Sequence[str],
    title: str,
    fmt: Callable[[float], str],
    limit: float | Sequence[float] | None = None,
    names: Mapping[str, str] | None = None,
    limit_label: str = "capacity",
) -> str:
    """One stacked horizontal bar per row (e.g. memory components per GPU), with a legend and a
    vertical line at `limit` (e.g. the GPU's capacity): one across every bar, or, given one limit
    per row that are not all equal (GPUs of different sizes), a mark on each bar at its own limit,
    the limit written after its total. `names`: each part as the legend writes it (the report's
    language); by default the key with spaces."""
    limits = [limit] * len(rows) if limit is None or isinstance(limit, int | float) else list(limit)
    shared = limits[0] if limits and all(x == limits[0] for x in limits) else None
    shown = {p: (names or {}).get(p) or p.replace("_", " ") for p in parts}
    tip = {p: (names or {}).get(p) or p for p in parts}
    width, left, row = 720, 260, 30
    height = 70 + row * len(rows)
    top = max([sum(d.get(p, 0.0) for p in parts) for _, d in rows] + [x or 0.0 for x in limits]) or 1.0
    scale = (width - left - 90) / top
    out = _open(width, height, title)
    for i, (label, d) in enumerate(rows):
        y = 30 + i * row
        x = float(left)
        out.append(f'<text x="8" y="{y + 17}">{escape(label[:38])}</text>')
        for j, p in enumerate(parts):
            w = d.get(p, 0.0) * scale
            if w > 0:
                out.append(
                    f'<rect x="{x:.1f}" y="{y + 4}" width="{w:.1f}" height="{row - 10}" '
                    f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(tip[p])}: {escape(fmt(d[p]))}</title></rect>'
                )
                x += w
        total = escape(fmt(sum(d.get(p, 0.0) for p in parts)))
        own = limits[i] if shared is None else None
        if own:
            lx = left + own * scale
            out.append(
                f'<line x1="{lx:.1f}" y1="{y + 1}" x2="{lx:.1f}" y2="{y + row - 3}" stroke="#c53030" stroke-width="2"/>'
            )
            total += f" ({escape(limit_label)} {escape(fmt(own))})"
        out.append(f'<text x="{x + 6:.1f}" y="{y + 17}">{total}</text>')
    if shared:
        lx = left + shared * scale
        out.append(
            f'<line x1="{lx:.1f}" y1="26" x2="{lx:.1f}" y2="{30 + row * len(rows)}" stroke="#c53030" '
            f'stroke-dasharray="4 3"/><text x="{lx - 3:.1f}" y="{40 + row * len(rows)}" fill="#c53030" text-anchor="end">'
            f"{escape(limit_label)} {escape(fmt(shared))}</text>"
        )
    ly = height - 14
    for j, p in enumerate(parts):
        lx = 8 + j * 110
        out.append(
            f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{PALETTE[j % len(PALETTE)]}"/>'
            f'<text x="{lx + 14}" y="{ly}">{escape(shown[p])}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)
