"""Where figures and tables are declared, and how the report finds them.

Each module of this package declares its figures next to their drawing::

    @figure("fig-inflection", "ns per node of the run and of its list walk vs n ...", problems=("listrank",))
    def fig_inflection(summary): ...          # a matplotlib Figure, or None when the rows cannot show it

``table`` declares a table the same way (a DataFrame, or None or an empty one).  ``problems`` makes
it a family's: it is drawn only when the results hold kernels of those problems, from their rows
alone; without it, from every row.  ``report_only`` keeps it out of the files of ``report
--figures`` (docs/results); ``source="rows"`` hands it the sweep's rows rather than the summary
(per-step rows are not in the summary).  ``each`` declares a function of the summary that yields
(id, caption, make) for each thing the results vary, a figure per swept parameter.

``MODULES`` lists the modules in report order, one line each: adding a kernel family's figures is
one module plus one line.  Declarations of other modules (imported by whoever adds them) follow.
"""

import importlib
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from . import frame

MODULES = [
    "graphsweep.pipeline.figures.inputs",      # graph builds, apart from the kernels
    "graphsweep.pipeline.figures.sizes",       # time and time per element vs size
    "graphsweep.pipeline.figures.overview",    # each phase at each kernel's largest size (the report's)
    "graphsweep.pipeline.figures.rates",       # G edges/s vs m
    "graphsweep.pipeline.figures.phases",      # per phase vs size
    "graphsweep.pipeline.figures.listrank",    # list ranking: the inflection, sub-lists
    "graphsweep.pipeline.figures.rounds",      # iterations or levels per dataset family
    "graphsweep.pipeline.figures.baseline",    # speed-up over each problem's baseline kernel
    "graphsweep.pipeline.figures.cc",          # connected components: segments as a speed-up axis
    "graphsweep.pipeline.figures.partitioned",  # one graph over K workers: local, exchange, speed-up
    "graphsweep.pipeline.figures.swept",       # against each swept parameter
    "graphsweep.pipeline.figures.steps",       # per step, from the rows (the report's)
]
KINDS = ("figure", "table")


@dataclass(frozen=True)
class Declared:
    kind: str                        # "figure" or "table"
    ident: str | None                # None: ``each`` yields the ids
    caption: str | None
    make: Callable
    problems: tuple | None = None    # a family's: drawn from the rows of these problems only
    report_only: bool = False
    source: str = "summary"          # or "rows"
    each: bool = False

    def made(self, data: pd.DataFrame):
        """(id, caption, object) of what this declaration draws from ``data``."""
        makers = self.make(data) if self.each else [(self.ident, self.caption, self.make)]
        for ident, caption, make in makers:
            made = make(data)
            if made is not None and not (self.kind == "table" and made.empty):
                yield ident, caption, made


_declared: dict[str, list[Declared]] = {}


def _declare(kind: str, ident, caption, problems, report_only: bool, source: str, each: bool = False):
    if kind not in KINDS or source not in ("summary", "rows"):
        raise ValueError(f"a declaration is a figure or table of the summary or rows, not {kind} of {source}")

    def register(make: Callable) -> Callable:
        entry = Declared(kind, ident, caption, make, tuple(problems) if problems else None, report_only, source, each)
        entries = _declared.setdefault(make.__module__, [])
        entries[:] = [e for e in entries if (e.kind, e.ident, e.make.__name__) != (kind, ident, make.__name__)]
        entries.append(entry)     # a module imported again replaces its declarations
        return make
    return register


def figure(ident: str, caption: str, *, problems=None, report_only: bool = False, source: str = "summary"):
    """Declare the decorated function (summary or rows -> Figure or None) as a figure."""
    return _declare("figure", ident, caption, problems, report_only, source)


def table(ident: str, caption: str, *, problems=None, report_only: bool = False):
    """Declare the decorated function (summary -> DataFrame or None) as a table."""
    return _declare("table", ident, caption, problems, report_only, "summary")


def each(kind: str = "figure", *, problems=None):
    """Declare the decorated function (summary -> iterable of (id, caption, make)) as the figures
    (or tables) of whatever the results vary."""
    return _declare(kind, None, None, problems, False, "summary", each=True)


def declared(kind: str) -> list[Declared]:
    """Every declaration of ``kind``: MODULES' in their order, then those of other modules."""
    for name in MODULES:
        importlib.import_module(name)
    order = MODULES + [name for name in _declared if name not in MODULES]
    return [e for name in order for e in _declared.get(name, []) if e.kind == kind]


def made(kind: str, summary: pd.DataFrame, rows: pd.DataFrame | None = None, *, report: bool = False) -> list:
    """(id, caption, Figure or DataFrame) of every declaration of ``kind`` the results support;
    ``report``: the report's own too; ``rows``: those drawn from the rows too."""
    problem = {}   # the problem of each row, per source
    out = []
    for entry in declared(kind):
        if entry.report_only and not report:
            continue
        data = summary if entry.source == "summary" else rows
        if data is None or data.empty:
            continue
        if entry.problems is not None:
            if entry.source not in problem:
                problem[entry.source] = frame.problems(data)
            data = data[problem[entry.source].isin(entry.problems)]
            if data.empty:
                continue
        out.extend(entry.made(data))
    return out
