"""Bugs found by running a fourth round of tnp user programs: each case runs
eagerly (tnp) and lazily (lazytensor.tf.numpy) and must give the same
values, dtypes and shapes."""

from __future__ import annotations

from tf_helpers import assert_same, lnp, tnp


def complex_sample_paths(np_):
    """Points on a segment of the complex plane (a contour for a numerical
    integral): Python complex end points make a complex128 linspace."""
    return [np_.linspace(0, 1 + 1j, 5), np_.linspace(1j, 2j, 3),
            *np_.linspace(0, 1 + 1j, 3, retstep=True), np_.linspace(0j, 1, 4, endpoint=False),
            np_.linspace(2.5, 1j, 3, dtype="complex64")]


def test_linspace_with_python_complex_end_points_matches_tnp():
    """``linspace(0, 1 + 1j, 5)`` raised TypeError (the end points were cast
    to the default float)."""
    assert_same(complex_sample_paths(lnp), complex_sample_paths(tnp))
