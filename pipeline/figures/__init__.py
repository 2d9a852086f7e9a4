"""The papers' figures and tables, drawn from a sweep's summary (``reduce.summarize``) alone.

``frame`` turns the summary into what figures plot (the kernel rows, with variant and dataset
family labels, the median time and the size they run over); times and rates are reduce's, as
``kernels.throughput`` computed them once, and no figure recomputes one.  Each figure or table is
a small function declared next to its drawing (``registry.figure`` / ``registry.table``) in a
module per subject: ``sizes``, ``rates``, ``phases``, ``rounds``, ``baseline``, ``swept``,
``inputs``, the report's ``overview`` and ``steps``; a kernel family's own figures live in a module
named after it (``listrank``, ``cc``), declared for its problem, so that only its rows reach them.
``registry.MODULES`` lists the modules in report order.

Each figure returns a matplotlib ``Figure``, or None when the results do not hold what it needs
(one list size has no time-vs-n curve; a sweep without ``blocks`` has no speed-up curve); each
table a DataFrame or None.  ``figures(summary)`` and ``tables(summary)`` give every one the
summary supports as (id, caption, object); ``write`` puts them into a folder as PNG and Markdown
(``graphsweep report RESULTS --figures DIR``: what docs/results/ holds).
"""

import math
from pathlib import Path

import pandas as pd

from . import registry
from .draw import phase_colours  # noqa: F401  (the report's and history's colours per phase)
from .frame import families, prepare, variants  # noqa: F401  (labels other tables share: benchmarks/ratios.py)
from .registry import each, figure, table  # noqa: F401  (how a module declares its figures)


def figures(summary: pd.DataFrame, rows: pd.DataFrame | None = None, *, report: bool = False) -> list:
    """(id, caption, Figure) of every figure the summary supports, in report order; ``report``
    adds the report's own (its overview, and the per-step figure from ``rows``)."""
    return registry.made("figure", summary, rows, report=report)


def tables(summary: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    """(id, caption, DataFrame) of every table the summary supports."""
    return registry.made("table", summary)


def markdown(frame: pd.DataFrame) -> str:
    def cell(v):
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.4g}"
        return str(v)
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def write(summary: pd.DataFrame, out) -> list[Path]:
    """Every figure (PNG) and table (Markdown) ``summary`` supports into the folder ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for ident, caption, fig in figures(summary):
        path = out / f"{ident}.png"
        fig.savefig(path, dpi=80, bbox_inches="tight")
        written.append(path)
    for ident, caption, table_ in tables(summary):
        path = out / f"{ident}.md"
        path.write_text(f"{caption}\n\n{markdown(table_)}\n")
        written.append(path)
    return written
