"""Sorting and searching.

- ``sort``: sort/argsort, lexsort, partition, searchsorted, top_k,
  cumulative scans, diff, clip, mode.

A new op that orders elements goes in ``sort``.
"""
