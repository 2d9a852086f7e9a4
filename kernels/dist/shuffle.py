"""The shuffle build of a partitioned graph's slices: every worker reads or generates only its
share of the edges, and each CSR entry travels once, to the worker that owns its row.

The steps (``slices.build`` runs them on each worker, every rank making the same calls):

1. ``share_degrees``: one pass over the share counts each vertex's entries in it (both ends of
   every non-loop edge): an array over all n vertices (O(n)).  Summed per bucket of vertices and
   all-reduced, it gives every rank the same bounds (``slices.edge_balanced_bounds``);
   ``owner_degrees`` then all-reduces each owner's range of it in turn, the owner keeping its
   rows' degrees: the slice's offsets.
2. ``scatter``: a second pass over the share.  Each chunk's entries, both directions of each
   non-loop edge, are packed as (row << 32 | column) int64 keys and sorted: grouped by owner,
   rows ascending.  The ranks all-reduce a K x K table of what each sends each (and whether any
   still has a chunk: the ranks' shares may hold different numbers of chunks), then send in
   rounds of at most ``exchange`` entries to a peer (``comm.alltoallv_into`` into fixed buffers),
   as many rounds as the largest piece of the table needs, so every rank agrees on them.  The
   owner places each piece it gets (``place``): a piece's keys are sorted, so an entry's place is
   its row's cursor plus its rank within its row's run in the piece, and the cursor moves by the
   run's length — no atomics, the same on NumPy and CuPy.
3. ``sort_rows``: each row's neighbours sorted, a piece of rows of about ``sort`` entries at a
   time (the same packed keys, rows local to the piece).

The result is the whole graph's CSR rows [lo, hi) exactly, whatever K, chunk, buffer or
transport.  A worker holds, besides its slice (indices, offsets) and a cursor per row, one
chunk's keys, K receive buffers of ``exchange`` entries and one sort piece: fixed sizes
(``Sizes``), a fraction of a large slice.
"""

from dataclasses import dataclass

import numpy as np
from graphsweep.core.errors import DatasetError

# The fixed working space beside the slice, within placement.SLICE_BYTES (2 GiB) at K = 4: a
# chunk's edges, its keys, their halves and the sort's buffer (~1 GiB); K receive buffers (256 MiB)
# and a piece's placement temporaries (~45 B a key); or one sort piece (~28 B an entry).
CHUNK_ROWS = 1 << 24          # edges generated (or handed over) at a time: 2^25 keys of 8 B
EXCHANGE_ENTRIES = 1 << 23    # keys sent to one peer in one round: a receive buffer of 64 MiB a peer
SORT_ENTRIES = 1 << 26        # CSR entries sorted at a time at the end
LOW = 0xFFFFFFFF              # a key's column bits


@dataclass(frozen=True)
class Sizes:
    chunk: int       # CHUNK_ROWS
    exchange: int    # EXCHANGE_ENTRIES
    sort: int        # SORT_ENTRIES


def sizes() -> Sizes:
    """The sizes the driver hands its workers (the constants above; tests hand smaller ones)."""
    return Sizes(CHUNK_ROWS, EXCHANGE_ENTRIES, SORT_ENTRIES)


def count_into(xp, counts, values) -> None:
    """counts[v] += 1 for every v of ``values`` (int64 ``counts``; NumPy: a bincount; CuPy: an
    atomic scatter-add, no n-sized temporary per chunk — on the counts seen as uint64, the
    64-bit integer type CuPy's scatter_add takes: the same bits while the counts are positive)."""
    if not values.shape[0]:
        return
    if xp is np:
        counts += np.bincount(values, minlength=counts.shape[0])
    else:
        import cupyx
        cupyx.scatter_add(counts.view(np.uint64), values, np.uint64(1))


def share_degrees(xp, chunks, n: int, where: str):
    """Entries per vertex (both ends of each non-loop edge) of the share ``chunks`` yields; an id
    outside [0, n) is refused in one line naming ``where``."""
    counts = xp.zeros(n, dtype=np.int64)
    for src, dst in chunks:
        if src.shape[0]:
            low, high = (int(v) for v in xp.stack([xp.minimum(src.min(), dst.min()),
                                                   xp.maximum(src.max(), dst.max())]).tolist())
            if low < 0 or high >= n:
                raise DatasetError(f"{where}: edge ids must be in [0, {n}), found {low if low < 0 else high}")
        keep = src != dst
        count_into(xp, counts, src[keep])
        count_into(xp, counts, dst[keep])
    return counts


def bucket_sums(xp, counts, bucket: int, buckets: int):
    """``counts`` summed over buckets of ``bucket`` vertices (``buckets`` of them, covering n)."""
    n = counts.shape[0]
    whole = n // bucket
    sums = xp.zeros(buckets, dtype=np.int64)
    sums[:whole] = counts[:whole * bucket].reshape(whole, bucket).sum(axis=1)
    if n % bucket:
        sums[whole] = counts[whole * bucket:].sum()
    return sums


def owner_degrees(comm, counts, bounds: np.ndarray):
    """This rank's rows' degrees: each owner's range of every rank's ``counts`` summed, owner by
    owner (so no rank holds more than its counts and one range's sum)."""
    xp = comm.xp
    mine = None
    for j in range(comm.size):
        lo, hi = int(bounds[j]), int(bounds[j + 1])
        total = comm.allreduce(counts[lo:hi]) if hi > lo else xp.zeros(0, dtype=np.int64)
        if j == comm.rank:
            mine = total
    return mine


def entry_keys(xp, src, dst):
    """Both directions of each non-loop edge as sorted (row << 32 | column) keys."""
    keep = src != dst
    a, b = src[keep].astype(np.int64), dst[keep].astype(np.int64)
    count = int(a.shape[0])
    keys = xp.empty(2 * count, dtype=np.int64)
    xp.left_shift(a, 32, out=keys[:count])
    keys[:count] |= b
    xp.left_shift(b, 32, out=keys[count:])
    keys[count:] |= a
    del a, b
    keys.sort()
    return keys


def place(xp, keys, lo: int, cursor, indices) -> None:
    """Write the sorted keys' columns into ``indices`` at their rows' cursors (rows global, the
    slice's from ``lo``), moving each cursor past what it got."""
    size = int(keys.shape[0])
    if not size:
        return
    rows = (keys >> 32) - lo
    starts = xp.empty(size, dtype=np.bool_)
    starts[0] = True
    xp.not_equal(rows[1:], rows[:-1], out=starts[1:])
    first = xp.flatnonzero(starts)                  # each run of one row: where it starts
    run = xp.cumsum(starts) - 1                     # each entry's run
    pos = xp.arange(size, dtype=np.int64) - first[run]
    run_rows = rows[first]
    pos += cursor[run_rows][run]
    indices[pos] = (keys & LOW).astype(indices.dtype)
    ends = xp.empty_like(first)
    ends[:-1] = first[1:]
    ends[-1] = size
    cursor[run_rows] += ends - first                # run_rows are distinct: a plain scatter


def scatter(comm, chunks, bounds: np.ndarray, offsets, indices, exchange: int) -> int:
    """Fill ``indices`` (this rank's rows, from ``offsets``) with the entries of every rank's share
    (see the module doc, step 2); the rounds of all-to-all it took."""
    xp, k, rank = comm.xp, comm.size, comm.rank
    lo = int(bounds[rank])
    key_bounds = xp.asarray(bounds.astype(np.int64) << 32)
    cursor = offsets[:-1].copy()
    recv = xp.empty((k, exchange), dtype=np.int64)
    rounds = 0
    while True:
        chunk = next(chunks, None)
        keys = entry_keys(xp, *chunk) if chunk is not None else xp.zeros(0, dtype=np.int64)
        table = xp.zeros(k * k + 1, dtype=np.int64)
        table[rank * k:(rank + 1) * k] = xp.diff(xp.searchsorted(keys, key_bounds))
        table[-1] = chunk is not None
        table = comm.host(comm.allreduce(table))
        if not table[-1]:
            break
        table = table[:-1].reshape(k, k)      # table[i, j]: keys rank i sends rank j
        cuts = np.concatenate([[0], np.cumsum(table[rank])])
        for start in range(0, int(table.max()), exchange):
            sent = np.clip(table[rank] - start, 0, exchange)
            got = np.clip(table[:, rank] - start, 0, exchange)
            pieces = [keys[cuts[j] + start:cuts[j] + start + sent[j]] for j in range(k)]
            outs = [recv[j, :got[j]] for j in range(k)]
            comm.alltoallv_into(pieces, outs)
            rounds += 1
            for j in range(k):
                place(xp, pieces[j] if j == rank else outs[j], lo, cursor, indices)
        del keys
    if not bool((cursor == offsets[1:]).all()):
        raise RuntimeError("the shuffle placed a different number of entries than the degrees counted")
    return rounds


def sort_rows(comm, offsets, indices, piece: int) -> None:
    """Sort each row's neighbours in place, a piece of whole rows at a time: pieces cut at the
    last row start at or before each multiple of ``piece`` entries (so at most ``piece`` entries
    and the rest of one row; only the cuts are read on the host)."""
    xp = comm.xp
    nnz = int(indices.shape[0])
    rows = offsets.shape[0] - 1
    cuts = xp.searchsorted(offsets, xp.arange(piece, nnz, piece, dtype=np.int64), side="right") - 1
    cuts = np.unique(np.concatenate([[0], comm.host(cuts), [rows]]))
    starts = comm.host(offsets[xp.asarray(cuts)])
    for r0, r1, a, b in zip(cuts[:-1], cuts[1:], starts[:-1], starts[1:]):
        a, b = int(a), int(b)
        if b - a < 2:
            continue
        marks = xp.zeros(b - a, dtype=np.int64)    # 1 where a row starts inside the piece, after its first
        inside = offsets[r0 + 1:r1] - a
        count_into(xp, marks, inside[inside < b - a])
        keys = xp.cumsum(marks)
        del marks
        keys <<= 32
        keys |= indices[a:b]
        keys.sort()
        indices[a:b] = (keys & LOW).astype(indices.dtype)
        del keys
