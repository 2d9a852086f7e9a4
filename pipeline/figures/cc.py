"""Connected components' figures.  Sutton's adaptive CC hooks each vertex's edges in ``segments``
(2|E|/|V| of them by default): like thread blocks, a parallelism knob, so a sweep of it is drawn as
the speed-up over the fewest (004 Fig. 6).  CC's iterations per dataset family are ``rounds``'."""

from .swept import speedup_axis

speedup_axis("segments")
