"""Creation: arrays made from shapes and scalars, no array operand.

- ``arrays``: iota, arange, linspace/logspace/geomspace, eye/identity/tri,
  full/zeros/ones, meshgrid, indices.

A new constructor goes in ``arrays``; a leaf (a constant, a Python scalar,
device data) comes from ``lazytensor.core.leaves``.
"""
