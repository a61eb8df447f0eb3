"""Reports for a resource request: Markdown (charts as SVG files beside it) or one self-contained
HTML file (charts inline, no network)."""

from __future__ import annotations

from pathlib import Path

from gpuwise.errors import UsageError
from gpuwise.plan import PlanResult
from gpuwise.report.document import charts, render_html, render_markdown

__all__ = ["render_html", "render_markdown", "write_report"]


def write_report(result: PlanResult, path: str | Path) -> list[Path]:
    """Write the report; returns every file written."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".md", ".html", ".htm"):
        raise UsageError(f"--report must end in .md or .html; got {p.name!r}")
    try:
        if suffix == ".md":
            written = [p]
            svgs = charts(result)
            names = {}
            for key, svg in svgs.items():
                f = p.with_name(f"{p.stem}-{key}.svg")
                f.write_text(svg, encoding="utf-8")
                names[key] = f.name
                written.append(f)
            p.write_text(render_markdown(result, names), encoding="utf-8")
            return written
        p.write_text(render_html(result), encoding="utf-8")
        return [p]
    except OSError as exc:
        raise UsageError(f"cannot write the report to {str(p)!r}: {exc.strerror or exc}") from None
