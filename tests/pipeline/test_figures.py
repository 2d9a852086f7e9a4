"""pipeline/figures on synthetic summaries: what each figure draws (lines, bars, labels, the
marked ceilings and crossings) and when it draws nothing."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from graphsweep.pipeline import figures as F
from graphsweep.pipeline import report
from graphsweep.pipeline.figures import (baseline, inputs, listrank, overview, partitioned, phases, rates, registry,
                                         rounds, sizes, steps, swept)
from graphsweep.pipeline.figures import frame as core

LIST_SIZES = [2**k for k in range(20, 27)]


def row(kernel, n, mean_ms, *, phase="total", generator="list", params=None, data=None, stats=None,
        m=None, std_ms=0.0, dataset=None, **extra):
    """One summary row as reduce.summarize writes it (the columns the figures read; rates from the
    median); its median is ``mean_ms`` unless ``median_ms`` is given."""
    params, data, stats = params or {}, data or {}, stats or {}
    data = {"n": n, **data}
    elements = m if m is not None else n
    median_ms = extra.pop("median_ms", mean_ms)
    out = {"task": f"{kernel}-{json.dumps(params, sort_keys=True)}-{generator}-{n}-{json.dumps(data, sort_keys=True)}",
           "stage": "kernel", "phase": phase, "mean_ms": mean_ms, "std_ms": std_ms,
           "median_ms": median_ms,
           "n": n, "m": m, "kernel": kernel, "generator": generator, "seed": 1,
           "dataset": dataset or "_".join([generator] + [f"{k}={v}" for k, v in data.items()] + ["seed=1"]),
           "params": json.dumps(params), "elements": elements, "ns_per_element": median_ms * 1e6 / elements,
           "gelems_hmean": elements / median_ms / 1e6, "gbps": extra.pop("gbps", np.nan),
           "ceiling_copy_gbps": 4200.0}
    out.update({f"param_{k}": v for k, v in params.items()})
    out.update({f"data_{k}": v for k, v in data.items()})
    out.update({f"stat_{k}": v for k, v in stats.items()})
    out.update(extra)
    return out


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows)


def labels(ax) -> list[str]:
    return ax.get_legend_handles_labels()[1]


def test_labels_name_the_varying_parameters_and_dataset_families():
    s = frame([row("listrank.random-splitter", 2**20, 1, params={"packing": p, "threads": 256}) for p in (48, 64)]
              + [row("cc.sv", 100, 1, generator="tree", data={"k": k, "weights": "none"}, m=99) for k in (2, 5)])
    s = core.prepare(s)
    assert set(s["variant"]) == {"listrank.random-splitter packing=48", "listrank.random-splitter packing=64", "cc.sv"}
    assert set(s["family"]) == {"list", "tree k=2", "tree k=5"}


def test_a_kernel_asked_for_by_an_alias_is_labelled_by_it_with_the_kernel_that_ran():
    s = frame([row("listrank.recursive-splitter", n, 1, asked="listrank.best") for n in (2**20, 2**21)]
              + [row("cc.select", 100, 1, generator="rmat", m=99, asked="cc.best"),
                 row("cc.streaming", 100, 1, generator="rmat", m=99, asked="cc.best", dataset="rmat_host"),
                 row("listrank.wyllie", 2**20, 1, asked="listrank.wyllie")])
    assert list(core.variants(s)) == ["listrank.best (listrank.recursive-splitter)"] * 2 + [
        "cc.best (cc.select)", "cc.best (cc.streaming)", "listrank.wyllie"]
    assert list(core.variants(s.drop(columns="asked"))) == list(s["kernel"])   # a summary without it: as ran


def test_the_overview_and_the_over_ceiling_table_name_kernels_as_asked():
    s = frame([row("cc.select", 100, 1, generator="rmat", m=99, asked="cc.best", params={"threads": 256}),
               row("cc.streaming", 100, 1, generator="rmat", m=99, asked="cc.best", dataset="rmat_host",
                   placement="host", over_ceiling="link", bytes_link=1e9, link_gbps=99.0),
               row("cc.hook-compress", 100, 1, generator="rmat", m=99, asked="cc.hook-compress")])
    assert sorted(overview.overview(s)["variant"]) == ["cc.best (cc.select)", "cc.best (cc.streaming)",
                                                       "cc.hook-compress"]
    assert list(rates.table_over_ceiling(s)["kernel"]) == ["cc.best (cc.streaming)"]


def test_time_vs_size_draws_one_curve_per_variant_and_family_and_nothing_for_one_size():
    rows = [row(k, n, n / 1e6 * f, generator=g, std_ms=0.1) for k, f in (("listrank.wyllie", 3), ("listrank.best", 1))
            for g in ("list", "ordered-list") for n in LIST_SIZES[:3]]
    fig = sizes.fig_time_vs_size(frame(rows))
    assert [ax.get_title() for ax in fig.axes] == ["list", "ordered-list"]      # a panel per family
    for ax in fig.axes:
        assert sorted(labels(ax)) == ["listrank.best", "listrank.wyllie"]
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # one legend for the figure, one entry per variant, the same colour in every panel
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["listrank.best", "listrank.wyllie"]
    colours = [[line.get_color() for line in ax.lines] for ax in fig.axes]
    assert colours[0] == colours[1]
    assert sizes.fig_time_vs_size(frame([row("listrank.wyllie", 2**20, 1.0)])) is None


def test_times_are_medians_so_a_stalled_run_does_not_bend_a_curve():
    rows = [row("listrank.best", n, 100.0 if n == 2**21 else n * 1e-7, median_ms=n * 1e-7) for n in LIST_SIZES[:3]]
    ax = sizes.fig_time_vs_size(frame(rows)).axes[0]
    assert list(ax.lines[0].get_ydata()) == pytest.approx([n * 1e-7 for n in LIST_SIZES[:3]])


def test_time_per_element_labels_each_curve_with_its_change_per_doubling():
    flat = [row("listrank.best", n, n * 1e-7) for n in LIST_SIZES]                  # 0.1 ns per node
    logn = [row("listrank.wyllie", n, n * 1e-7 * math.log2(n)) for n in LIST_SIZES]  # O(n log n)
    ax = sizes.fig_time_per_element(frame(flat + logn)).axes[0]
    got = dict(zip([lab.split(" (")[0] for lab in labels(ax)], labels(ax)))
    assert got["listrank.best"].endswith("(+0.0%)")
    # fitted on the larger half, log2 n = 23 ... 26: +1 per doubling over a mean of 24.5 => +4.1%
    assert got["listrank.wyllie"].endswith("(+4.1%)")
    table = sizes.table_scaling(frame(flat + logn)).set_index("variant")
    assert table.loc["listrank.wyllie", "ratio"] == pytest.approx(26 / 20)
    assert table.loc["listrank.wyllie", "n log n would give"] == pytest.approx(26 / 20)
    assert table.loc["listrank.best", "ratio"] == pytest.approx(1.0)


def test_speedup_vs_blocks_is_relative_to_one_block_and_marks_the_sm_count():
    blocks = [1, 2, 4, 132, 1056]
    rows = [row("listrank.wyllie", 2**24, 100 / min(b, 132), params={"blocks": b, "threads": 256},
                ceiling_sm_count=132) for b in blocks]
    fig = swept.fig_vs_param(frame(rows), "param_blocks", speedup=True)
    ax = fig.axes[0]
    curve = ax.lines[0]
    assert list(curve.get_xdata()) == blocks
    assert list(curve.get_ydata()) == pytest.approx([1, 2, 4, 132, 132])
    assert "132 SMs" in labels(ax) and any("1056 = resident" in lab for lab in labels(ax))
    assert ax.get_xscale() == "log"
    # blocks is offered as a speed-up figure with its per-phase twin
    ids = [i for i, _, _ in F.figures(frame(rows))]
    assert "fig-speedup-blocks" in ids


def test_vs_a_dataset_parameter_keeps_one_curve_per_kernel_across_datasets():
    rows = [row(k, 100000, d * f, generator="uniform", data={"degree": d}, m=50000 * d)
            for k, f in (("bfs.harish", 2.0), ("bfs.best", 0.1)) for d in (6, 12, 25, 50)]
    ax = swept.fig_vs_param(frame(rows), "data_degree").axes[0]
    assert sorted(labels(ax)) == ["bfs.best · uniform", "bfs.harish · uniform"]
    assert len(ax.lines) == 2 and list(ax.lines[0].get_xdata()) == [6, 12, 25, 50]


def test_ratio_vs_size_marks_where_48_and_64_bit_cross():
    rows = []
    for n in LIST_SIZES:
        t64 = n * 1e-6 * (1.0 if n < 2**24 else 1.5)
        rows += [row("listrank.random-splitter", n, t64, params={"packing": 64}),
                 row("listrank.random-splitter", n, n * 1e-6 * 1.2, params={"packing": 48})]
    ax = swept.fig_ratio_vs_size(frame(rows), "param_packing").axes[0]
    (label,) = labels(ax)
    # ratio 48/64 = 1.2 up to 2^23 then 0.8 from 2^24: crosses between them, interpolated in log n
    assert label.startswith("listrank.random-splitter · list; crosses 1 at n ≈ ")
    cross = swept.crossings([2**23, 2**24], [1.2, 0.8])
    assert 2**23 < cross[0] < 2**24
    assert len([ln for ln in ax.lines if ln.get_linestyle() == ":"]) == 1
    assert swept.fig_ratio_vs_size(frame(rows), "param_threads") is None
    # a boolean switch (the ablation's atomic_hook) is a pair of labels too
    flags = [row("cc.adaptive", n, n * (1e-6 if hook else 2e-6), generator="uniform", m=3 * n,
                 params={"atomic_hook": hook}) for n in (2**20, 2**22) for hook in (True, False)]
    ax = swept.fig_ratio_vs_size(frame(flags), "param_atomic_hook").axes[0]
    assert ax.get_title() == "atomic_hook=False time over atomic_hook=True time"
    assert list(ax.lines[0].get_ydata()) == pytest.approx([2.0, 2.0])


def test_bars_vs_a_categorical_parameter_group_by_dataset():
    rows = [row("listrank.random-splitter", n, t, params={"splitters": sp, "p": 8192})
            for n in (8_000_000, 16_000_000) for sp, t in (("random", 2.0), ("even", 1.0))]
    fig = swept.fig_bars_vs_param(frame(rows), "param_splitters")
    ax = fig.axes[0]
    assert len(ax.patches) == 4
    assert labels(ax) == ["splitters=random", "splitters=even"]


def test_phase_figures_draw_a_panel_per_variant_and_the_copy_ceiling():
    rows = []
    for p in (48, 64):
        for n in LIST_SIZES[:3]:
            for phase, ms, gbps in (("RS1", 0.1, 2000), ("RS3", 1.0, 100), ("RS5", 0.2, 1500), ("total", 1.3, np.nan)):
                rows.append(row("listrank.random-splitter", n, ms, phase=phase, params={"packing": p}, gbps=gbps))
    s = frame(rows)
    fig = phases.fig_phases_vs_size(s)
    assert len(fig.axes) == 2
    assert [a.get_title() for a in fig.axes] == ["listrank.random-splitter packing=48\nlist",
                                                 "listrank.random-splitter packing=64\nlist"]
    assert all(len(a.lines) == 3 and labels(a) == ["RS1", "RS3", "RS5"] for a in fig.axes)
    gb = phases.fig_phase_gbps_vs_size(s)
    assert all("copy ceiling 4200 GB/s" in labels(a) for a in gb.axes)
    table = phases.table_phases(s)
    assert list(table["n"]) == LIST_SIZES[:3]
    assert "listrank.random-splitter packing=48: RS3" in table.columns


def test_phase_lines_keep_one_style_per_family_with_a_size_sweep():
    rows = [row("sssp.harish", n, 1.0, phase=ph, generator=g, m=3 * n, data={"degree": 6})
            for g in ("uniform", "scale-free") for n in (2**12, 2**14) for ph in ("relax", "update")]
    rows += [row("sssp.harish", 2000, 1.0, phase=ph, generator="uniform", data={"degree": d}, m=1000 * d)
             for d in (6, 12) for ph in ("relax", "update")]         # one size per degree: no line
    (ax,) = phases.fig_phases_vs_size(frame(rows)).axes
    assert labels(ax) == ["relax", "update"]                          # phases in the legend, once
    assert ax.get_title() == "sssp.harish\nsolid: uniform degree=6; dashed: scale-free"
    assert sorted(ln.get_linestyle() for ln in ax.lines) == ["-", "-", "--", "--"]


def test_phase_speedup_vs_blocks():
    rows = [row("listrank.random-splitter", 2**24, ms / b, phase=ph, params={"blocks": b})
            for b in (1, 4, 16) for ph, ms in (("RS3", 10.0), ("RS5", 1.0), ("total", 11.0))]
    fig = swept.fig_phase_speedup(frame(rows))
    (ax,) = fig.axes
    assert labels(ax) == ["RS3", "RS5"]
    assert list(ax.lines[0].get_ydata()) == pytest.approx([1, 4, 16])


def test_inflection_marks_where_the_walk_leaves_the_l2_and_steps_finds_the_jump():
    rows = []
    for n in LIST_SIZES:
        ns = 0.1 if n < 2**23 else 0.3
        for phase, share in (("RS3", 0.8), ("total", 1.0)):
            rows.append(row("listrank.random-splitter", n, n * ns * share / 1e6, phase=phase,
                            params={"packing": 64}, ceiling_l2_bytes=60 * 2**20))
    s = frame(rows)
    ax = listrank.fig_inflection(s).axes[0]
    assert "12 B/node x n = L2" in labels(ax)
    l2_line = [ln for ln in ax.lines if ln.get_linestyle() == "--"][0]
    assert l2_line.get_xdata()[0] == pytest.approx(60 * 2**20 / 12)
    jumps = listrank.inflections(s)
    assert set(jumps["phase"]) == {"RS3", "total"}
    assert set(jumps["n before"]) == {2**22} and set(jumps["n after"]) == {2**23}
    assert jumps["rise"].iloc[0] == pytest.approx(2.0)
    # the walk's bytes per node are the kernel's own declaration (48-bit packing: 10), and a phase
    # that is not the kernel's walk is no walk
    narrow = s.assign(params=json.dumps({"packing": 48}), param_packing=48)
    assert "10 B/node x n = L2" in labels(listrank.fig_inflection(narrow).axes[0])
    assert set(listrank.inflections(s.assign(phase=s["phase"].replace("RS3", "HJ2")))["phase"]) == {"total"}


def _sublists(n, p, lo, hi):
    return json.dumps({"sublists": p, "sublist_min": lo, "sublist_max": hi, "sublist_mean": n / p,
                       "sublist_std": 1.0, "singletons": int(lo == 1) * 10})


def test_table_3_random_against_even_splitters_reproduces_the_papers_expected_lengths():
    rows = []
    for sp, lo, hi, walk in (("random", 1, 8674, 56.73), ("even", 975, 977, 53.35)):
        stats = {"sublists": _sublists(8_000_000, 8192, lo, hi)}
        rows += [row("listrank.random-splitter", 8_000_000, walk, phase="RS3", params={"splitters": sp, "packing": 48},
                     stats=stats),
                 row("listrank.random-splitter", 8_000_000, walk + 6, params={"splitters": sp, "packing": 48},
                     stats=stats)]
    (t,) = listrank.table_sublists(frame(rows)).to_dict("records")
    # 000 Table 3, n = 8M, p = 8192: mean 976.6, expected 0.06 ... 9476.7, difference 3.4 ms = 6.0%
    assert t["mean n/p"] == pytest.approx(976.6, abs=0.1)
    assert t["expected low"] == pytest.approx(0.06, abs=0.005)
    assert t["expected high"] == pytest.approx(9476.7, rel=1e-3)
    assert (t["random high"], t["even low"]) == (8674, 975)
    assert t["difference ms"] == pytest.approx(3.38) and t["difference %"] == pytest.approx(5.96, abs=0.01)


def test_sublist_figure_plots_time_and_balance_against_the_number_of_sublists():
    n = 2**26
    rows = [row("listrank.random-splitter", n, 10 + 100 / math.sqrt(p), params={"p": p},
                stats={"sublists": _sublists(n, p, 1, int(n / p * math.log(p)))}) for p in (2**10, 2**14, 2**18)]
    fig = listrank.fig_sublists(frame(rows))
    assert len(fig.axes) == 3
    assert all(len(a.lines) == 1 for a in fig.axes)
    assert list(fig.axes[0].lines[0].get_xdata()) == [2**10, 2**14, 2**18]
    assert list(fig.axes[1].lines[0].get_ydata()) == pytest.approx([math.log(2**10), math.log(2**14), math.log(2**18)],
                                                                   rel=1e-3)


def _cc_rows():
    rows = []
    graphs = [("list-graph", {}, 18), ("tree", {"k": 2}, 14), ("tree", {"k": 20}, 15), ("density", {"density": 0.01}, 4)]
    for gen, data, iters in graphs:
        for phase, per in (("SV2", 1.0), ("SV3", 0.5), ("total", 1.5)):
            rows.append(row("cc.shiloach-vishkin", 8_000_001, per * iters, phase=phase, generator=gen, data=data,
                            m=8_000_000, stats={"iterations": iters}))
        rows.append(row("cc.best", 8_000_001, 0.5, generator=gen, data=data, m=8_000_000))
    return rows


def test_iterations_per_family_and_time_per_iteration():
    s = frame(_cc_rows())
    ax = rounds.fig_iterations(s).axes[0]
    # families in natural order: numbers inside labels by value (k=2 before k=20)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["density", "list-graph", "tree k=2", "tree k=20"]
    assert [p.get_height() for p in ax.patches] == [4, 18, 14, 15]
    table = rounds.table_iterations(s)
    assert list(table["cc.shiloach-vishkin"]) == [4, 18, 14, 15]
    fig = rounds.fig_time_per_iteration(s)
    (ax,) = fig.axes
    assert labels(ax) == ["SV2", "SV3"]
    assert [p.get_height() for p in ax.patches] == pytest.approx([1.0] * 4 + [0.5] * 4)


def test_speedup_over_the_baseline_kernel_per_dataset():
    rows = []
    for g, m in (("uniform", 30), ("rmat", 200)):
        rows += [row("cc.hook-compress", 10, 8.0, generator=g, m=m, dataset=g),
                 row("cc.adaptive", 10, 2.0, generator=g, m=m, dataset=g, params={"segments": 1}),
                 row("cc.adaptive", 10, 1.0, generator=g, m=m, dataset=g, params={"segments": 8}),
                 row("bfs.best", 10, 1.0, generator=g, m=m, dataset=g)]   # no BFS baseline: left out
    fig = baseline.fig_speedup_over_baseline(frame(rows))
    (ax,) = fig.axes
    assert ax.get_title() == "over cc.hook-compress"
    assert sorted(labels(ax)) == ["cc.adaptive segments=1", "cc.adaptive segments=8"]
    assert sorted(p.get_width() for p in ax.patches) == [4.0, 4.0, 8.0, 8.0]


def test_graph_problems_run_over_m_and_their_rate_is_gteps_with_the_spread_over_roots():
    rows = [row("bfs.best", n, n / 1e6, generator="uniform", m=3 * n, gelems_min=1.0, gelems_max=4.0)
            for n in (2**20, 2**22, 2**24)]
    ax = rates.fig_rate_vs_size(frame(rows)).axes[0]
    assert ax.get_title() == "uniform" and labels(ax) == ["bfs.best"] and ax.get_xlabel() == "m (input edges)"
    (bars,) = ax.containers
    assert list(bars.lines[0].get_xdata()) == [3 * 2**20, 3 * 2**22, 3 * 2**24]
    assert len(bars.lines[2]) == 1                     # the min ... max bars over roots
    time_ax = sizes.fig_time_vs_size(frame(rows)).axes[0]
    assert list(time_ax.lines[0].get_xdata()) == [3 * 2**20, 3 * 2**22, 3 * 2**24]
    assert time_ax.get_xlabel() == "m (input edges)"
    # lists count nodes: no G edges/s figure, and their size is n
    lists = frame([row("listrank.best", n, 1.0) for n in LIST_SIZES])
    assert rates.fig_rate_vs_size(lists) is None
    assert sizes.fig_time_vs_size(lists).axes[0].get_xlabel() == "n (list nodes or vertices)"


def test_a_run_of_several_roots_counting_their_edges_is_still_plotted_over_m():
    # bc.batched's run of 4 roots counts 4 m edges: its kernel counts edges, so its size is m
    rows = [row("bc.batched", n, n / 1e6, generator="uniform", m=3 * n, elements=4 * 3 * n) for n in (2**20, 2**22)]
    prepared = core.prepare(frame(rows))
    assert prepared["by_edges"].all() and prepared["size"].tolist() == [3 * 2**20, 3 * 2**22]
    assert labels(rates.fig_rate_vs_size(frame(rows)).axes[0]) == ["bc.batched"]


def test_gteps_vs_degree_and_the_figures_a_degree_sweep_gets():
    rows = [row(k, 100000, 0.01 * d * f, generator="uniform", data={"degree": d}, m=50000 * d,
                gelems_min=0.5, gelems_max=2.0) for k, f in (("bfs.harish", 20.0), ("bfs.best", 1.0))
            for d in (6, 12, 25, 50)]
    ax = swept.fig_vs_param(frame(rows), "data_degree", rate=True).axes[0]
    assert ax.get_ylabel() == "G edges/s (harmonic mean over roots)" and len(ax.containers) == 2
    ids = [i for i, _, _ in F.figures(frame(rows))]
    assert {"fig-vs-degree", "fig-gteps-vs-degree"} <= set(ids)


def test_per_step_rows_give_time_and_frontier_per_level_with_the_direction_changes_marked():
    levels = [("top-down", 10), ("top-down", 5000), ("bottom-up", 900000), ("bottom-up", 20000), ("top-down", 30)]
    rows = pd.DataFrame([{"task": "t1", "kernel": "bfs.best", "params": "{}", "generator": "rmat", "dataset": "r",
                          "n": 2**20, "m": 2**24, "stage": "kernel", "instance": 0, "phase": d, "step": i,
                          "ms": 0.01 * (i + 1), "step_frontier": f, "step_direction": d}
                         for i, (d, f) in enumerate(levels)]
                        + [{"task": "t1", "kernel": "bfs.best", "params": "{}", "generator": "rmat", "dataset": "r",
                            "n": 2**20, "m": 2**24, "stage": "kernel", "instance": 0, "phase": "total",
                            "step": np.nan, "ms": 1.0}])
    fig = steps.fig_steps(rows)
    ax = fig.axes[0]
    assert ax.get_title() == "bfs.best" and labels(ax) == ["rmat"]
    assert list(ax.lines[0].get_xdata()) == [0, 1, 2, 3, 4]
    assert [ln.get_xdata()[0] for ln in ax.lines[1:]] == [2, 4]          # top-down -> bottom-up -> top-down
    twin = fig.axes[1]
    assert list(twin.lines[0].get_ydata()) == [10, 5000, 900000, 20000, 30]
    assert steps.fig_steps(rows[rows["step"].isna()]) is None


def test_graph_builds_are_a_table_apart_from_the_kernels():
    kernel = row("cc.best", 2**20, 1.0, generator="uniform", m=2**22)
    build = {**kernel, "stage": "input", "phase": "csr", "median_ms": 2.0, "mean_ms": 2.0, "bytes_read": 4e9,
             "bytes_written": 4e9, "gbps": 4000.0}
    table = inputs.table_input_builds(frame([kernel, build]))
    assert table.to_dict("records") == [{"dataset": kernel["dataset"], "phase": "csr", "n": 2**20, "m": 2**22,
                                         "ms": 2.0, "gbps": 4000.0, "tasks": 1,
                                         "% of copy": pytest.approx(4000 / 42)}]
    # and the phase figures leave the builds out
    assert "csr" not in set(core.prepare(frame([kernel, build]))["phase"])


def test_partitioned_runs_are_a_table_of_their_time_outside_and_inside_the_collectives():
    runs = [row("cc.distributed", 2**20, ms, generator="rmat", m=2**24,
                stats={"partitions": k, "local_ms": local, "comm_ms": comm, "bytes_exchanged": b, "rounds": r})
            for k, ms, local, comm, b, r in ((1, 6.0, 6.0, 0.0, 0, 0), (2, 4.0, 3.0, 1.0, 2e7, 4),
                                             (4, 3.0, 2.0, 1.0, 1.4e8, 4))]
    table = partitioned.table_partitioned(frame(runs + [row("cc.best", 2**20, 5.0, generator="rmat", m=2**24)]))
    assert list(table["K"]) == [1, 2, 4] and set(table["kernel"]) == {"cc.distributed"}
    assert list(table["speed-up over K = 1"]) == [1.0, 1.5, 2.0]
    assert list(table["MB"]) == [0.0, 20.0, 140.0] and list(table["local_ms"]) == [6.0, 3.0, 2.0]
    assert partitioned.table_partitioned(frame([row("cc.best", 2**20, 5.0)])) is None


def test_figures_and_tables_on_a_whole_summary_and_on_nothing(tmp_path):
    s = frame(_cc_rows())
    ids = [i for i, _, _ in F.figures(s)]
    assert ids[:2] == ["fig-iterations", "fig-time-per-iteration"]
    assert [i for i, _, _ in F.tables(s)] == ["table-iterations"]
    empty = s.iloc[0:0]
    assert F.figures(empty) == [] and F.tables(empty) == []
    written = F.write(s, tmp_path / "out")
    assert sorted(p.name for p in written) == ["fig-iterations.png", "fig-time-per-iteration.png",
                                               "table-iterations.md"]
    assert (tmp_path / "out" / "fig-iterations.png").read_bytes()[:4] == b"\x89PNG"


# --- how figures are declared and found ------------------------------------------------------------

@pytest.fixture
def declarations(monkeypatch):
    """The registry as it is, restored after the test (which may declare figures of its own)."""
    monkeypatch.setattr(registry, "_declared", {name: list(entries) for name, entries in registry._declared.items()})
    return registry


def test_a_familys_figure_is_drawn_only_from_its_own_rows(declarations):
    seen = []

    @declarations.figure("fig-test-family", "A BFS family figure.", problems=("bfs",))
    def fig_family(summary):
        seen.append(sorted(summary["kernel"].unique()))
        return None if len(seen) > 1 else plt_figure()

    graphs = [row(k, n, 1.0, generator="uniform", m=4 * n) for k in ("bfs.harish", "cc.hook-compress")
              for n in (2**10, 2**12)]
    ids = [i for i, _, _ in F.figures(frame(graphs))]
    assert "fig-test-family" in ids and seen == [["bfs.harish"]]           # CC's rows never reached it
    assert "fig-test-family" not in [i for i, _, _ in F.figures(frame(graphs[2:]))]   # no BFS: not even asked
    assert seen == [["bfs.harish"]]
    # the problem comes from the kernel's declaration, not its name's prefix
    assert core.problem_of("listrank.best") == "listrank" and core.problem_of("gone.kernel") == "gone"


def plt_figure():
    from matplotlib.figure import Figure
    fig = Figure()
    fig.add_subplot()
    return fig


def test_declarations_keep_the_modules_order_and_the_reports_own_stay_out_of_the_files(declarations, tmp_path):
    @declarations.figure("fig-test-first", "Declared by a module outside MODULES: after theirs.")
    def fig_outside(summary):
        return plt_figure()

    @declarations.figure("fig-test-report", "The report's only.", report_only=True)
    def fig_report(summary):
        return plt_figure()

    @declarations.each()
    def per_kernel(summary):
        for name in sorted(summary["kernel"].unique()):
            yield f"fig-test-{name}", f"One for {name}.", lambda s, name=name: plt_figure()

    @declarations.table("table-test-empty", "An empty table is no table.")
    def table_empty(summary):
        return pd.DataFrame()

    s = frame([row("listrank.wyllie", n, n / 1e6) for n in LIST_SIZES[:3]])
    ids = [i for i, _, _ in F.figures(s)]
    assert ids[:2] == ["fig-time-vs-n", "fig-time-per-n"]                 # sizes come first, as MODULES says
    assert ids[-2:] == ["fig-test-first", "fig-test-listrank.wyllie"] and "fig-test-report" not in ids
    assert "fig-test-report" in [i for i, _, _ in F.figures(s, report=True)]
    assert "table-test-empty" not in [i for i, _, _ in F.tables(s)]
    written = {p.stem for p in F.write(s, tmp_path)}
    assert {"fig-test-first", "fig-test-listrank.wyllie"} <= written and "fig-test-report" not in written
    # the report shows every declared figure, its own included, without knowing any of them
    assert {"fig-test-first", "fig-test-report"} <= {i for i, _, _ in report.figures(s)}
    with pytest.raises(ValueError, match="figure or table"):
        declarations._declare("plot", "x", "x", None, False, "summary")


def test_every_declared_figure_and_table_has_a_unique_id_and_a_caption():
    for kind in registry.KINDS:
        static = [e for e in registry.declared(kind) if not e.each]
        assert len({e.ident for e in static}) == len(static)
        assert all(e.ident.startswith(("fig-", "table-")) and e.caption for e in static)
    # family figures are declared for their problem
    assert {e.ident for e in registry.declared("figure") if e.problems == ("listrank",)} == {"fig-inflection",
                                                                                            "fig-sublists"}


def test_a_family_names_its_speedup_axes():
    rows = [row("cc.adaptive", 2**20, 10.0 / s, generator="uniform", m=2**22, params={"segments": s})
            for s in (1, 2, 4, 8)]
    made = {i: c for i, c, _ in F.figures(frame(rows))}
    assert made["fig-vs-segments"].startswith("Speed-up over the fewest segments")   # cc's declaration
    assert list(swept.fig_vs_param(frame(rows), "param_segments", speedup=True).axes[0].lines[0].get_ydata()) \
        == pytest.approx([1, 2, 4, 8])
