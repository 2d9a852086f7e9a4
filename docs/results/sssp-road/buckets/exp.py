"""sssp.strips variants (compile flags) on the 4096^2 road-like grid, in one process: ms a root
(median over 4 roots of the median over reps), the step statistics, and per bucket the busiest
block's steps against the bucket's time."""
import json, sys, statistics as st
from graphsweep.kernels import harness

path = sys.argv[1]
variants = [json.loads(v) for v in sys.argv[2:]]
for rnd in range(2):
    for params in variants:
        params = dict(params)
        kernel, data = params.pop("kernel", "sssp.strips"), params.pop("data", path)
        r = harness.run(kernel, data, backend="gpu", reps=2, warmup=1, instances=4, instance_seed=24301,
                        keep_output=False, **params)
        by = {}
        for row in r.rows:
            if row["phase"] == "total":
                by.setdefault(row["instance"], []).append(row["ms"])
        ms = st.median(st.median(v) for v in by.values())
        s = r.stats
        keys = ["steps", "us_per_step", "expand_us", "post_us", "load_us", "busy_ms", "idle_ms", "barrier_ms",
                "wakes_mean", "entries", "relaxations", "mails", "push", "chose", "renamed", "blocks"]
        print(f"round {rnd} {kernel} {data[-8:]} {json.dumps(params):<40} {ms:7.2f} ms ok={r.verified} "
              + " ".join(f"{k}={s.get(k)}" for k in keys), flush=True)
        if rnd == 0:
            steps = [dict(x, info={"steps": x["step_steps"], "blocks": x["step_blocks"]}) for x in r.step_rows
                     if "step_steps" in x]
            if steps:
                last = max((x.get("instance", 0), x.get("rep", 0)) for x in steps)
                one = [x for x in steps if (x.get("instance", 0), x.get("rep", 0)) == last]
                tot = sum(x["ms"] for x in one)
                mx = sum(x["info"]["steps"] for x in one)
                usps = s.get("us_per_step") or 0
                blocks = [x["info"]["blocks"] for x in one]
                per = sorted(one, key=lambda x: -x["ms"])[:3]
                print(f"   buckets {len(one)}  sum {tot:.2f} ms  sum of busiest steps {mx} x {usps} us = "
                      f"{mx * usps / 1e3:.2f} ms  blocks stepping median {st.median(blocks)} max {max(blocks)}  "
                      f"us per bucket-step {tot * 1e3 / max(1, mx):.2f}  longest: "
                      + " ".join(f"{x['ms'] * 1e3:.0f}us/{x['info']['steps']}st/{x['info']['blocks']}b" for x in per),
                      flush=True)
            elif rnd == 0 and r.step_rows:
                print("   step row:", r.step_rows[0], flush=True)
