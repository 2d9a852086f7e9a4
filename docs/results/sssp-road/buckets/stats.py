"""Per task: ms a root (median over roots of the median over reps), its phases, and the kernel's stats."""
import sys
import pandas as pd
from graphsweep.pipeline import reduce
pd.set_option("display.width", 300)
pd.set_option("display.max_columns", 40)
STATS = ["chose", "renamed", "delta", "iterations", "steps", "us_per_step", "expand_us", "post_us", "barrier_ms", "idle_ms", "wakes_mean", "entries", "relaxations", "mails",
         "busy_ms"]
for folder in sys.argv[1:]:
    r = reduce.rows_of(folder)
    k = r[r.stage == "kernel"]
    t = k[k.phase == "total"]
    out = []
    for task, g in t.groupby("task"):
        row = g.iloc[0]
        ms = g.groupby("instance")["ms"].median().median()
        phases = k[(k.task == task) & (k.phase != "total")].groupby(["phase", "instance"])["ms"].median().groupby("phase").median()
        out.append([("permuted " if "permute_ids=True" in row.dataset else "") + row.dataset[:24], row.kernel, str(row.given)[:60], round(ms, 2), bool(g.verified.all())]
                   + [row.get(f"stat_{c}") for c in STATS] + [" ".join(f"{p}={v:.2f}" for p, v in phases.items())])
    print(f"== {folder} on {t.device.iloc[0]}")
    print(pd.DataFrame(out, columns=["dataset", "kernel", "given", "ms", "ok"] + STATS + ["phases"])
          .sort_values(["dataset", "ms"]).to_string(index=False))
    inp = r[r.stage == "input"] if "stage" in r else None
    if inp is not None and len(inp):
        print(inp.groupby(["dataset", "phase"])["ms"].median().to_string())
