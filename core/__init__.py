"""graphsweep.core — the ground every other package stands on: the error types (``errors``),
parameter declaration and coercion (``params``), the backends' array modules and the device
(``gpu``), and memory and disk capacity (``capacity``).  It imports nothing else of graphsweep,
so datasets, generators, kernels and the pipeline all import it and never each other for these."""
