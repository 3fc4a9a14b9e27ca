"""Strided-layout math (``lazytensor.core.layout``) against numpy's own
answers: view-or-copy of reshapes, strides of views, K-order outputs."""

import numpy as np
import pytest
from lazytensor.core import layout


def _st(a: np.ndarray):
    return layout.normalize(a.shape, a.strides, a.itemsize)


CASES = [
    (np.arange(24.0).reshape(2, 3, 4), (1, 0, 2)),
    (np.arange(24.0).reshape(2, 3, 4), (2, 1, 0)),
    (np.arange(24).reshape(4, 6)[:, ::2], None),
    (np.arange(24).reshape(4, 6)[::2], None),
]


@pytest.mark.parametrize("base, perm", CASES)
@pytest.mark.parametrize("newshape", [(-1,), (2, -1), (3, -1, 1)])
def test_reshape_view_or_copy_matches_numpy(base, perm, newshape):
    a = base if perm is None else base.transpose(perm)
    target = np.empty(a.size).reshape(newshape).shape
    got = layout.reshape_strides(a.shape, _st(a), target, a.itemsize)
    view = a.view()
    try:
        view.shape = target  # numpy refuses when it would have to copy
    except AttributeError:
        assert got is layout.COPY
        return
    assert got is not layout.COPY
    ours = layout.full(target, got, a.itemsize)
    assert [s for n, s in zip(target, ours, strict=True) if n != 1] == \
        [s for n, s in zip(target, view.strides, strict=True) if n != 1]  # size-1 axes: any stride


def test_view_strides_match_numpy():
    a = np.arange(60.0).reshape(3, 4, 5)
    assert layout.full((5, 4, 3), layout.transpose(a.shape, None, 8, (2, 1, 0)), 8) == \
        a.transpose(2, 1, 0).strides
    b = np.broadcast_to(a[:, :1], (2, 3, 4, 5))
    got = layout.broadcast((3, 1, 5), _st(a[:, :1]), 8, (2, 3, 4, 5))
    assert got == b.strides
    d = np.diagonal(a, 0, 0, 2)
    assert layout.full(d.shape, layout.diagonal(a.shape, None, 8, 0, 2, d.shape), 8) == d.strides
    items = [slice(None, None, 2), 1, None]
    s = a[::2, 1, None]
    assert layout.full(s.shape, layout.index_strides(a.shape, None, 8, items), 8) == s.strides


def test_fresh_output_follows_operand_order():
    t = np.ones((3, 4)).T
    out = np.add(t, 1.0)
    assert layout.fresh(out.shape, [(t.shape, _st(t), 8)], 8) == out.strides
    assert layout.memory_order(t.strides) == (1, 0)
    assert layout.is_f_contiguous(t.shape, t.strides, 8)
