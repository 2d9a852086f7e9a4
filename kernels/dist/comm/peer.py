"""Peer memory: buffers every rank of a communicator allocates alike and every other rank maps
(CUDA IPC), for the GPUs of one host joined by NVLink or PCIe peer to peer.

A collective needs its sizes on the host when it is queued, so an exchange whose size the device
decides (a BFS level's claims, a frontier only a bottom-up level reads) must either move a fixed
worst case or wait for the host.  Here a kernel stores straight into the peers' copies of a buffer
(the count the device holds, no more) and meets its peers itself — flags in the same memory
(``flags``), stored with release and read with acquire at system scope, say when every rank's
stores have landed.  No NCCL call, no host round trip: a persistent kernel meets its peers between
two grid barriers (``flags`` and ``meeting()`` give peer.cuh's ``gs_peer_meet`` its arguments;
bfs.distributed's whole search is one launch so).

Made by ``PeerMemory.open(comm)``, collectively (every rank in the same order, as with every
collective); None where a rank cannot map its peers' memory (another host, no peer access), the
caller then keeps to the communicator's collectives.  ``buffer`` is collective too.  A meeting
that waits longer than ``TIMEOUT_S`` for a peer, or whose rank the driver cancelled (the host
sets an abort word the kernel polls), ends with ``error`` set, and so does every later meeting at
once; ``check`` raises it as a ``CommError``.  The memory lives as long as the communicator.
"""

import ctypes

import numpy as np

from . import CommError

TIMEOUT_S = 20.0            # a meeting's longest wait for a peer (less than WAIT_S: the host then sees it)
IPC_LAZY_PEER_ACCESS = 1    # cudaIpcMemLazyEnablePeerAccess
HOST_ALLOC_MAPPED = 2       # cudaHostAllocMapped (portable to every device with unified addressing)


class PeerMemory:
    """Symmetric buffers of one communicator's ranks (see the module doc)."""

    def __init__(self, comm):
        import cupy
        self.comm, self.k, self.me = comm, comm.size, comm.rank
        self._own, self._opened = [], []
        self._abort = cupy.cuda.runtime.hostAlloc(8, HOST_ALLOC_MAPPED)
        ctypes.c_int.from_address(self._abort).value = 0
        self.epoch = cupy.zeros(1, dtype=np.uint64)
        self.error = cupy.zeros(1, dtype=np.int64)
        self.flags = None

    @classmethod
    def open(cls, comm):
        """The communicator's peer memory, or None where a rank cannot map another's (collective)."""
        import cupy
        try:
            peers = cls(comm)
            peers.flags = peers.buffer((comm.size,), np.uint64)
            failed = 0
        except (cupy.cuda.runtime.CUDARuntimeError, cupy.cuda.driver.CUDADriverError, OSError):
            peers, failed = None, 1
        if int(comm.host(comm.allreduce(cupy.asarray([failed], dtype=np.int64), "max"))[0]):
            if peers is not None:
                peers.close()
            return None
        return peers

    def buffer(self, shape, dtype):
        """(this rank's zeroed array, a device array of the K ranks' pointers to theirs) — collective.
        Allocated outside CuPy's pool (an IPC handle names a whole allocation)."""
        import cupy
        from cupy.cuda import runtime
        nbytes = max(int(np.prod(shape)) * np.dtype(dtype).itemsize, 8)
        memory = cupy.cuda.memory.Memory(nbytes)
        self._own.append(memory)
        array = cupy.ndarray(shape, dtype=dtype, memptr=cupy.cuda.MemoryPointer(memory, 0))
        array.fill(0)
        handle = np.frombuffer(runtime.ipcGetMemHandle(memory.ptr), dtype=np.uint8)
        handles = cupy.zeros((self.k, handle.size), dtype=np.uint8)
        handles[self.me] = cupy.asarray(handle)
        self.comm.allgatherv(handles.reshape(-1), np.arange(self.k + 1) * handle.size)
        handles = self.comm.host(handles)
        cupy.cuda.get_current_stream().synchronize()    # the array zeroed before any peer stores into it
        pointers = []
        for j in range(self.k):
            if j == self.me:
                pointers.append(memory.ptr)
            else:
                pointer = runtime.ipcOpenMemHandle(bytes(handles[j]), IPC_LAZY_PEER_ACCESS)
                self._opened.append(pointer)
                pointers.append(pointer)
        return array, cupy.asarray(np.array(pointers, dtype=np.uint64))

    def meeting(self) -> tuple:
        """What a kernel that meets its peers itself takes after the flags' pointers (gs_peer_meet
        in peer.cuh): k, me, the epoch, the host's abort word, the timeout (ns), the error word."""
        return (np.int32(self.k), np.int32(self.me), self.epoch, np.uint64(self._abort), np.int64(TIMEOUT_S * 1e9),
                self.error)

    def cancel(self) -> None:
        """From another thread: every meeting waiting here ends (with ``error`` set)."""
        if self._abort:
            ctypes.c_int.from_address(self._abort).value = 1

    def check(self, what: str) -> None:
        """Raise if a meeting of this memory failed (read on the host through the communicator)."""
        if int(self.comm.host(self.error)[0]):
            raise CommError(f"{what}: a peer barrier waited {TIMEOUT_S:.0f} s for its peers or was cancelled; "
                            f"the run fails")

    def close(self) -> None:
        from cupy.cuda import runtime
        for pointer in self._opened:
            try:
                runtime.ipcCloseMemHandle(pointer)
            except runtime.CUDARuntimeError:     # the device is going: nothing left to unmap
                pass
        self._opened, self._own = [], []
        if self._abort:
            runtime.freeHost(self._abort)
            self._abort = 0
