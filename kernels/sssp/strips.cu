// sssp.strips: delta-stepping, a block per strip of consecutive vertex ids, no grid barrier inside
// a bucket (strips.py says why).
//
// Block b owns the vertices [lo, hi) = [b size, (b + 1) size).  A bucket [L, T):
//   start  — the block splits its own far pile: vertices now in [L, T) form its frontier, those
//            at or past T stay (vertices below L were settled by an earlier bucket: dropped);
//   steps  — expand the frontier list a thread per vertex, its word and its row (ST_ELL packed
//            (neighbour, weight) entries, or a wider vertex's CSR range) read together (vertices
//            of more than `hub` edges go to the whole block after the others), relaxing each edge
//            on the packed word; an improved vertex of the strip joins the next list (below T,
//            once: a "queued" bit) or the block's far pile (once per bucket: an "in pile" bit),
//            one of another strip goes to the block's outbox.  With `push` (positive weights) a
//            relaxation is a fire-and-forget red.min and every neighbour it reaches is routed as if
//            improved; an entry is expanded only if its distance fell below the one it was last
//            expanded at (`expanded`, read with its word and row), so a step waits for one memory
//            round trip, not two (the red.min lands before the next step's read of the word: the
//            step's __syncthreads orders them);  Meanwhile two warps work the
//            post: the last claims the block's incoming mail into the next list, the one before
//            it mails the outbox the previous step left, so the expansion's chain of two memory
//            round trips is not lengthened by the mail's six.  One __syncthreads ends the expansion, one the step;
//   idle   — the next list and the outbox are empty: the block gives back the work units it
//            holds and spins on its ring's tail and on the done word; mail sends it back to step,
//            the done word means no block has anything left below T: the block files its pile
//            minimum and enters the grid barrier, after which T moves past the smallest pile
//            distance.
// Work counter (ctl[ST_WORK]): every block holds one unit from the bucket's start (the barrier's
// last block sets the counter to gridDim.x) until it first goes idle; a mail is counted (+1,
// performed before the mail can be seen) by its sender, and its owner gives it back when it goes
// idle after expanding it.  A block mails only while it holds a unit, so the counter is 0 only
// when nothing is left anywhere.  The block that takes it to 0 raises ST_DONE to the bucket's
// number; idle blocks spin on that word and on their own tail, not on the counter every mail adds to.
// Mail: the sender improves v's word, then sets v's "mailed" bit; if it was clear it reserves a
// slot of the owner's ring (atomicAdd on the owner's tail) and writes (lap, v) there.  The owner
// reads slots up to the tail it saw (a slot not yet written still has the old lap), clears the
// bits, fences, and only then will a thread read v's word: a sender that finds the bit still set
// improved v before the clear, so the owner sees that improvement.  At most one slot per vertex is
// pending, so a ring of 2 x strip slots never overruns.
// Bitmaps and the two lists live in shared memory (lists spill past `list_cap` entries): a hop
// inside the strip costs a block step, not a grid barrier.
#include "sssp/sssp.cuh"

// Threads per block and blocks per SM the launcher asks for (-D options).
#ifndef ST_THREADS
#define ST_THREADS 1024
#endif
#ifndef ST_MIN_BLOCKS
#define ST_MIN_BLOCKS 1
#endif
#define ST_ELL 4              // entries of a vertex's row (strips.py's ELL_WIDTH)
#define ST_NONE 0xFFFFFFFFu   // an empty row entry (low word)
#define ST_WIDE 0xFFFFFFFEu   // entry 0 of a vertex of more than ST_ELL edges: entries 1, 2 are its CSR range
#define ST_HUBS 64            // hubs one step defers to the whole block; more are expanded by their thread
#define ST_OUTBOX 256         // remote vertices one step leaves to the sender warp; more are mailed by their thread
#define ST_TAIL_STRIDE 16     // a block's ring tail is alone in its 128-byte line

// ctl slots (u32 words); the work counter and the done word have 128-byte lines of their own
#define ST_WORK 32            // outstanding work units (see above)
#define ST_DONE 64            // buckets finished
#define ST_BAR_COUNT 1
#define ST_BAR_GEN 2
#define ST_ABORT 3
#define ST_OVERFLOW 4
#define ST_EPOCHS 5           // buckets run (= grid barriers)
#define ST_MAX_STEPS 6        // most steps any block took
#define ST_FMIN 7             // +epoch%2: smallest distance filed in any pile during the bucket
#define ST_EDGES 10           // u64 (words 10-11): edges relaxed
#define ST_ENTRIES 12         // u64: frontier entries expanded
#define ST_MAILS 14           // u64: vertices mailed
#define ST_STEPS 16           // u64: steps summed over the blocks
#define ST_BUSY 18            // u64: ns the blocks spent stepping, summed
#define ST_BARRIER 20         // u64: ns in bucket barriers, summed
#define ST_SPAN 22            // u64: ns from start to end, summed over the blocks
#define ST_WAKES 24           // u64: idle waits that mail ended, summed
#define ST_EXPAND 26          // u64 (these three with ST_STEP_CLOCKS): ns from a step's start to its last expansion thread's end, summed
#define ST_POST 28            // u64: ns from a step's start to its post warps' end, summed
#define ST_LOAD 30            // u64: ns from a step's start to its last expanded entry's word, summed
#define ST_CTL_WORDS 96

#define ST_SPIN_LIMIT (1LL << 33)   // ~4 s of clock64: a wait that long is a bug, not load

struct StArgs {
    const long long* __restrict__ off;
    const int* __restrict__ idx;
    const int* __restrict__ wt;
    const sp_u64* __restrict__ ell;     // ST_ELL entries a vertex: (weight << 32) | neighbour
    sp_u64* word;
    sp_u32* spill;        // 2n: list j of block b at j n + lo, past the shared entries
    sp_u32* pile;         // 2n: pile j of block b at j n + lo
    sp_u64* mailbox;      // 2n: block b's ring at 2 lo, 2 (hi - lo) slots of (lap + 1) << 32 | v
    sp_u64* tail;         // per block (ST_TAIL_STRIDE apart): slots reserved in its ring
    sp_u32* mailed;       // a bit per vertex: a slot holds it, not yet claimed
    sp_u32* expanded;     // push: a vertex's distance when last expanded (SP_INF: never)
    sp_u32* ctl;
    sp_u64* log;          // log[0] start ns; per bucket (4 words): T, end ns, most steps a block took, blocks that stepped
    long long n, size;
    int log_cap, list_cap, hub, positive, push;
    sp_u32 delta;
    long long max_steps;
};

// Block state (thread 0 or shared atomics write it; read after a __syncthreads).
struct StBlock {
    sp_u32 count[2];      // entries in list 0 / 1
    sp_u32 nout[2];       // entries in outbox 0 / 1 (past ST_OUTBOX: mailed by their thread)
    sp_u32 npile;         // entries in the pile being filled
    sp_u32 fmin;          // smallest distance filed in it
    sp_u32 nhubs;
    sp_u32 held;          // work units this block holds
    sp_u32 surplus;       // +1s sent for mail that was already pending (given back when idle)
    sp_u32 state;         // outcome of an idle wait
    sp_u64 head;          // ring slots claimed
    sp_u64 busy, barrier, wakes;            // thread 0's clock: ns stepping, ns in barriers; wake-ups
    sp_u64 expand, post, load;  // ST_STEP_CLOCKS: ns to the expansion's end, the post's, u's word, summed over steps
    sp_u32 expand_ns, post_ns, load_ns;  // this step's
    sp_u32 hub_v[ST_HUBS];
    sp_u32 hub_d[ST_HUBS];
    sp_u32 out[2][ST_OUTBOX];
};

// What a step's expansion writes to: this block's strip, the next list, the outbox, the pile, T.
struct StStep {
    sp_u32* bits_next;
    sp_u32* list_next;
    sp_u32* out;
    sp_u32* nout;
    sp_u32* inpile;
    sp_u32* pile_out;
    long long lo, hi;
    sp_u64 T;
    int next;
};

__device__ __forceinline__ sp_u64 st_clock()
{
    sp_u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Sets bit i; true if it was clear.
__device__ __forceinline__ bool st_set_bit(sp_u32* bits, sp_u32 i)
{
    const sp_u32 m = 1u << (i & 31);
    return !(atomicOr(bits + (i >> 5), m) & m);
}

__device__ __forceinline__ sp_u32 st_entry(const StArgs& a, const sp_u32* list, int j, long long lo, sp_u32 i)
{
    return i < (sp_u32)a.list_cap ? list[i] : __ldcg(a.spill + j * a.n + lo + (i - a.list_cap));
}

__device__ __forceinline__ void st_append(const StArgs& a, StBlock& s, sp_u32* list, int j, long long lo, sp_u32 v)
{
    const sp_u32 i = atomicAdd(&s.count[j], 1u);
    if (i < (sp_u32)a.list_cap) list[i] = v;
    else a.spill[j * a.n + lo + (i - a.list_cap)] = v;
}

// v (of this strip) at distance d >= T: into the pile being filled, once per bucket.
__device__ __forceinline__ void st_file(StBlock& s, const StStep& c, sp_u32 v, sp_u32 d)
{
    atomicMin(&s.fmin, d);
    if (st_set_bit(c.inpile, (sp_u32)(v - c.lo))) c.pile_out[atomicAdd(&s.npile, 1u)] = v;
}

// v of another strip, already counted in ST_WORK: to its owner's ring, unless a slot holds it.
__device__ __forceinline__ void st_post(const StArgs& a, StBlock& s, sp_u32 v, sp_u64& mails)
{
    const sp_u32 m = 1u << (v & 31);
    if (atomicOr(a.mailed + (v >> 5), m) & m) {
        atomicAdd(&s.surplus, 1u);              // the count is given back when the block goes idle
        return;
    }
    const long long owner = (long long)v / a.size, olo = owner * a.size;
    const sp_u64 ring = 2 * (sp_u64)(min(a.n, olo + a.size) - olo);
    const sp_u64 i = atomicAdd(a.tail + owner * ST_TAIL_STRIDE, 1ull);
    *(volatile sp_u64*)(a.mailbox + 2 * olo + i % ring) = ((i / ring + 1) << 32) | v;
    ++mails;
}

// A remote vertex the outbox has no room for: mailed by the thread that improved it.
__device__ void st_mail(const StArgs& a, StBlock& s, sp_u32 v, sp_u64& mails)
{
    atomicAdd(a.ctl + ST_WORK, 1u);
    __threadfence();                            // the count is performed before the slot can be seen
    st_post(a, s, v, mails);
}

// The sender warp: the outbox of the previous step (all 32 lanes call it).
__device__ void st_send(const StArgs& a, StBlock& s, const sp_u32* out, sp_u32 count, sp_u64& mails)
{
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(a.ctl + ST_WORK, count);      // one count for the batch, performed before any slot is seen
        __threadfence();
    }
    __syncwarp();
    for (sp_u32 i = threadIdx.x & 31; i < count; i += 32) st_post(a, s, out[i], mails);
}

// A relaxation whose answer no one waits for (push).
__device__ __forceinline__ void st_red_min(sp_u64* at, sp_u64 x)
{
    asm volatile("red.global.min.u64 [%0], %1;" :: "l"(at), "l"(x) : "memory");
}

__device__ __forceinline__ void st_route(const StArgs& a, StBlock& s, const StStep& c, sp_u32 v, sp_u32 nd,
                                         sp_u64& mails)
{
    if (v >= c.lo && v < c.hi) {
        if (nd < c.T) {
            if (st_set_bit(c.bits_next, (sp_u32)(v - c.lo))) st_append(a, s, c.list_next, c.next, c.lo, v);
        } else {
            st_file(s, c, v, nd);
        }
    } else {
        const sp_u32 i = atomicAdd(c.nout, 1u);
        if (i < ST_OUTBOX) c.out[i] = v;
        else st_mail(a, s, v, mails);
    }
}

// u's row, read with its word: relax its (up to ST_ELL) edges, the atomics independent, so the
// step costs two memory round trips (row and word, then the atomics) where the CSR needs three.
__device__ void st_expand_row(const StArgs& a, StBlock& s, const StStep& c, sp_u32 u, sp_u32 du,
                              const sp_u64 (&e)[ST_ELL], sp_u64& edges, sp_u64& mails)
{
    sp_u32 v[ST_ELL], nd[ST_ELL];
    bool ok[ST_ELL];
#pragma unroll
    for (int j = 0; j < ST_ELL; ++j) {
        v[j] = (sp_u32)e[j];
        ok[j] = v[j] != ST_NONE;
        nd[j] = 0;
        if (ok[j]) {
            ++edges;
            const sp_u64 cand = (sp_u64)du + (e[j] >> 32);
            if (cand >= SP_INF) {
                a.ctl[ST_OVERFLOW] = 1;
                ok[j] = false;
            }
            nd[j] = (sp_u32)cand;
        }
    }
#pragma unroll
    for (int j = 0; j < ST_ELL; ++j) {
        if (!ok[j]) continue;
        if (a.push) st_red_min(a.word + v[j], sp_pack(nd[j], u));
        else ok[j] = a.positive ? sp_dist(atomicMin(a.word + v[j], sp_pack(nd[j], u))) > nd[j]
                                : sp_relax(a.word, v[j], nd[j], u);
    }
#pragma unroll
    for (int j = 0; j < ST_ELL; ++j)
        if (ok[j]) st_route(a, s, c, v[j], nd[j], mails);
}

// Relax u's edges e, e + stride, ... < end, four at a time: their loads, then their atomics, are
// independent, so each group costs two memory round trips.
__device__ void st_expand(const StArgs& a, StBlock& s, const StStep& c, sp_u32 u, sp_u32 du, long long e,
                          long long end, int stride, sp_u64& mails)
{
    for (; e < end; e += 4LL * stride) {
        sp_u32 v[4], nd[4];
        bool ok[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const long long f = e + (long long)j * stride;
            ok[j] = f < end;
            v[j] = 0;
            nd[j] = 0;
            if (ok[j]) {
                v[j] = (sp_u32)__ldg(a.idx + f);
                const sp_u64 cand = (sp_u64)du + (sp_u32)__ldg(a.wt + f);
                if (cand >= SP_INF) {
                    a.ctl[ST_OVERFLOW] = 1;
                    ok[j] = false;
                }
                nd[j] = (sp_u32)cand;
            }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            if (!ok[j]) continue;
            // Positive weights: a smaller parent id at an equal distance may replace the parent
            // (both edges are tight and lead to shorter distances, so no cycle); with zero weights
            // only a strict improvement may (sp_relax).
            if (a.push) st_red_min(a.word + v[j], sp_pack(nd[j], u));
            else ok[j] = a.positive ? sp_dist(atomicMin(a.word + v[j], sp_pack(nd[j], u))) > nd[j]
                                    : sp_relax(a.word, v[j], nd[j], u);
        }
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (ok[j]) st_route(a, s, c, v[j], nd[j], mails);
    }
}

// The last warp: ring slots [head, tail) into the next list (all 32 lanes call it).
__device__ void st_claim(const StArgs& a, StBlock& s, const StStep& c, sp_u64 head, sp_u64 tail)
{
    const int lane = threadIdx.x & 31;
    const sp_u64 ring = 2 * (sp_u64)(c.hi - c.lo);
    for (sp_u64 i = head + lane; i < tail; i += 32) {
        volatile sp_u64* slot = a.mailbox + 2 * c.lo + i % ring;
        const sp_u64 want = i / ring + 1;
        sp_u64 x = *slot;
        const long long start = clock64();
        while ((x >> 32) != want) {             // reserved, not yet written
            if (clock64() - start > ST_SPIN_LIMIT) {
                atomicExch(a.ctl + ST_ABORT, 1u);
                return;
            }
            x = *slot;
        }
        const sp_u32 v = (sp_u32)x;
        atomicAnd(a.mailed + (v >> 5), ~(1u << (v & 31)));
        if (st_set_bit(c.bits_next, (sp_u32)(v - c.lo))) st_append(a, s, c.list_next, c.next, c.lo, v);
    }
    __threadfence();                            // the bits are clear before any thread reads these words
}

// Grid barrier between buckets; the last block in resets the work counter (every block holds one
// unit at a bucket's start) and the next bucket's pile-minimum slot (last read at this one's start).
// Returns whether some block aborted (the same answer in every thread).
__device__ bool st_barrier(sp_u32* ctl, sp_u32 epoch, sp_u32* flag)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile sp_u32* gen = ctl + ST_BAR_GEN;
        const sp_u32 g = *gen;
        __threadfence();
        if (atomicAdd(ctl + ST_BAR_COUNT, 1u) == gridDim.x - 1) {
            ctl[ST_BAR_COUNT] = 0;
            ctl[ST_WORK] = gridDim.x;
            ctl[ST_FMIN + (epoch + 1) % 2] = SP_INF;
            __threadfence();
            atomicExch(ctl + ST_BAR_GEN, g + 1);
        } else {
            const long long start = clock64();
            while (*gen == g) {
                if (clock64() - start > ST_SPIN_LIMIT) {
                    atomicExch(ctl + ST_ABORT, 1u);
                    break;
                }
            }
        }
        __threadfence();
        *flag = *(volatile sp_u32*)(ctl + ST_ABORT);
    }
    __syncthreads();
    return *flag != 0;
}

extern "C" __global__ void __launch_bounds__(ST_THREADS, ST_MIN_BLOCKS)
graphsweep_sssp_strips(const long long* __restrict__ off, const int* __restrict__ idx, const int* __restrict__ wt,
                       const sp_u64* __restrict__ ell, sp_u64* word, sp_u32* spill, sp_u32* pile, sp_u64* mailbox,
                       sp_u64* tail, sp_u32* mailed, sp_u32* expanded, sp_u32* ctl, sp_u64* log, long long n,
                       long long size, int log_cap, int list_cap, int hub, int positive, int push, sp_u32 delta,
                       int root, long long max_steps)
{
    const StArgs a = {off, idx, wt, ell, word, spill, pile, mailbox, tail, mailed, expanded, ctl, log, n, size, log_cap,
                      list_cap, hub, positive, push && positive, delta, max_steps};
    extern __shared__ sp_u32 st_dyn[];
    __shared__ StBlock s;
    const long long words = (size + 31) >> 5;
    // queued bits of list j at st_dyn + j words, the in-pile bits after them, then the lists' shared parts
    sp_u32* inpile = st_dyn + 2 * words;
#define ST_BITS(j) (st_dyn + (j) * words)
#define ST_LIST(j) (st_dyn + 3 * words + (j) * list_cap)
    const long long lo = min(n, (long long)blockIdx.x * size), hi = min(n, lo + size);
    const int tid = threadIdx.x, warp = tid >> 5, warps = blockDim.x >> 5;
    // the post: the last warps, which seldom have list entries (one warp does both in a 32-thread block)
    const bool receiver = warp == warps - 1, sender = warp == max(0, warps - 2);
    const bool leader = blockIdx.x == 0 && tid == 0;
    for (long long i = tid; i < 2 * words; i += blockDim.x) st_dyn[i] = 0;
    if (tid == 0) {
        s.count[0] = s.count[1] = 0;
        s.nout[0] = s.nout[1] = 0;
        s.npile = root >= lo && root < hi;      // the host put the root in pile 0
        s.nhubs = 0;
        s.surplus = 0;
        s.head = 0;
        s.busy = s.barrier = s.wakes = s.expand = s.post = s.load = 0;
        s.expand_ns = s.post_ns = s.load_ns = 0;
    }
    const sp_u64 began = st_clock();
    if (leader) a.log[0] = began;
    sp_u64 T = 0, edges = 0, entries = 0, mails = 0, steps = 0;
    int p = 0;                                  // the list to expand
    sp_u32 epoch = 0;
    for (;; ++epoch) {
        // --- bucket start: T, then this block's pile split
        const sp_u64 L = T;
        if (epoch == 0) {
            T = a.delta;
        } else {
            const sp_u32 fmin = __ldcg(a.ctl + ST_FMIN + (epoch - 1) % 2);
            if (fmin == SP_INF) break;
            T = max(L + a.delta, ((sp_u64)fmin / a.delta + 1) * a.delta);
        }
        for (long long i = tid; i < words; i += blockDim.x) inpile[i] = 0;
        __syncthreads();
        const sp_u32 piled = s.npile;
        __syncthreads();
        if (tid == 0) {
            s.npile = 0;
            s.fmin = SP_INF;
            s.held = 1;
        }
        __syncthreads();
        const sp_u32* pile_in = a.pile + (epoch & 1) * n + lo;
        StStep c = {ST_BITS(p), ST_LIST(p), s.out[p], &s.nout[p], inpile, a.pile + ((epoch + 1) & 1) * n + lo, lo,
                    hi, T, p};
        for (sp_u32 i = tid; i < piled; i += blockDim.x) {
            const sp_u32 v = __ldcg(pile_in + i);
            const sp_u32 d = sp_dist(__ldcg(a.word + v));
            if (d >= T) st_file(s, c, v, d);
            else if (d >= L && st_set_bit(ST_BITS(p), (sp_u32)(v - lo))) st_append(a, s, ST_LIST(p), p, lo, v);
        }
        __syncthreads();
        // --- steps until no block has anything below T
        bool aborted = false;
        const sp_u64 steps_before = steps;
        while (true) {
            const sp_u64 stepped = st_clock();  // every thread's own: the step starts as the barrier releases
            const int q = p ^ 1;
            const sp_u32 k = s.count[p];
            c.bits_next = ST_BITS(q);
            c.list_next = ST_LIST(q);
            c.out = s.out[p];
            c.nout = &s.nout[p];
            c.next = q;
            if (receiver) {
                const sp_u64 head = s.head;
                sp_u64 t = 0;
                if ((tid & 31) == 0) t = *(volatile sp_u64*)(a.tail + blockIdx.x * ST_TAIL_STRIDE);
                t = __shfl_sync(SP_FULL, t, 0);
                if (t != head) {
                    st_claim(a, s, c, head, t);
                    __syncwarp();
                    if (tid == (int)blockDim.x - 1) {
                        s.held += (sp_u32)(t - head);
                        s.head = t;
                    }
                }
            }
            if (sender && s.nout[q]) st_send(a, s, s.out[q], min(s.nout[q], (sp_u32)ST_OUTBOX), mails);
#ifdef ST_STEP_CLOCKS
            if (receiver || sender) atomicMax(&s.post_ns, (sp_u32)(st_clock() - stepped));
#endif
            for (sp_u32 i = tid; i < k; i += blockDim.x) {
                const sp_u32 u = st_entry(a, ST_LIST(p), p, lo, i);
                atomicAnd(ST_BITS(p) + ((u - lo) >> 5), ~(1u << ((u - lo) & 31)));
                // u's word and row together: one memory round trip (neighbours, weights, or its CSR range)
                sp_u64 row[ST_ELL];
                const ulonglong2* at = (const ulonglong2*)(a.ell + (sp_u64)ST_ELL * u);
#pragma unroll
                for (int h = 0; h < ST_ELL / 2; ++h) {
                    const ulonglong2 pair = __ldg(at + h);
                    row[2 * h] = pair.x;
                    row[2 * h + 1] = pair.y;
                }
                const sp_u32 du = sp_dist(__ldcg(a.word + u));
                const sp_u32 was = a.push ? __ldcg(a.expanded + u) : SP_INF;
                if (du >= T) {                  // mailed at or past T
                    st_file(s, c, u, du);
                    continue;
                }
                if (a.push) {
                    if (du >= was) continue;    // not shorter since its last expansion
                    a.expanded[u] = du;
                }
#ifdef ST_STEP_CLOCKS
                atomicMax(&s.load_ns, (sp_u32)(st_clock() - stepped));  // u's word has arrived: the branches read it
#endif
                if ((sp_u32)row[0] != ST_WIDE) {
                    st_expand_row(a, s, c, u, du, row, edges, mails);
                    continue;
                }
                const long long start = (long long)row[1], end = (long long)row[2];
                if (end - start > a.hub) {
                    const sp_u32 h = atomicAdd(&s.nhubs, 1u);
                    if (h < ST_HUBS) {
                        s.hub_v[h] = u;
                        s.hub_d[h] = du;
                        continue;
                    }
                }
                edges += end - start;
                st_expand(a, s, c, u, du, start, end, 1, mails);
            }
#ifdef ST_STEP_CLOCKS
            if (tid < k) atomicMax(&s.expand_ns, (sp_u32)(st_clock() - stepped));
#endif
            if (tid == 0) entries += k;
            __syncthreads();
            const sp_u32 hubs = min(s.nhubs, (sp_u32)ST_HUBS);
            for (sp_u32 h = 0; h < hubs; ++h) {
                const sp_u32 u = s.hub_v[h];
                const long long start = __ldg(a.off + u), end = __ldg(a.off + u + 1);
                if (tid == 0) edges += end - start;
                st_expand(a, s, c, u, s.hub_d[h], start + tid, end, blockDim.x, mails);
            }
            if (hubs) {
                __syncthreads();
                if (tid == 0) s.nhubs = 0;
            }
            if (tid == 0) {
                s.count[p] = 0;                 // every entry read; their queued bits are clear
                s.nout[q] = 0;                  // the previous step's outbox is mailed
                s.expand += s.expand_ns;
                s.post += s.post_ns;
                s.load += s.load_ns;
                s.expand_ns = s.post_ns = s.load_ns = 0;
            }
            ++steps;
            __syncthreads();
            if (tid == 0) s.busy += st_clock() - stepped;
            const int filled = p;               // the outbox this step filled, mailed by the next
            p = q;
            if (steps > (sp_u64)a.max_steps) {  // steps are the same in every thread: all leave together
                if (tid == 0) atomicExch(a.ctl + ST_ABORT, 1u);
                aborted = true;
                break;
            }
            if (s.count[p] || s.nout[filled]) continue;
            // idle: give back the units held, then wait for mail or for the bucket's end everywhere
            __threadfence();                    // this block's mail and its counts are performed
            __syncthreads();
            if (tid == 0) {
                const sp_u32 given = s.held + s.surplus;
                sp_u32 state = 3;
                if (given && atomicSub(a.ctl + ST_WORK, given) == given) {   // the last units anywhere
                    atomicExch(a.ctl + ST_DONE, epoch + 1);
                    state = 0;
                }
                s.held = 0;
                s.surplus = 0;
                const long long start = clock64();
                for (sp_u32 spins = 1; state == 3; ++spins) {
                    if (*(volatile sp_u64*)(a.tail + blockIdx.x * ST_TAIL_STRIDE) != s.head) {
                        state = 1;              // mail
                    } else if (*(volatile sp_u32*)(a.ctl + ST_DONE) > epoch) {
                        state = 0;              // bucket done
                    } else if ((spins % 64 == 0 && *(volatile sp_u32*)(a.ctl + ST_ABORT)) ||
                               clock64() - start > ST_SPIN_LIMIT) {
                        atomicExch(a.ctl + ST_ABORT, 1u);
                        state = 2;
                    }
                }
                s.state = state;
            }
            __syncthreads();
            if (tid == 0) s.wakes += s.state == 1;
            if (s.state == 0) break;
            if (s.state == 2) {
                aborted = true;
                break;
            }
        }
        if (aborted) break;
        if (tid == 0 && s.fmin != SP_INF) atomicMin(a.ctl + ST_FMIN + epoch % 2, s.fmin);
        if (tid == 0 && steps > steps_before && epoch < (sp_u32)a.log_cap) {
            atomicMax(a.log + 3 + 4 * (long long)epoch, steps - steps_before);
            atomicAdd(a.log + 4 + 4 * (long long)epoch, 1ull);
        }
        const sp_u64 arrived = st_clock();
        const bool failed = st_barrier(a.ctl, epoch, &s.state);
        if (tid == 0) s.barrier += st_clock() - arrived;
        if (leader && epoch < (sp_u32)a.log_cap) {
            a.log[1 + 4 * (long long)epoch] = T;
            a.log[2 + 4 * (long long)epoch] = st_clock();
        }
        if (failed) break;
    }
    if (edges) atomicAdd((sp_u64*)(a.ctl + ST_EDGES), edges);
    if (tid == 0) {
        atomicAdd((sp_u64*)(a.ctl + ST_ENTRIES), entries);
        atomicAdd((sp_u64*)(a.ctl + ST_STEPS), steps);
        atomicMax(a.ctl + ST_MAX_STEPS, (sp_u32)steps);
        atomicAdd((sp_u64*)(a.ctl + ST_BUSY), s.busy);
        atomicAdd((sp_u64*)(a.ctl + ST_BARRIER), s.barrier);
        atomicAdd((sp_u64*)(a.ctl + ST_SPAN), st_clock() - began);
        atomicAdd((sp_u64*)(a.ctl + ST_WAKES), s.wakes);
        atomicAdd((sp_u64*)(a.ctl + ST_EXPAND), s.expand);
        atomicAdd((sp_u64*)(a.ctl + ST_POST), s.post);
        atomicAdd((sp_u64*)(a.ctl + ST_LOAD), s.load);
    }
    if (mails) atomicAdd((sp_u64*)(a.ctl + ST_MAILS), mails);
    if (leader) a.ctl[ST_EPOCHS] = epoch;
}

// Before the launch: rings empty (lap 0), no mail, nothing expanded, the root in its owner's pile 0, the counter at
// one unit per block, both pile minima INF.
extern "C" __global__ void graphsweep_sssp_strips_init(sp_u64* __restrict__ mailbox, sp_u64* __restrict__ tail,
                                                      sp_u32* __restrict__ mailed, sp_u32* __restrict__ expanded,
                                                      sp_u32* __restrict__ pile,
                                                      sp_u32* __restrict__ ctl, long long n, long long size, int root,
                                                      int blocks)
{
    SP_GRID_STRIDE(i, max(2 * n, (long long)max(blocks * ST_TAIL_STRIDE, ST_CTL_WORDS))) {
        if (i < 2 * n) mailbox[i] = 0;
        if (i < n) expanded[i] = SP_INF;
        if (i < (n + 31) / 32) mailed[i] = 0;
        if (i < blocks * ST_TAIL_STRIDE) tail[i] = 0;
        if (i < ST_CTL_WORDS)
            ctl[i] = i == ST_WORK ? (sp_u32)blocks : (i == ST_FMIN || i == ST_FMIN + 1) ? SP_INF : 0u;
        if (i == 0) pile[(root / size) * size] = (sp_u32)root;
    }
}
