"""The one throughput computation: a phase's rates from its time, byte model and element count,
against the device's measured ceilings.  Used by the worker (per row), reduce (per summary row,
from the median time) and ``graphsweep kernel`` (its table); works on scalars, NumPy arrays and
pandas Series alike.

- ``gbps``: bytes read + written by the byte model over the time; ``pct_copy_ceiling`` against the
  device-to-device copy (which counts read + write the same way).
- ``random_per_s``: random accesses per second; ``pct_gather_ceiling`` / ``pct_chase_ceiling``
  against the random-gather and dependent-chase rates.
- ``gelems_per_s``: elements (list nodes, or input edges: GTEPS) per second, in billions;
  ``ns_per_element``.
- ``link_gbps``: bytes over the host link (a graph placed in host memory) per second;
  ``pct_link_ceiling`` against the measured pinned host-to-device copy.
- ``over_ceiling``: ``"link"`` when the link rate exceeds its ceiling by more than
  ``LINK_NOISE``, else None: bytes over the link must have crossed it, so such a rate is a byte
  model counting bytes that did not (``bfs.emogi`` once claimed 162 GB/s over a 55 GB/s link).
  The device's ceilings are measured on tables no cache holds, and a phase on cache-resident data
  beats them honestly (the report's note), so they are not checked.  ``over_ceiling_warnings``
  words the flagged phases for the worker's log and ``graphsweep kernel``'s stderr.
"""

import numpy as np

# Keys of kernels.ceilings.measure() the percentages use.
COPY, GATHER, CHASE, LINK = "copy_gbps", "gather_gelems", "chase_gsteps", "h2d_gbps"
# The link ceiling's noise: the pinned copy measured 53.3-55.1 GB/s across nine published H100 runs
# and 55.3-55.5 across six H200 runs (3.4% at most); mapped reads stay below it (50-51 GB/s).
LINK_NOISE = 0.05


def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.true_divide(a, b)
    return np.where(np.isfinite(out), out, np.nan) if np.ndim(out) else (float(out) if np.isfinite(out) else np.nan)


def rates(ms, moved_bytes, random_accesses, elements, ceilings: dict | None = None, link_bytes=0) -> dict:
    """Rates of a phase that took ``ms``, moved ``moved_bytes`` and ``link_bytes`` of them over the
    host link (see the module doc)."""
    seconds = np.asarray(ms, dtype=float) / 1e3 if np.ndim(ms) else float(ms) / 1e3
    gbps = _div(moved_bytes, seconds) / 1e9
    link = np.where(np.asarray(link_bytes) > 0, link_bytes, np.nan) if np.ndim(link_bytes) \
        else (float(link_bytes) if link_bytes else np.nan)
    link_gbps = _div(link, seconds) / 1e9
    random = np.where(np.asarray(random_accesses) > 0, random_accesses, np.nan) if np.ndim(random_accesses) \
        else (float(random_accesses) if random_accesses else np.nan)
    random_per_s = _div(random, seconds)
    out = {"gbps": gbps, "random_per_s": random_per_s, "link_gbps": link_gbps,
           "gelems_per_s": _div(elements, seconds) / 1e9,
           "ns_per_element": _div(np.asarray(ms, dtype=float) * 1e6 if np.ndim(ms) else float(ms) * 1e6, elements)}
    ceilings = ceilings or {}
    for key, column, value, scale in ((COPY, "pct_copy_ceiling", gbps, 1.0),
                                      (GATHER, "pct_gather_ceiling", random_per_s, 1e9),
                                      (CHASE, "pct_chase_ceiling", random_per_s, 1e9),
                                      (LINK, "pct_link_ceiling", link_gbps, 1.0)):
        ceiling = ceilings.get(key)
        out[column] = 100 * _div(value, np.asarray(ceiling, dtype=float) * scale) if ceiling is not None else np.nan
    out["over_ceiling"] = _over_link(out["pct_link_ceiling"])
    return out


def _over_link(pct_link):
    """"link" where a link rate is above its ceiling by more than its noise, else None."""
    with np.errstate(invalid="ignore"):
        over = np.asarray(pct_link, dtype=float) > 100 * (1 + LINK_NOISE)
    if np.ndim(over):
        return np.where(over, "link", None)
    return "link" if over else None


def over_ceiling_warnings(kernel: str, rows, ceilings: dict) -> list[str]:
    """A line per phase of ``rows`` (dicts with ``phase``, ``link_gbps``, ``over_ceiling``) flagged
    over its ceiling: the kernel, the phase, its fastest flagged rate and the ceiling."""
    fastest = {}
    for row in rows:
        if row.get("over_ceiling"):
            fastest[row["phase"]] = max(fastest.get(row["phase"], 0.0), float(row["link_gbps"]))
    return [f"{kernel}: phase {phase} moved {rate:.1f} GB/s over the host link, above its measured ceiling of "
            f"{float(ceilings[LINK]):.1f} GB/s by more than the ceiling's noise ({LINK_NOISE:.0%}): the byte model "
            "counts bytes that did not cross the link" for phase, rate in sorted(fastest.items())]


def harmonic_mean(values) -> float:
    """Harmonic mean of positive rates (how TEPS over roots are averaged, as Graph500 does)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if values.size == 0 or (values <= 0).any():
        return np.nan
    return float(values.size / np.sum(1.0 / values))
