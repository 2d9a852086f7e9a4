"""graphsweep.pipeline — sweeps on Dask clusters, the result store, reduce and report, and the CLI.

Importing it imports no Dask: the CLI imports its commands (and with them Dask, which reads its
config files on import) where it can report a malformed one in one line (``config``).
"""
