"""A CSR's entries streamed to the device in blocks of whole rows, for the kernels that read a
host-placed graph at the link's copy speed rather than through mapped loads.

``CsrBlocks(csr, entries)`` cuts the rows into blocks of at most ``entries`` entries (a row longer
than that is a block of its own).  ``each(work)`` calls ``work(block, r0, r1, lo, count)`` for
every block on the current stream, where ``block`` is a device array of entries
``[lo, lo + count)`` of rows ``[r0, r1)``.  A host-placed CSR is copied block by block into two
device buffers on a second stream: the copy of block k + 1 runs while ``work`` runs on block k
(events order each buffer's copy after the work that last read it).  A device-placed CSR is
handed over in place, so the same kernel runs on either placement.
"""

import numpy as np

from .sliced import slice_bounds

BLOCK_ENTRIES = 1 << 27      # 512 MB of int32 indices per block: copies long enough to run at link speed


def csr_blocks(inp, entries: int = BLOCK_ENTRIES) -> "CsrBlocks":
    """The input's CSR in blocks of at most ``entries`` entries, made once per input and block size
    and shared by the kernels that stream it (cc.streaming, bfs.emogi: one set of row bounds and of
    device buffers, not one per kernel)."""
    key = ("csr.blocks", entries)
    if key not in inp.cache:
        inp.cache[key] = CsrBlocks(inp.csr(), entries)
    return inp.cache[key]


class CsrBlocks:
    def __init__(self, csr, entries: int = BLOCK_ENTRIES):
        self.csr = csr
        offsets = csr.host.offsets if csr.host is not None else _host(csr.offsets)
        self.bounds = [(r0, r1, int(offsets[r0]), int(offsets[r1])) for r0, r1 in slice_bounds(offsets, entries)]
        self.largest = max((hi - lo for _, _, lo, hi in self.bounds), default=0)
        self._buffers = None

    @property
    def streamed(self) -> bool:
        """Whether blocks cross the link (the CSR is in host memory)."""
        return self.csr.host is not None

    @property
    def link_bytes(self) -> int:
        """Bytes one pass copies over the link."""
        return self.csr.indices.nbytes if self.streamed else 0

    def each(self, work) -> None:
        if not self.streamed:
            for r0, r1, lo, hi in self.bounds:
                work(self.csr.indices[lo:hi], r0, r1, lo, hi - lo)
            return
        import cupy

        from .. import pinned
        if self._buffers is None:  # kept across runs: the reps reuse them
            dtype = self.csr.indices.dtype
            self._buffers = [cupy.empty(self.largest, dtype=dtype) for _ in range(2)]
            self._copier = cupy.cuda.Stream(non_blocking=True)
        compute = cupy.cuda.get_current_stream()
        copied = [cupy.cuda.Event(disable_timing=True) for _ in range(2)]
        done = [None, None]
        source = self.csr.host.indices

        def copy(k: int) -> None:
            r0, r1, lo, hi = self.bounds[k]
            b = k % 2
            if done[b] is not None:
                self._copier.wait_event(done[b])
            pinned.copy_to_device(self._buffers[b][:hi - lo], source[lo:hi], self._copier)
            copied[b].record(self._copier)

        if self.bounds:
            self._copier.wait_event(_recorded(compute))  # nothing copies before the phase starts
            copy(0)
        for k, (r0, r1, lo, hi) in enumerate(self.bounds):
            if k + 1 < len(self.bounds):
                copy(k + 1)
            b = k % 2
            compute.wait_event(copied[b])
            work(self._buffers[b][:hi - lo], r0, r1, lo, hi - lo)
            done[b] = _recorded(compute)


def _recorded(stream):
    import cupy
    event = cupy.cuda.Event(disable_timing=True)
    event.record(stream)
    return event


def _host(arr):
    return arr.get() if hasattr(arr, "get") else np.asarray(arr)
