"""Shape/dtype rules, one module per op family; importing this package
registers every core op exactly once."""

from lazytensor.core.rules import (  # noqa: F401  (registration by import)
    autodiff,
    contract,
    elementwise,
    fourier,
    generators,
    indexing,
    leaves,
    movement,
    placement,
    reduce,
)
