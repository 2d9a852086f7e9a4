"""graphsweep.datasets — the on-disk dataset format, its writer, reader, validation and importers."""

from graphsweep.core.errors import DatasetError, GraphsweepError, ListStructureError, ParameterError, VerificationError
from .format import is_dataset, read_manifest
from .reader import Dataset, read
from .structure import check_list
from .validate import validate
from .writer import abort, begin, commit, write_arrays, write_part

__all__ = ["Dataset", "DatasetError", "GraphsweepError", "ListStructureError", "ParameterError",
           "VerificationError", "abort", "begin", "check_list", "commit", "is_dataset", "read",
           "read_manifest", "validate", "write_arrays", "write_part"]
