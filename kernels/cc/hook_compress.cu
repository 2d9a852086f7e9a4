// cc.hook-compress: Soman et al.'s Hook and Jump kernels (004 Figs 1-2); all in hooks.cuh.
#include "cc/hooks.cuh"
