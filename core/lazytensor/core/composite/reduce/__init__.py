"""Reductions: outputs that combine elements along axes.

- ``axes``: axis arguments (``normalize_axis``, ``AxisError``), used by
  every family that takes an axis.
- ``reduction``: sum/prod/max/min/all/any, mean, var, std, logsumexp,
  softmax, argmax/argmin, masked and weighted means.
- ``folds``: reductions and scans of ops without a reduce primitive
  (bitwise and/or/xor, logical xor), and each reduction's identity.
- ``accumulate``: half-precision accumulation, vector norms, running
  extrema, order statistics by sorting.
- ``statistics``: quantiles and medians, covariance, correlation, isin.
- ``numerics``: finite-difference gradients, histograms, digitize,
  NaN-ignoring arg-reductions, trapezoid, polynomials.

A new reduction over axes goes in ``reduction`` (a kind with a reduce
primitive) or ``folds`` (one without); a statistic in ``statistics``.
"""
