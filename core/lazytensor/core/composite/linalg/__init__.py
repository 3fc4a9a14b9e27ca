"""Linear algebra.

- ``matmul``: matmul with broadcast batches, tensordot, triangular and
  Cholesky solves, band and diagonal matrices.
- ``products``: numpy's dot, inner, outer, vdot, kron, cross.
- ``matrix``: tril/triu, diagonal, trace, diag.
- ``decompositions``: solves, inverses, determinants, matrix powers and
  norms on the core's factorizations.
- ``lstsq``: pinv, rank, least squares, polyfit, cond.
- ``factor_info``: LAPACK's ``info`` of a factorization.
- ``einsum``, ``distance`` (pairwise), ``jacobian`` (grouped gradients).

A new op on matrices goes in the module of its kind above.
"""
