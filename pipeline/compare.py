"""Is NEW slower than BASE?  Two results folders of a sweep compared task by task.

For each (kernel, dataset, params) present in both, the timed runs' kernel times (phase
``total``, every rep of every instance) give the ratio of medians NEW / BASE and a 95% confidence
interval for it: a two-sample percentile bootstrap of the ratio of medians over the reps
(``scipy.stats.bootstrap``, seeded, so a comparison prints the same every time).

A task is a regression when the ratio exceeds 1 + ``threshold`` *and* the interval lies wholly
above 1 — as asv's ``compare`` flags a benchmark only when the ratio passes its factor and the
two sample sets differ significantly, so the noise of a few reps does not raise alarms.  An
improvement is the mirror image (ratio below 1 / (1 + threshold), interval wholly below 1).  With
a single rep on a side there is no interval, and, like asv without samples, the threshold alone
decides.  A task that failed in NEW and succeeded in BASE is a regression too.
"""

import json
import math
import textwrap
import zlib
from dataclasses import dataclass

import numpy as np
from scipy import stats

from graphsweep.core.errors import GraphsweepError

from . import reduce as reducer
from .figures.frame import natural

# Tasks line up by the kernel as the spec named it (cc.best, whichever implementation it stood for
# in each run) and the parameters the spec gave; where either folder was written before those
# columns existed, both line up by the kernel that ran and all its parameters.
KEY = ("asked", "dataset", "given")
CONFIDENCE = 0.95
RESAMPLES = 2000


@dataclass
class Comparison:
    kernel: str
    dataset: str
    params: str
    base_ms: float          # median kernel time (nan when the task failed)
    new_ms: float
    base_reps: int
    new_reps: int
    ratio: float            # new_ms / base_ms
    low: float | None       # the ratio's confidence interval (None: a side has one rep)
    high: float | None
    verdict: str            # "slower", "faster", "same", "failed in NEW", "failed in both", "fixed in NEW"

    @property
    def regressed(self) -> bool:
        return self.verdict in ("slower", "failed in NEW")


def kernel_times(results) -> dict:
    """(kernel, dataset, params) -> (kernel times in ms of every timed rep, or None when the task
    failed) of the sweep in ``results``: the kernel as the spec named it and the parameters it gave,
    or for rows from before those columns (``_legacy``) the kernel that ran and all its parameters."""
    rows = reducer.rows_of(results)
    return _times(rows, _legacy(rows))


def _legacy(rows) -> bool:
    """Rows written before the kernel asked and the parameters given were kept."""
    return any(column not in rows or rows[column].isna().all() for column in ("asked", "given"))


def _times(rows, legacy: bool) -> dict:
    for column, older in (("asked", "kernel"), ("given", "params")):
        rows[column] = rows[older] if legacy else rows[column].fillna(rows[older])
    out = {}
    for key, task in rows.groupby(list(KEY), sort=False, dropna=False):
        failed = task["error"].notna().any() or task["verified"].eq(False).any()
        timed = task[(task["phase"] == "total") & (task["stage"].fillna("kernel") == "kernel")]
        if "step" in timed:
            timed = timed[timed["step"].isna()]
        out[key] = None if failed or timed.empty else timed["ms"].to_numpy(dtype=float)
    return out


def _ratio_of_medians(base, new, axis=-1):
    return np.median(new, axis=axis) / np.median(base, axis=axis)


def interval(base: np.ndarray, new: np.ndarray, seed: int) -> tuple[float, float] | None:
    """The bootstrap confidence interval of median(new) / median(base), or None with one rep on a
    side (or reps that never vary, where the interval is the ratio itself)."""
    if len(base) < 2 or len(new) < 2:
        return None
    if np.ptp(base) == 0 and np.ptp(new) == 0:
        ratio = float(_ratio_of_medians(base, new))
        return ratio, ratio
    res = stats.bootstrap((base, new), _ratio_of_medians, vectorized=True, paired=False,
                          confidence_level=CONFIDENCE, n_resamples=RESAMPLES, method="percentile",
                          rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _verdict(ratio: float, low, high, threshold: float) -> str:
    if ratio > 1 + threshold and (low is None or low > 1):
        return "slower"
    if ratio < 1 / (1 + threshold) and (high is None or high < 1):
        return "faster"
    return "same"


def compare(base, new, *, threshold: float = 0.10) -> tuple[list[Comparison], dict]:
    """Each task present in both folders compared (BASE's order), and the keys present in only one
    (``{"base only": [...], "new only": [...]}``)."""
    if threshold < 0:
        raise GraphsweepError(f"--threshold {threshold}: must be >= 0")
    # a folder written before the asked and given columns lines up with any other by what ran
    base_rows, new_rows = reducer.rows_of(base), reducer.rows_of(new)
    legacy = _legacy(base_rows) or _legacy(new_rows)
    old, now = _times(base_rows, legacy), _times(new_rows, legacy)
    out = []
    for key in (k for k in old if k in now):
        a, b = old[key], now[key]
        seed = zlib.crc32(json.dumps([str(k) for k in key]).encode())
        if a is None or b is None:
            verdict = ("failed in both" if a is None and b is None else
                       "failed in NEW" if b is None else "fixed in NEW")
            out.append(Comparison(*key, _median(a), _median(b), _len(a), _len(b), float("nan"), None, None, verdict))
            continue
        ratio = float(_ratio_of_medians(a, b))
        ci = interval(a, b, seed)
        low, high = ci if ci is not None else (None, None)
        out.append(Comparison(*key, _median(a), _median(b), len(a), len(b), ratio, low, high,
                              _verdict(ratio, low, high, threshold)))
    return out, {"base only": [k for k in old if k not in now], "new only": [k for k in now if k not in old]}


def _median(times) -> float:
    return float(np.median(times)) if times is not None else float("nan")


def _len(times) -> int:
    return 0 if times is None else len(times)


WIDTH = 100   # the longest line ``lines`` prints (--json has every field whole)
HEADER = ("base ms", "new ms", "ratio", "95% CI", "reps", "verdict")


def _ms(value: float) -> str:
    """A median time in at most 8 characters: 4 significant digits, whole ms from 10 s up."""
    return "-" if math.isnan(value) else f"{value:.0f}" if value >= 1e4 else f"{value:.4g}"


def _fields(c: Comparison) -> tuple:
    ratio = "-" if math.isnan(c.ratio) else f"{c.ratio:.3f}"
    ci = "" if c.low is None else f"{c.low:.3g}-{c.high:.3g}"
    return _ms(c.base_ms), _ms(c.new_ms), ratio, ci, f"{c.base_reps}/{c.new_reps}", c.verdict


def _params(c: Comparison) -> dict:
    try:
        params = json.loads(c.params)
    except (TypeError, ValueError):
        return {}
    return {k: v for k, v in params.items() if v is not None} if isinstance(params, dict) else {}


def _wrap(text: str, indent: int, width: int, more: int = 2) -> list[str]:
    """``text`` in lines of ``width`` from column ``indent``, the lines after the first ``more`` further in."""
    return textwrap.wrap(text, width, initial_indent=" " * indent, subsequent_indent=" " * (indent + more),
                         break_on_hyphens=False)


def lines(comparisons: list[Comparison], width: int = WIDTH) -> list[str]:
    """What ``graphsweep compare`` prints, no line longer than ``width``: a line per kernel naming
    the parameters its tasks share, under it a line per dataset, under that a line per task naming
    the parameters that vary, with its numbers in aligned columns (a task alone on its dataset, with
    no parameter of its own, shares the dataset's line when it fits); then the regressions again,
    largest change first.

    Sorted by kernel, then dataset, then parameters (natural order: n=1024 before n=16384), not by
    the size of the change: a nightly reader finds a task at the same place every night and reads a
    kernel's tasks together, and the headings keep the long names (datasets' ids, parameters) off
    the numbers' lines.  What changed most is the closing list (and the exit code)."""
    rows = [_fields(c) for c in comparisons]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(HEADER[:-1])]

    def numbers(fields) -> str:
        return "  ".join(f.rjust(w) for f, w in zip(fields, widths)) + "  " + fields[-1]

    column = width - 1 - max(len(numbers(r)) for r in [HEADER, *rows])
    out = [f"{'kernel, dataset, params':<{column}} {numbers(HEADER)}"]

    def row(label: str, fields) -> None:
        if len(label) > column:           # a long label gets lines of its own above its numbers
            out.extend(_wrap(label.strip(), len(label) - len(label.lstrip()), width))
            label = ""
        out.append(f"{label:<{column}} {numbers(fields)}")

    by_kernel: dict = {}
    for c, fields in zip(comparisons, rows):
        by_kernel.setdefault(c.kernel, []).append((c, _params(c), fields))
    for kernel in sorted(by_kernel, key=natural):
        tasks = by_kernel[kernel]
        first = tasks[0][1]
        shared = {k: v for k, v in first.items() if all(p.get(k, object()) == v for _, p, _ in tasks[1:])}
        heading = " ".join(f"{k}={v}" for k, v in shared.items())
        # a heading's further lines start under its '(' (deeper than the datasets' lines below it)
        out += _wrap(f"{kernel} ({heading})" if heading else str(kernel), 0, width, len(str(kernel)) + 2)
        by_dataset: dict = {}
        for c, params, fields in tasks:
            own = " ".join(f"{k}={v}" for k, v in params.items() if k not in shared)
            by_dataset.setdefault(c.dataset, []).append((own, fields))
        for dataset in sorted(by_dataset, key=natural):
            named = sorted(by_dataset[dataset], key=lambda item: natural(item[0]))
            if len(named) == 1 and not named[0][0] and len(dataset) + 2 <= column:
                row(f"  {dataset}", named[0][1])
                continue
            out += _wrap(str(dataset), 2, width)
            for own, fields in named:
                row(f"    {own}" if own else "", fields)
    # a task that failed in NEW first (it has no ratio), then the largest slowdown
    regressed = sorted((c for c in comparisons if c.regressed),
                       key=lambda c: -math.inf if math.isnan(c.ratio) else -c.ratio)
    if regressed:
        out.append("regressed, largest change first:")
        for c in regressed:
            own = " ".join(f"{k}={v}" for k, v in _params(c).items())
            change = c.verdict if math.isnan(c.ratio) else f"{c.ratio:.3f}x"
            out += _wrap(f"{change}  {c.kernel} {c.dataset} {own}".rstrip(), 2, width)
    return out
