"""Sets and counts.

- ``distinct``: distinct values and runs (unique, unique_consecutive).
- ``counting``: bincount into a known length, confusion matrices,
  histograms of fixed width, sequence masks.

A new op that groups equal values goes in ``distinct``; one that counts
into bins of a known size in ``counting``.
"""
