"""Movement: outputs whose elements are the input's elements moved.

- ``shape``: reshape, squeeze, transpose/moveaxis, broadcast, concatenate,
  stack, split.
- ``rearrange``: flip, roll, rot90, tile, repeat, resize.
- ``padding``: numpy.pad's modes.
- ``bitpack``: packbits/unpackbits.
- ``views``: (forward, backward) pairs for ops that return views.
- ``strides``: strided layouts of views (torch and numpy strides).

A new op that only moves elements goes here: static patterns as slices and
concatenates, never a gather (that is ``indexing``).
"""
