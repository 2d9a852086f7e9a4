"""A copy of kernels/sssp/strips.py's CPU twin (session 21) with a one-bucket lookahead: a block
with nothing left below T expands its pile's entries below T + delta (one step for the pile's
scan) while the bucket's tail runs elsewhere, routing by T + delta; the bucket ends when no work
below T is queued anywhere (an ideal termination: the GPU would have to tell that work apart).
Measured by twin_run.py; not part of graphsweep."""
import numba
import numpy as np
ELL_WIDTH = 4
@numba.njit(cache=True)
def _row_edge(rows, idx, wt, u, j):
    """u's j-th edge (neighbour, weight) as the GPU reads it: from u's row, or from the CSR range a
    wide vertex's row holds; neighbour -1 past the last."""
    at = u * ELL_WIDTH
    if rows[at] & 0xFFFFFFFF == 0xFFFFFFFE:
        e = rows[at + 1] + j
        if e >= rows[at + 2]:
            return -1, 0
        return idx[e], wt[e]
    if j >= ELL_WIDTH or rows[at + j] == -1:
        return -1, 0
    return rows[at + j] & 0xFFFFFFFF, rows[at + j] >> 32


@numba.njit(cache=True)
def _strips(rows, idx, wt, root, delta, blocks, lookahead):
    n = rows.shape[0] // ELL_WIDTH
    size = max(1, (n + blocks - 1) // blocks)
    inf = np.iinfo(np.int64).max
    dist = np.full(n, inf, np.int64)
    parent = np.full(n, -1, np.int64)
    dist[root] = 0
    parent[root] = root
    # per block b, regions [b size, b size + strip): two frontier lists, two piles, a mailbox
    cur = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    ncur = np.zeros(blocks, np.int64)
    nnxt = np.zeros(blocks, np.int64)
    queued_cur = np.zeros(n, np.bool_)
    queued_nxt = np.zeros(n, np.bool_)
    pile_in = np.empty(n, np.int64)
    pile_out = np.empty(n, np.int64)
    npile_in = np.zeros(blocks, np.int64)
    npile = np.zeros(blocks, np.int64)
    inpile = np.zeros(n, np.bool_)
    fmin = np.full(blocks, inf, np.int64)
    mail = np.empty(n, np.int64)
    nmail = np.zeros(blocks, np.int64)
    mailed = np.zeros(n, np.bool_)
    outbox = np.empty(n, np.int64)      # remote vertices improved this tick, mailed at the next
    in_outbox = np.zeros(n, np.bool_)
    nout = 0
    steps = np.zeros(blocks, np.int64)
    edges, entries, mails, epochs, ticks = 0, 0, 0, 0, 0
    owner = root // size
    pile_out[owner * size] = root
    npile[owner] = 1
    t_end = 0
    thr = np.zeros(blocks, np.int64)
    la = np.zeros(blocks, np.bool_)
    bucket_max = np.zeros(1 << 16, np.int64)
    before = steps.copy()
    while True:
        # bucket start: T from the piles' minimum, each block splits its own pile
        if epochs > 0:
            most = 0
            for b in range(blocks):
                most = max(most, steps[b] - before[b])
            bucket_max[epochs - 1] = most
        low = t_end
        if epochs == 0:
            t_end = delta
        else:
            least = inf
            for b in range(blocks):
                least = min(least, fmin[b])
                for i in range(ncur[b]):
                    least = min(least, dist[cur[b * size + i]])
                for i in range(nmail[b]):
                    least = min(least, dist[mail[b * size + i]])
            for i in range(nout):
                least = min(least, dist[outbox[i]])
            if least == inf:
                break
            t_end = max(low + delta, (least // delta + 1) * delta)
        pile_in, pile_out = pile_out, pile_in
        for b in range(blocks):
            lo = b * size
            npile_in[b] = npile[b]
            npile[b] = 0
            fmin[b] = inf
            for i in range(npile_in[b]):
                inpile[pile_in[lo + i]] = False
            for i in range(npile_in[b]):
                v = pile_in[lo + i]
                d = dist[v]
                if d >= t_end:
                    fmin[b] = min(fmin[b], d)
                    if not inpile[v]:
                        inpile[v] = True
                        pile_out[lo + npile[b]] = v
                        npile[b] += 1
                elif d >= low and not queued_cur[v]:
                    queued_cur[v] = True
                    cur[lo + ncur[b]] = v
                    ncur[b] += 1
        epochs += 1
        for b in range(blocks):
            la[b] = False
            thr[b] = t_end
        before = steps.copy()
        busy = True
        while busy:                      # ticks: every block mails, claims its mail and expands its frontier
            ticks += 1
            for i in range(nout):        # the sender warps: the outboxes of the last tick
                v = outbox[i]
                in_outbox[v] = False
                if not mailed[v]:
                    mailed[v] = True
                    ob = v // size
                    mail[ob * size + nmail[ob]] = v
                    nmail[ob] += 1
                    mails += 1
            nout = 0
            for b in range(blocks):
                lo = b * size
                hi = min(n, lo + size)
                if ncur[b] == 0 and nmail[b] == 0:
                    if lookahead and not la[b]:
                        la[b] = True
                        thr[b] = t_end + delta
                        for i in range(npile[b]):
                            v = pile_out[lo + i]
                            if dist[v] < thr[b] and not queued_nxt[v]:
                                queued_nxt[v] = True
                                nxt[lo + nnxt[b]] = v
                                nnxt[b] += 1
                        steps[b] += 1
                    continue
                steps[b] += 1
                for i in range(nmail[b]):        # the claimer warp: mail into the next frontier
                    v = mail[lo + i]
                    mailed[v] = False
                    if not queued_nxt[v]:
                        queued_nxt[v] = True
                        nxt[lo + nnxt[b]] = v
                        nnxt[b] += 1
                nmail[b] = 0
                entries += ncur[b]
                for i in range(ncur[b]):
                    queued_cur[cur[lo + i]] = False
                for i in range(ncur[b]):
                    u = cur[lo + i]
                    du = dist[u]
                    if du >= thr[b]:              # mailed at or past T: the owner files it
                        fmin[b] = min(fmin[b], du)
                        if not inpile[u]:
                            inpile[u] = True
                            pile_out[lo + npile[b]] = u
                            npile[b] += 1
                        continue
                    j = 0
                    while True:
                        v, w = _row_edge(rows, idx, wt, u, j)
                        if v < 0:
                            break
                        j += 1
                        edges += 1
                        nd = du + w
                        if nd >= dist[v]:
                            continue
                        dist[v] = nd
                        parent[v] = u
                        if v < lo or v >= hi:
                            if not in_outbox[v]:
                                in_outbox[v] = True
                                outbox[nout] = v
                                nout += 1
                        elif nd < thr[b]:
                            if not queued_nxt[v]:
                                queued_nxt[v] = True
                                nxt[lo + nnxt[b]] = v
                                nnxt[b] += 1
                        else:
                            fmin[b] = min(fmin[b], nd)
                            if not inpile[v]:
                                inpile[v] = True
                                pile_out[lo + npile[b]] = v
                                npile[b] += 1
                ncur[b] = 0
            cur, nxt = nxt, cur
            ncur, nnxt = nnxt, ncur
            queued_cur, queued_nxt = queued_nxt, queued_cur
            if lookahead:       # the bucket lasts while work below T is queued anywhere
                busy = False
                for i in range(nout):
                    busy |= dist[outbox[i]] < t_end
                for b in range(blocks):
                    for i in range(ncur[b]):
                        busy |= dist[cur[b * size + i]] < t_end
                    for i in range(nmail[b]):
                        busy |= dist[mail[b * size + i]] < t_end
            else:
                busy = nout > 0
                for b in range(blocks):
                    busy |= ncur[b] > 0 or nmail[b] > 0
    for v in range(n):
        if dist[v] == inf:
            dist[v] = -1
    return dist, parent, epochs, ticks, steps.max(), steps.mean(), edges, entries, mails, bucket_max[:epochs].sum()


