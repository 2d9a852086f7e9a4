// listrank.wyllie: pointer jumping on packed (rank, next) words.  All kernels are in common.cuh;
// this file instantiates them for the successor and rank types.
#include "listrank/common.cuh"
