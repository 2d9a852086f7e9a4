#!/usr/bin/env bash
# fixed-costs device call: main's tree (the repository root here) and this branch's, the
# pipeline-shares sweep warm then measured, each; then GPU tests, load and store timings.
set -uo pipefail
MINE=$PWD; MAIN=$(cd ../.. && pwd); T0=$(date +%s)
el() { echo "[+$(( $(date +%s) - T0 )) s] $*"; }
use() { (cd "$1" && python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/tmp/install.log 2>&1) || { cat /tmp/install.log; exit 3; }; }
mkdir -p "$MAIN/data"; ln -sfn "$MAIN/data" "$MINE/data"
sweep() {  # TREE NAME RESULTS SPECS...
  local tree=$1 name=$2 res=$3; shift 3
  use "$tree"; cd "$tree"
  el "$name: publish $*"
  OUT=$OUT/$name RESULTS=$res REPORT=0 SWEEP_SECONDS=150 bash sweeps/publish.sh "$@" > /tmp/$name-publish.log 2>&1
  grep "===\|rc=" /tmp/$name-publish.log
  el "$name: shares"
  python3 "$MINE/benchmarks/pipeline.py" "$res/pipeline-shares" --tasks
  cd "$MINE"
}
sweep "$MAIN" main /tmp/r-main warm:sweeps/pipeline-shares.yaml sweeps/pipeline-shares.yaml
sweep "$MINE" mine /tmp/r-mine warm:sweeps/pipeline-shares.yaml sweeps/pipeline-shares.yaml
el "gpu tests"
use "$MINE"
python3 -m pytest -m gpu -q -x tests/kernels/test_harness.py tests/kernels/listrank tests/pipeline/test_runner.py 2>&1 | tail -4
el "load and store timings"
python3 - <<'PY'
import time, glob, os, shutil
import cupy, pyarrow.parquet as pq
from graphsweep.datasets import reader
from graphsweep.pipeline import store
path = "data/list_n=268435456_seed=1"
pool = cupy.get_default_memory_pool()
for threads in (8, 16, 8, 16):
    pool.free_all_blocks(); t = time.perf_counter()
    d = reader.read(path, backend="gpu", threads=threads); cupy.cuda.Device().synchronize()
    a = time.perf_counter() - t; del d; pool.free_all_blocks(); t = time.perf_counter()
    h = reader.read(path, backend="cpu", threads=threads); b = time.perf_counter() - t; t = time.perf_counter()
    x = cupy.asarray(h.succ); cupy.cuda.Device().synchronize(); c = time.perf_counter() - t; del x, h
    print(f"load 2^28 threads {threads}: to gpu {a:.3f} s; to host {b:.3f} s + copy {c:.3f} s")
files = sorted(glob.glob("/tmp/r-mine/pipeline-shares/tasks/*.parquet"))
table = pq.read_table(files[0]); os.makedirs("/tmp/st/tasks", exist_ok=True)
t = time.perf_counter()
for i in range(20):
    store.write_task("/tmp/st", f"t{i}", table, failed=False, error=None)
print(f"store.write_task of a {table.num_rows}-row task: {(time.perf_counter() - t) / 20 * 1e3:.2f} ms")
PY
if (( $(date +%s) - T0 < 290 )); then
  sweep "$MAIN" main2 /tmp/r-main2 sweeps/pipeline-shares.yaml
  sweep "$MINE" mine2 /tmp/r-mine2 sweeps/pipeline-shares.yaml
fi
el done
