"""Composite ops written only in core ops, shared by every frontend.

One subpackage per family; each package's docstring says what lives there
and where a new op goes:

- ``elementwise``: operands made explicit (broadcast, convert, promotion
  policies), numpy-rule arithmetic, division, rounding, predicates,
  ordering, complex branch cuts, special functions, numpy's ufunc table.
- ``reduce``: axis arguments, reductions and statistics (mean, var,
  softmax, quantiles, covariance), folds of bitwise ops, accumulations.
- ``movement``: shape (reshape, transpose, concatenate...), views and
  strides, rearranging (flip, roll, tile, repeat), padding, bit packing.
- ``creation``: iota, arange/linspace, eye/tri, full, meshgrid.
- ``indexing``: numpy subscripts (basic and advanced), take, gathers and
  scatters along an axis.
- ``linalg``: matmul and contractions, matrix structure (tril, diagonal),
  decompositions and solves, least squares, einsum, distances, Jacobians.
- ``nn``: convolution, pooling, attention, layers, normalization,
  activations, losses, CTC, embedding bags.
- ``signal``: FFTs, short-time transforms, correlation and interpolation.
- ``image``: colour spaces, adjustments, resizing.
- ``random``: samples from a key node.
- ``sets``: distinct values and counting into bins.
- ``sorting``: sort, partition, search, top-k, scans.

Functions take and return ``Node``s; static arguments are Python values.
Modules are named by what they compute, never by a framework; leaves
(constants, scalars, device data) come from ``lazytensor.core.leaves``, and
no composite imports the runtime's leaf constructors.
Import a module (``from lazytensor.core.composite.reduce import
reduction``), never a package: the packages re-export nothing.
"""
