// cc.adaptive: Sutton et al.'s Atomic-Hook and Multi-Jump (004 Figs 3-4), and Soman's Hook and
// Jump for the ablation (004 Fig. 5); all in hooks.cuh.
#include "cc/hooks.cuh"
