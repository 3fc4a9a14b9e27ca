"""Losses written only in core ops, shared by every frontend: negative
log-likelihood (class-index targets, optional class weights and an ignored
index), cross entropy from logits (with label smoothing or probability
targets), mean squared error, and their gradients.

Class scores have the class axis ``class_axis`` (1 for torch's (N, C, ...),
-1 for TF's (..., C)); targets have the scores' shape without it.
``reduction`` is "none", "sum" or "mean" (mean divides by the summed weights
of the counted targets, as torch does).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> logp = constant(np.log(np.full((4, 3), 1 / 3)), np.dtype("float32"))
>>> target = constant(np.array([0, 1, 2, 1]), np.dtype("int64"))
>>> nll_loss(logp, target)[0].shape
()
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const, iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.reduce import reduction as red
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make


def _one_hot(target: Node, scores: Node, class_axis: int) -> Node:
    """bool mask, scores' shape: True at each target's class."""
    axis = class_axis % scores.ndim
    classes = iota(scores.shape, axis, dt.int64)
    dims = tuple(d for d in range(scores.ndim) if d != axis)
    t = make(Op.BROADCAST_IN_DIM, (ew.convert(target, dt.int64),), scores.shape, dims)
    return make(Op.EQ, (classes, t))


def _target_weights(target: Node, scores: Node, weight: Node | None, ignore_index: int,
                    class_axis: int) -> Node:
    """Per target: its class weight (1 without weights), 0 where ignored."""
    counted = make(Op.NE, (ew.convert(target, dt.int64),
                           ew.as_node(ignore_index, dt.int64, target.shape)))
    if weight is None:
        w = const(1.0, scores.dtype, target.shape)
    else:
        axis = class_axis % scores.ndim
        per_class = make(Op.BROADCAST_IN_DIM, (ew.convert(weight, scores.dtype),), scores.shape,
                         (axis,))
        picked = make(Op.SELECT, (_one_hot(target, scores, class_axis), per_class,
                                  const(0.0, scores.dtype, scores.shape)))
        w = red.reduce("sum", picked, axis)
    return make(Op.SELECT, (counted, w, const(0.0, scores.dtype, target.shape)))


def _check(scores: Node, target: Node, class_axis: int) -> None:
    if not dt.is_int(target.dtype):
        raise DTypeError(f"expected class indices of an integer dtype, got {target.dtype}")
    axis = class_axis % scores.ndim
    expected = scores.shape[:axis] + scores.shape[axis + 1:]
    if target.shape != expected:
        raise ShapeError(f"expected target of shape {expected} for scores {scores.shape}, got "
                         f"{target.shape}")


def nll_loss(logp: Node, target: Node, weight: Node | None = None, reduction: str = "mean",
             ignore_index: int = -100, class_axis: int = 1) -> tuple[Node, Node]:
    """(loss, total_weight): -weight[t] * logp[t] per target, reduced."""
    axis = class_axis % logp.ndim if logp.ndim > 1 else 0
    _check(logp, target, axis)
    w = _target_weights(target, logp, weight, ignore_index, axis)
    hot = _one_hot(target, logp, axis)
    picked = red.reduce("sum", make(Op.SELECT, (hot, logp, const(0.0, logp.dtype, logp.shape))),
                        axis)
    losses = make(Op.NEG, (make(Op.MUL, (picked, w)),))
    total = red.reduce("sum", w, None)
    if reduction == "none":
        return losses, total
    summed = red.reduce("sum", losses, None)
    if reduction == "sum":
        return summed, total
    return make(Op.DIV, (summed, total)), total


def nll_loss_backward(grad: Node, logp: Node, target: Node, weight: Node | None,
                      reduction: str, ignore_index: int, total_weight: Node,
                      class_axis: int = 1) -> Node:
    """Gradient of ``nll_loss`` with respect to ``logp``."""
    axis = class_axis % logp.ndim if logp.ndim > 1 else 0
    w = _target_weights(target, logp, weight, ignore_index, axis)
    scale = make(Op.NEG, (w,))
    if reduction == "none":
        scale = make(Op.MUL, (scale, ew.convert(grad, logp.dtype)))
    else:
        g = ew.convert(grad, logp.dtype)
        if reduction == "mean":
            g = make(Op.DIV, (g, total_weight))
        scale = make(Op.MUL, (scale, ew.broadcast_to(g, scale.shape)))
    dims = tuple(d for d in range(logp.ndim) if d != axis)
    spread = make(Op.BROADCAST_IN_DIM, (scale,), logp.shape, dims)
    # an ignored target has no class: its gradient is 0 (torch's), also when
    # every target is ignored and the mean's total weight is 0
    t = ew.convert(target, dt.int64)
    kept = make(Op.SELECT, (make(Op.NE, (t, ew.as_node(ignore_index, dt.int64, t.shape))), t,
                            ew.as_node(-1, dt.int64, t.shape)))
    hot = _one_hot(kept, logp, axis)
    return make(Op.SELECT, (hot, spread, const(0.0, logp.dtype, logp.shape)))


def cross_entropy(logits: Node, target: Node, weight: Node | None = None,
                  reduction: str = "mean", ignore_index: int = -100,
                  label_smoothing: float = 0.0, class_axis: int = 1) -> Node:
    """Cross entropy from logits: class-index targets (with label smoothing
    and weights, torch's definition) or class-probability targets."""
    axis = class_axis % logits.ndim
    logp = red.log_softmax(logits, axis)
    if target.dtype == logits.dtype:  # probabilities
        terms = make(Op.MUL, (logp, target))
        if weight is not None:
            terms = make(Op.MUL, (terms, make(Op.BROADCAST_IN_DIM, (weight,), logp.shape,
                                              (axis,))))
        per = make(Op.NEG, (red.reduce("sum", terms, axis),))
        return _reduce(per, reduction, float(_count(per)))
    loss, total = nll_loss(logp, target, weight, reduction, ignore_index, axis)
    if label_smoothing <= 0.0:
        return loss
    classes = logits.shape[axis]
    w = _target_weights(target, logp, None, ignore_index, axis)
    terms = logp if weight is None else make(Op.MUL, (logp, make(
        Op.BROADCAST_IN_DIM, (weight,), logp.shape, (axis,))))
    smooth = make(Op.MUL, (make(Op.NEG, (red.reduce("sum", terms, axis),)), w))
    if reduction == "mean":
        smooth = make(Op.DIV, (red.reduce("sum", smooth, None), total))
    elif reduction == "sum":
        smooth = red.reduce("sum", smooth, None)
    eps = label_smoothing
    return make(Op.ADD, (make(Op.MUL, (loss, const(1.0 - eps, loss.dtype, loss.shape))),
                         make(Op.MUL, (smooth, const(eps / classes, loss.dtype, loss.shape)))))


def _count(x: Node) -> int:
    n = 1
    for s in x.shape:
        n *= s
    return n


def _reduce(per: Node, reduction: str, count: float) -> Node:
    if reduction == "none":
        return per
    total = red.reduce("sum", per, None)
    if reduction == "sum":
        return total
    return make(Op.DIV, (total, const(count, total.dtype)))


def l2_loss(x: Node) -> Node:
    """sum(x ** 2) / 2 over every element (a 0-d result of x's dtype)."""
    total = red.reduce("sum", make(Op.MUL, (x, x)))
    return make(Op.MUL, (total, const(0.5, x.dtype)))


def mse_loss(x: Node, y: Node, reduction: str = "mean") -> Node:
    """(x - y)^2, reduced."""
    d = make(Op.SUB, (x, y))
    return _reduce(make(Op.MUL, (d, d)), reduction, float(_count(d)))


def mse_loss_backward(grad: Node, x: Node, y: Node, reduction: str = "mean") -> Node:
    """2 (x - y) * grad (divided by the count for "mean")."""
    d = make(Op.SUB, (x, y))
    g = ew.broadcast_to(ew.convert(grad, x.dtype), x.shape)
    scale = 2.0 / _count(x) if reduction == "mean" else 2.0
    return make(Op.MUL, (make(Op.MUL, (d, g)), const(scale, x.dtype, x.shape)))


def softplus_neg_abs(x: Node) -> Node:
    """log(1 + exp(-|x|)), the stable tail of the logistic losses; |x| is
    x sign(x), whose derivative is sign(x) (0 at x = 0, as TensorFlow's Abs
    gradient; a bare ABS node gives 1 there under autodiff)."""
    magnitude = make(Op.MUL, (x, make(Op.SIGN, (x,))))
    return make(Op.LOG1P, (make(Op.EXP, (make(Op.NEG, (magnitude,)),)),))


def sigmoid_cross_entropy(logits: Node, labels: Node, pos_weight: Node | None = None) -> Node:
    """Per-element logistic loss from logits ``x`` and labels ``z`` (one
    shape and dtype), written to be stable for large |x|:
    max(x, 0) - x z + log(1 + exp(-|x|)); with ``pos_weight`` q (positive
    examples weighted by q, torch's and TensorFlow's weighted form):
    (1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0)).

    The kinks are written as TensorFlow writes them, so that autodiff gives
    its gradients at x = 0 (where training from zero weights starts): the
    unweighted form selects on x >= 0 (max(x, 0) and -|x| both take the
    x >= 0 branch: the derivative there is sigmoid(x) - z = 0.5 - z); the
    weighted form has relu's and |x|'s derivatives 0 at 0 (1 - z there).

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> x = constant(np.array([-2.0, 0.0, 3.0]), np.dtype("float32"))
    >>> sigmoid_cross_entropy(x, x).shape
    (3,)
    """
    x, z = logits, labels
    zero = const(0.0, x.dtype, x.shape)
    if pos_weight is None:
        nonneg = make(Op.GE, (x, zero))
        hinge = make(Op.SELECT, (nonneg, x, zero))
        neg_abs = make(Op.SELECT, (nonneg, make(Op.NEG, (x,)), x))
        tail = make(Op.LOG1P, (make(Op.EXP, (neg_abs,)),))
        return make(Op.ADD, (make(Op.SUB, (hinge, make(Op.MUL, (x, z)))), tail))
    one = const(1.0, x.dtype, x.shape)
    q = ew.broadcast_to(pos_weight, x.shape)
    log_weight = make(Op.ADD, (one, make(Op.MUL, (make(Op.SUB, (q, one)), z))))
    neg_x = make(Op.NEG, (x,))
    hinge = make(Op.SELECT, (make(Op.LE, (neg_x, zero)), zero, neg_x))  # relu(-x), 0' at 0
    return make(Op.ADD, (make(Op.MUL, (make(Op.SUB, (one, z)), x)),
                         make(Op.MUL, (log_weight, make(Op.ADD, (softplus_neg_abs(x), hinge))))))


def poisson_nll(log_input: Node, target: Node, full: bool = False) -> Node:
    """Per-element Poisson negative log-likelihood from the log rate x:
    exp(x) - x t; ``full`` adds Stirling's approximation of log(t!),
    t log t - t + log(2 pi t) / 2, where t > 1 (0 elsewhere), as torch's
    ``poisson_nll_loss(full=True)`` and TensorFlow's
    ``log_poisson_loss(compute_full_loss=True)`` do.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> t = constant(np.array([0.0, 1.0, 4.0]), np.dtype("float32"))
    >>> poisson_nll(t, t, full=True).dtype
    dtype('float32')
    """
    x, t = log_input, target
    loss = make(Op.SUB, (make(Op.EXP, (x,)), make(Op.MUL, (x, t))))
    if not full:
        return loss
    half_log_2pi_t = make(Op.MUL, (const(0.5, t.dtype, t.shape), make(Op.LOG, (
        make(Op.MUL, (const(2 * math.pi, t.dtype, t.shape), t)),))))
    stirling = make(Op.ADD, (make(Op.SUB, (make(Op.MUL, (t, make(Op.LOG, (t,)))), t)),
                             half_log_2pi_t))
    counted = make(Op.GT, (t, const(1.0, t.dtype, t.shape)))
    return make(Op.ADD, (loss, make(Op.SELECT, (counted, stirling,
                                                const(0.0, t.dtype, t.shape)))))


def sparse_cross_entropy(logits: Node, labels: Node, class_axis: int = -1) -> Node:
    """Per-example cross entropy from logits and integer class ``labels``
    (the logits' shape without ``class_axis``). A label outside
    [0, classes) gives NaN: a lazy graph cannot raise on a value, and NaN
    (TensorFlow's answer on GPU) never passes for a loss.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> logits = constant(np.zeros((4, 3)), np.dtype("float32"))
    >>> sparse_cross_entropy(logits, constant(np.array([0, 1, 2, 3]), np.dtype("int32"))).shape
    (4,)
    """
    axis = class_axis % logits.ndim
    _check(logits, labels, axis)
    loss, _ = nll_loss(red.log_softmax(logits, axis), labels, None, "none", -1, axis)
    index = ew.convert(labels, dt.int64)
    classes = logits.shape[axis]
    inside = make(Op.AND, (make(Op.GE, (index, const(0, dt.int64, index.shape))),
                           make(Op.LT, (index, const(classes, dt.int64, index.shape)))))
    return make(Op.SELECT, (inside, loss, const(math.nan, loss.dtype, loss.shape)))


def _hinge(z: Node) -> Node:
    """max(z, 0), with a zero gradient at the kink (as torch's kernels)."""
    zero = const(0.0, z.dtype, z.shape)
    return make(Op.SELECT, (make(Op.GT, (z, zero)), z, zero))


def multi_margin_loss(x: Node, target: Node, p: int = 1, margin: float = 1.0,
                      weight: Node | None = None, reduction: str = "mean") -> Node:
    """Multi-class hinge loss of (N, C) (or (C,), or one 0-d) scores and class targets:
    per row, sum over classes i != y of w[y] * max(0, margin - x[y] +
    x[i])^p, divided by C (torch's ``multi_margin_loss``, p 1 or 2).

    Shape rule: the target's shape for "none", else a scalar."""
    out_shape = target.shape
    if x.ndim < 2:
        x = make(Op.RESHAPE, (x,), (1, _count(x)))
    target = make(Op.RESHAPE, (target,), (x.shape[0],))
    hot = _one_hot(target, x, 1)
    zero = const(0.0, x.dtype, x.shape)
    own = red.reduce("sum", make(Op.SELECT, (hot, x, zero)), 1)
    z = make(Op.ADD, (make(Op.SUB, (ew.as_node(margin, x.dtype, x.shape),
                                    make(Op.BROADCAST_IN_DIM, (own,), x.shape, (0,)))), x))
    h = _hinge(z)
    if p == 2:
        h = make(Op.MUL, (h, h))
    if weight is not None:
        per_class = make(Op.BROADCAST_IN_DIM, (ew.convert(weight, x.dtype),), x.shape, (1,))
        picked = red.reduce("sum", make(Op.SELECT, (hot, per_class, zero)), 1)
        h = make(Op.MUL, (h, make(Op.BROADCAST_IN_DIM, (picked,), x.shape, (0,))))
    per = red.reduce("sum", make(Op.SELECT, (hot, zero, h)), 1)
    per = make(Op.DIV, (per, const(float(x.shape[1]), x.dtype, per.shape)))
    per = make(Op.RESHAPE, (per,), out_shape)
    return _reduce(per, reduction, float(_count(per)))


def multilabel_margin_loss(x: Node, target: Node, reduction: str = "mean",
                           ) -> tuple[Node, Node]:
    """(loss, is_target): multi-label hinge loss of (N, C) (or (C,), or 0-d) scores
    and (N, C) targets that list each row's classes up to the first -1 (the
    slots after it are ignored): per row, the sum over listed classes j and
    unlisted classes i of max(0, 1 - (x[j] - x[i])), divided by C.
    ``is_target`` (x's shape and dtype) marks the listed classes.

    Shape rule: (N,) for "none" ((), for a 0-d or 1-d x), else a scalar."""
    rows = make(Op.RESHAPE, (x,), (1, _count(x))) if x.ndim < 2 else x
    n, c = rows.shape
    t = make(Op.RESHAPE, (ew.convert(target, dt.int64),), (n, c))
    listed = make(Op.CUMMIN, (ew.convert(make(Op.NE, (t, const(-1, dt.int64, t.shape))),
                                         dt.int64),), 1, False)
    listed = make(Op.NE, (listed, const(0, dt.int64, t.shape)))
    slot = make(Op.SELECT, (listed, t, const(c, dt.int64, t.shape)))
    coords = make(Op.CONCATENATE, (make(Op.RESHAPE, (iota(t.shape, 0), ), (n, c, 1)),
                                   make(Op.RESHAPE, (slot,), (n, c, 1))), 2)
    zero = const(0.0, rows.dtype, rows.shape)
    is_target = make(Op.SCATTER, (zero, coords, const(1.0, rows.dtype, rows.shape)), (),
                     (0, 1), (0, 1), (), (), "max", "fill")
    hot = make(Op.EQ, (make(Op.BROADCAST_IN_DIM, (make(Op.SELECT, (
        listed, t, const(0, dt.int64, t.shape))),), (n, c, c), (0, 1)), iota((n, c, c), 2)))
    wide = make(Op.BROADCAST_IN_DIM, (rows,), (n, c, c), (0, 2))
    own = red.reduce("sum", make(Op.SELECT, (hot, wide, const(0.0, rows.dtype, wide.shape))), 2)
    z = make(Op.ADD, (make(Op.SUB, (const(1.0, rows.dtype, wide.shape),
                                    make(Op.BROADCAST_IN_DIM, (own,), wide.shape, (0, 1)))),
                      wide))
    counted = make(Op.AND, (make(Op.BROADCAST_IN_DIM, (listed,), wide.shape, (0, 1)),
                            make(Op.BROADCAST_IN_DIM, (make(Op.EQ, (is_target, zero)),),
                                 wide.shape, (0, 2))))
    h = make(Op.SELECT, (counted, _hinge(z), const(0.0, rows.dtype, wide.shape)))
    per = make(Op.DIV, (red.reduce("sum", h, (1, 2)), const(float(c), rows.dtype, (n,))))
    if x.ndim < 2:
        per, is_target = make(Op.RESHAPE, (per,), ()), make(Op.RESHAPE, (is_target,), x.shape)
    return _reduce(per, reduction, float(_count(per))), is_target
