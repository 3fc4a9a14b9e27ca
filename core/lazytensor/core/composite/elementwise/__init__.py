"""Elementwise composites: one output element from the same element of
each operand.

- ``apply``: the helpers every family uses: broadcasting, conversion,
  Python scalars as nodes, ``apply``/``promote`` with explicit convert and
  broadcast nodes.
- ``promotion``: type promotion as data, one ``Policy`` per framework.
- ``predicates``: isnan/isinf/isfinite, sign bits, truthiness, isclose.
- ``arithmetic``: logaddexp, hypot, ldexp/frexp, absolute, sign, powers.
- ``division``: floor division, remainder, fmod, reciprocal, gcd/lcm.
- ``rounding``: floor, ceil, rint, trunc, modf, rounding to decimals.
- ``ordering``: comparisons (complex lexicographic), maximum/minimum.
- ``formulas``: closed forms (logit, xlogy, lerp, Bessel, ndtri, sinc...).
- ``branch_cuts``: complex functions on their branch cuts.
- ``complex_special``: C99 Annex G special values of complex functions.
- ``complex_special``: complex functions at infinities, NaNs and signed
  zeros (C99 Annex G).
- ``special``: polygamma and orthogonal polynomials.
- ``ufuncs``: numpy's ufuncs by name, mapped to the functions above.

A new elementwise op goes in the module of its kind above (a new kind: a
new module here); its operands already share a shape and dtype.
"""
