"""Indexing: reading and writing elements at computed positions.

- ``parse``: numpy index objects parsed into tokens (host only).
- ``subscript``: numpy basic and advanced indexing, and its update.
- ``take``: take, take_along_axis, put_along_axis, compress, choose,
  select, ix.
- ``along``: gathers and scatters along one axis (torch gather/scatter,
  tf gather_nd/tensor_scatter_nd), searchsorted over batches.

A new gather or scatter goes in ``along`` (index arrays of the operand's
rank) or ``take`` (numpy's take family).
"""
