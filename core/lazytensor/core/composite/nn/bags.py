"""Bags of embeddings, written only in core ops for every frontend: the
sum, mean or maximum of table rows grouped into bags by offsets (torch's
``EmbeddingBag``, TensorFlow's ``embedding_lookup_sparse`` combiners), their
gradients, and the max-norm renormalization of the rows a batch looks up.

A bag holds the positions from its offset up to the next bag's offset;
positions past the last offset join the last bag. A ``padding_idx`` entry
is skipped: it adds nothing, is not counted by a mean, and gets no gradient.
An empty bag gives zeros.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> table = constant(np.ones((10, 3)), np.dtype("float32"))
>>> ids = constant(np.array([1, 2, 4, 5, 9]), np.dtype("int64"))
>>> offsets = constant(np.array([0, 2, 2]), np.dtype("int64"))
>>> [n.shape for n in embedding_bag(table, ids, offsets, 3, "max")]
[(3, 3), (5,), (3,), (3, 3)]
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.movement.shape import reshape
from lazytensor.core.composite.nn.functional import embedding, embedding_backward, segment_reduce
from lazytensor.core.composite.reduce import accumulate as accumulate
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import make


def _rows(x: Node, shape) -> Node:
    """A per-position (or per-bag) vector spread over its rows."""
    return make(Op.BROADCAST_IN_DIM, (x,), tuple(shape), (0,))


def _kept(indices: Node, padding_idx: int | None) -> Node:
    """bool per position: not the padding index."""
    if padding_idx is None:
        return const(True, dt.bool_, indices.shape)
    return make(Op.NE, (ew.convert(indices, dt.int64),
                        const(padding_idx, dt.int64, indices.shape)))


def bag_ids(offsets: Node, length: int, num_bags: int) -> Node:
    """The bag of each of ``length`` positions (int64): how many of
    offsets[1:num_bags] lie at or before it (a mark at each bag start,
    summed up), so positions past the last offset join the last bag."""
    if num_bags <= 1 or length == 0:
        return const(0, dt.int64, (length,))
    starts = make(Op.SLICE, (ew.convert(offsets, dt.int64),), (1,), (num_bags,), (1,))
    marks = segment_reduce(const(1, dt.int64, starts.shape), starts, length)
    return make(Op.CUMSUM, (marks,), 0, False)


def embedding_bag(table: Node, indices: Node, offsets: Node, num_bags: int, mode: str,
                  weights: Node | None = None, padding_idx: int | None = None,
                  ) -> tuple[Node, Node, Node, Node]:
    """(out, bag of each position, entries counted per bag, argmax rows):
    ``mode`` "sum" (of rows times ``weights``, one per position), "mean" or
    "max" of the (V, D) ``table`` rows named by the 1-d ``indices``. The
    argmax (max mode) is, per bag and feature, the table row of the first
    maximum (0 for an empty bag).

    Shape rule: out (num_bags, D) in the table's dtype; (N,), (num_bags,)
    and (num_bags, D) int64."""
    length, width = indices.shape[0], table.shape[1]
    bag = bag_ids(offsets, length, num_bags)
    rows = embedding(table, indices)
    keep = _rows(_kept(indices, padding_idx), rows.shape)
    counts = segment_reduce(ew.convert(_kept(indices, padding_idx), dt.int64), bag, num_bags)
    shape = (num_bags, width)
    full = make(Op.GT, (_rows(counts, shape), const(0, dt.int64, shape)))
    zero = const(0, table.dtype, shape)
    if mode == "max":
        low = const(-math.inf, rows.dtype, rows.shape)
        top = segment_reduce(make(Op.SELECT, (keep, rows, low)), bag, num_bags, "max")
        at_top = make(Op.AND, (keep, make(Op.EQ, (rows, embedding(top, bag)))))
        position = make(Op.SELECT, (at_top, iota(rows.shape, 0), const(length, dt.int64,
                                                                            rows.shape)))
        argmax = const(0, dt.int64, shape)
        if length:  # the row of each bag's first maximum (0 for an empty bag)
            first = segment_reduce(position, bag, num_bags, "min")
            argmax = make(Op.SELECT, (full, embedding(ew.convert(indices, dt.int64), first),
                                      argmax))
        return make(Op.SELECT, (full, top, zero)), bag, counts, argmax
    if weights is not None:
        rows = make(Op.MUL, (rows, _rows(ew.convert(weights, rows.dtype), rows.shape)))
    out = segment_reduce(make(Op.SELECT, (keep, rows, const(0, rows.dtype, rows.shape))),
                         bag, num_bags)
    if mode == "mean":
        divisor = make(Op.MAX, (counts, const(1, dt.int64, counts.shape)))
        out = make(Op.DIV, (out, _rows(ew.convert(divisor, out.dtype), shape)))
    return out, bag, counts, const(0, dt.int64, shape)


def embedding_bag_backward(grad: Node, indices: Node, bag: Node, counts: Node, argmax: Node,
                           num_rows: int, mode: str, weights: Node | None = None,
                           padding_idx: int | None = None) -> Node:
    """The gradient of ``embedding_bag`` with respect to its (num_rows, D)
    table, from the (num_bags, D) ``grad`` and the forward's bags, counts
    and argmax rows."""
    width = grad.shape[1]
    if mode == "max":
        full = make(Op.GT, (_rows(counts, grad.shape), const(0, counts.dtype, grad.shape)))
        g = make(Op.SELECT, (full, grad, const(0, grad.dtype, grad.shape)))
        flat = make(Op.ADD, (make(Op.MUL, (ew.convert(argmax, dt.int64),
                                           const(width, dt.int64, grad.shape))),
                             iota(grad.shape, 1)))
        out = segment_reduce(reshape(g, (-1,)), reshape(flat, (-1,)), num_rows * width)
        return reshape(out, (num_rows, width))
    rows = embedding(grad, bag)
    if mode == "mean":
        per = make(Op.MAX, (embedding(ew.convert(counts, dt.int64), bag),
                            const(1, dt.int64, bag.shape)))
        rows = make(Op.DIV, (rows, _rows(ew.convert(per, rows.dtype), rows.shape)))
    if weights is not None:
        rows = make(Op.MUL, (rows, _rows(ew.convert(weights, rows.dtype), rows.shape)))
    return embedding_backward(rows, indices, num_rows, padding_idx)


def by_frequency(rows: Node, indices: Node, num_rows: int) -> Node:
    """Each position's gradient row divided by how often its index occurs
    in ``indices`` (embedding's ``scale_grad_by_freq``)."""
    ids = reshape(ew.convert(indices, dt.int64), (-1,))
    seen = segment_reduce(const(1, dt.int64, ids.shape), ids, num_rows)
    flat = reshape(rows, (ids.shape[0], -1))
    scaled = make(Op.DIV, (flat, _rows(ew.convert(embedding(seen, ids), rows.dtype),
                                       flat.shape)))
    return reshape(scaled, rows.shape)


def embedding_bag_weights_backward(grad: Node, table: Node, indices: Node, bag: Node,
                                   padding_idx: int | None = None) -> Node:
    """The gradient of a "sum" ``embedding_bag`` with respect to its
    per-position weights: each position's table row dotted with its bag's
    gradient (0 for padding).

    Shape rule: (N,) in the grad's dtype."""
    rows = make(Op.MUL, (embedding(ew.convert(table, grad.dtype), indices),
                         embedding(grad, bag)))
    dots = red.reduce("sum", rows, 1)
    return make(Op.SELECT, (_kept(indices, padding_idx), dots, const(0, dots.dtype,
                                                                      dots.shape)))


def renorm_rows(table: Node, indices: Node, max_norm: float, p: float) -> Node:
    """``table`` whose rows named by ``indices`` with a p-norm above
    ``max_norm`` are scaled to max_norm / (norm + 1e-7) of themselves
    (torch's ``embedding_renorm_``; the other rows unchanged)."""
    norms = accumulate.vector_norm(table, p, (1,))
    ids = reshape(ew.convert(indices, dt.int64), (-1,))
    used = segment_reduce(const(1, dt.int64, ids.shape), ids, table.shape[0], "max")
    limit = ew.as_node(max_norm, norms.dtype, norms.shape)
    over = make(Op.AND, (make(Op.GT, (used, const(0, dt.int64, used.shape))),
                         make(Op.GT, (norms, limit))))
    scale = make(Op.DIV, (limit, make(Op.ADD, (norms, const(1e-7, norms.dtype, norms.shape)))))
    scale = make(Op.SELECT, (over, scale, const(1, norms.dtype, norms.shape)))
    return make(Op.MUL, (table, _rows(scale, table.shape)))
