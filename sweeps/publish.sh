#!/usr/bin/env bash
# Run the shipped sweeps on this machine and pack what docs/results/ needs.
#
#   bash sweeps/publish.sh [SPEC[@SECONDS] | warm:SPEC[@SECONDS] | ecl-cc[@SECONDS] | floors[@SECONDS] ...]
#        # default: every experiment's spec (issue #9, in order) and then floors
#   OUT=/some/dir SWEEP_SECONDS=300 bash sweeps/publish.sh sweeps/cc-adaptive.yaml
#   REPORT=0 bash sweeps/publish.sh ...        # reduce only: render the reports elsewhere
#   # the *.best evidence (docs/results.md, "Where each *.best comes from"):
#   REPORT=0 bash sweeps/publish.sh sweeps/cc-best.yaml sweeps/bfs-best.yaml sweeps/gap-suite.yaml \
#       sweeps/cc-families.yaml ecl-cc warm:sweeps/pipeline-shares.yaml sweeps/pipeline-shares.yaml floors
#
# Each SPEC runs with `graphsweep run` (a local cluster: one worker per GPU) into $RESULTS/<name>
# under a time limit of its own (SPEC@SECONDS, else SWEEP_SECONDS, default 300).  A run cut off
# keeps every finished task; what is stored is then reduced (and, with REPORT=1, the default,
# reported; REPORT=0 leaves the rendering of the plots, ~10 s a sweep, to another machine).
# `warm:SPEC` runs it into $RESULTS/<name>-warm, not packed: generation and the kernel caches
# paid before the run that is measured (the pipeline-shares sweep times its own wall time).
# `ecl-cc` times ECL-CC (peers/ecl-cc/main.cu) on the graphs of $RESULTS/cc-families beside the
# sweep (benchmarks/cc_families.py --ecl) into cc-families-ecl.out; `floors` prints every *.best
# of the runs so far against the floors stamped on its rows, and the chase's curves against table
# size and chains (benchmarks/floors.py --chase), into floors.out.
# After each step $OUT/results.tgz is rewritten, so a call cut off still returns what was done.
# It holds, per sweep, what `graphsweep report DIR` needs to render the report anywhere —
# plan.json, logs/, results.parquet, summary.csv (and report.html; not tasks/, whose rows
# results.parquet holds: a published folder is read from it) — and <name>.out (the
# run's output), publish.log (each sweep's exit code, wall time and task count) and device.json
# (GPU name, SM count, L2 size, memory, date).  Generated datasets go under each spec's `data:`
# folder and are shared by the specs (the list-ranking sweeps reuse the same lists).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
RESULTS=${RESULTS:-results/publish}
SWEEP_SECONDS=${SWEEP_SECONDS:-300}
REPORT=${REPORT:-1}
mkdir -p "$OUT" "$RESULTS"
if (( $# == 0 )); then
  set -- sweeps/listrank-time-vs-n.yaml sweeps/listrank-random-splitter.yaml \
         sweeps/listrank-splitters.yaml sweeps/listrank-threads-blocks.yaml sweeps/cc-threads-blocks.yaml \
         sweeps/cc-by-graph-type.yaml sweeps/cc-adaptive.yaml sweeps/harish-bfs-sssp.yaml sweeps/apsp.yaml floors
fi

python3 - "$RESULTS/device.json" <<'EOF'
import json, sys, time, platform, os
info = {"date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "host_cpus": os.cpu_count(),
        "host": platform.processor() or platform.machine()}
try:
    import cupy
    p = cupy.cuda.runtime.getDeviceProperties(0)
    info.update(device=p["name"].decode(), sm_count=p["multiProcessorCount"], l2_bytes=p["l2CacheSize"],
                memory_bytes=p["totalGlobalMem"], clock_khz=p.get("clockRate"),
                memory_clock_khz=p.get("memoryClockRate"), bus_bits=p.get("memoryBusWidth"),
                cuda_runtime=cupy.cuda.runtime.runtimeGetVersion(), cupy=cupy.__version__)
except Exception as exc:  # no GPU: the sweeps run on the CPU twins
    info["device_error"] = f"{type(exc).__name__}: {exc}"
json.dump(info, open(sys.argv[1], "w"), indent=1)
print("device:", json.dumps(info))
EOF

pack() {
  local items=(publish.log device.json)
  for out in "$RESULTS"/*.out; do [[ -e $out ]] && items+=("$(basename "$out")"); done
  for dir in "$RESULTS"/*/; do
    [[ -d $dir && $dir != *-warm/ ]] || continue
    local name; name=$(basename "$dir")
    for f in results.parquet summary.csv report.html plan.json logs; do
      [[ -e "$RESULTS/$name/$f" ]] && items+=("$name/$f")
    done
  done
  tar czf "$OUT/results.tgz.part" -C "$RESULTS" "${items[@]}" && mv "$OUT/results.tgz.part" "$OUT/results.tgz"
}

: > "$RESULTS/publish.log"
for arg in "$@"; do
  spec=${arg%@*}; limit=$SWEEP_SECONDS
  [[ $arg == *@* ]] && limit=${arg##*@}
  if [[ $spec == floors || $spec == ecl-cc ]]; then
    start=$(date +%s)
    echo "=== $spec: start $(date -u +%H:%M:%S), limit $limit s" | tee -a "$RESULTS/publish.log"
    if [[ $spec == floors ]]; then
      done_runs=()
      for dir in "$RESULTS"/*/; do
        [[ $dir != *-warm/ ]] && compgen -G "$dir/tasks/*.parquet" >/dev/null && done_runs+=("$dir")
      done
      printer=(benchmarks/floors.py "${done_runs[@]}" --chase)
    else
      printer=(benchmarks/cc_families.py "$RESULTS/cc-families" --ecl peers/ecl-cc/main.cu)
    fi
    out=$RESULTS/$spec.out; [[ $spec == ecl-cc ]] && out=$RESULTS/cc-families-ecl.out
    timeout --signal=INT --kill-after=30 "$limit" python3 "${printer[@]}" > "$out" 2>&1
    echo "=== $spec: rc=$?, $(( $(date +%s) - start )) s" | tee -a "$RESULTS/publish.log"
    tail -n 20 "$out" | tee -a "$RESULTS/publish.log"
    pack
    continue
  fi
  name=$(basename "$spec" .yaml)
  if [[ $spec == warm:* ]]; then spec=${spec#warm:}; name=$(basename "$spec" .yaml)-warm; fi
  start=$(date +%s)
  echo "=== $name: start $(date -u +%H:%M:%S), limit $limit s" | tee -a "$RESULTS/publish.log"
  timeout --signal=INT --kill-after=30 "$limit" \
    graphsweep run "$spec" --results "$RESULTS/$name" --resume --no-progress --no-report > "$RESULTS/$name.out" 2>&1
  rc=$?
  # Reduce (and report) what is stored, also when the run was cut off or failed.
  if compgen -G "$RESULTS/$name/tasks/*.parquet" >/dev/null; then
    if [[ $REPORT == 1 ]]; then step=report; else step=reduce; fi
    graphsweep $step "$RESULTS/$name" >> "$RESULTS/$name.out" 2>&1
  fi
  tasks=$(ls "$RESULTS/$name/tasks" 2>/dev/null | wc -l)
  echo "=== $name: rc=$rc, $(( $(date +%s) - start )) s, $tasks task files" | tee -a "$RESULTS/publish.log"
  tail -n 3 "$RESULTS/$name.out" | tee -a "$RESULTS/publish.log"
  pack
done
ls -la "$OUT"
