"""Connectionist temporal classification (Graves et al., 2006): the negative
log-likelihood of label sequences under per-frame log-probabilities, by the
forward (alpha) recursion over the blank-extended labels (the core op
CTC_ALPHA, one loop over frames). Lengths are data: frames past a sample's input
length carry its alphas unchanged, and the answer is read at its own
extended length. Gradients come from the core's autodiff of this recursion;
the log-sum-exps keep them finite where every term is -inf (unreachable
states).

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> lp = constant(np.log(np.full((4, 2, 3), 1 / 3)), np.dtype("float32"))
>>> tg = constant(np.array([[1, 2], [1, 1]]), np.dtype("int64"))
>>> n = constant(np.array([4, 3]), np.dtype("int64"))
>>> nll, alpha = ctc_loss(lp, tg, n, constant(np.array([2, 1]), np.dtype("int64")), 0)
>>> nll.shape, alpha.shape
((2,), (2, 4, 5))
"""

from __future__ import annotations

import math

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import iota
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.indexing.take import take, take_along_axis
from lazytensor.core.composite.movement.shape import (
    concatenate,
    reshape,
    slice_axis,
    stack,
    transpose,
)
from lazytensor.core.composite.nn.functional import vjp
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import ShapeError, make

_INDEX = dt.int64


def _full(value, like: Node) -> Node:
    return ew.full(like.shape, value, like.dtype)


def _logsumexp(terms: list[Node]) -> Node:
    """log(sum(exp(terms))) elementwise, -inf (with zero gradients) where
    every term is -inf."""
    top = terms[0]
    for t in terms[1:]:
        top = make(Op.MAX, (top, t))
    dead = make(Op.EQ, (top, _full(-math.inf, top)))
    shift = make(Op.SELECT, (dead, _full(0, top), top))
    total = make(Op.EXP, (make(Op.SUB, (terms[0], shift)),))
    for t in terms[1:]:
        total = make(Op.ADD, (total, make(Op.EXP, (make(Op.SUB, (t, shift)),))))
    empty = make(Op.EQ, (total, _full(0, total)))
    safe = make(Op.SELECT, (empty, _full(1, total), total))
    out = make(Op.ADD, (shift, make(Op.LOG, (safe,))))
    return make(Op.SELECT, (empty, _full(-math.inf, out), out))


def _extended(targets: Node, blank: int) -> tuple[Node, Node]:
    """(labels with a blank around each target (N, 2S+1), where a state may
    be reached from two states back: a non-blank differing from it)."""
    n, s = targets.shape
    blanks = ew.full((n, s), blank, _INDEX)
    pairs = stack([blanks, targets], 2)
    ext = concatenate([reshape(pairs, (n, 2 * s)), ew.full((n, 1), blank, _INDEX)], 1)
    two_back = _shifted_index(ext, blank)
    skip = make(Op.AND, (make(Op.NE, (ext, _full(blank, ext))), make(Op.NE, (ext, two_back))))
    return ext, skip


def _shifted_index(ext: Node, fill: int) -> Node:
    body = slice_axis(ext, 1, 0, ext.shape[1] - 2)
    return concatenate([ew.full((ext.shape[0], 2), fill, _INDEX), body], 1)


def ctc_loss(log_probs: Node, targets: Node, input_lengths: Node, target_lengths: Node,
             blank: int) -> tuple[Node, Node]:
    """(negative log-likelihood (N,), log alphas (N, T, 2S+1)) of the padded
    ``targets`` (N, S) under ``log_probs`` (T, N, C), for each sample's
    first ``input_lengths`` frames and ``target_lengths`` labels. The log
    alphas past a sample's input length repeat its last frame's."""
    if log_probs.ndim != 3 or targets.ndim != 2:
        raise ShapeError(f"ctc_loss: expected (T, N, C) log-probabilities and (N, S) "
                         f"targets, got {log_probs.shape} and {targets.shape}")
    frames, n, _ = log_probs.shape
    ext, skip = _extended(ew.convert(targets, _INDEX), blank)
    length = ext.shape[1]
    index = make(Op.CLAMP, (_full(0, ext), ext, _full(log_probs.shape[2] - 1, ext)))
    emit = take_along_axis(log_probs, reshape(index, (1, n, length)), 2)  # (T, N, L)
    alphas = make(Op.CTC_ALPHA, (emit, skip, ew.convert(input_lengths, _INDEX)))
    alpha = _frame(alphas, frames - 1)
    labels = ew.convert(target_lengths, _INDEX)
    last = make(Op.MUL, (labels, _full(2, labels)))  # index of the final blank
    ends = stack([last, make(Op.SUB, (last, _full(1, last)))], 1)
    picked = take_along_axis(alpha, make(Op.MAX, (ends, _full(0, ends))), 1)
    has_label = ew.broadcast_to(reshape(make(Op.GT, (labels, _full(0, labels))), (n, 1)),
                                (n, 2))
    keep = make(Op.OR, (has_label, make(Op.EQ, (iota((n, 2), 1, _INDEX),
                                                  ew.full((n, 2), 0, _INDEX)))))
    picked = make(Op.SELECT, (keep, picked, ew.full((n, 2), -math.inf, picked.dtype)))
    nll = make(Op.NEG, (_logsumexp([_column(picked, 0), _column(picked, 1)]),))
    return nll, transpose(alphas, (1, 0, 2))


def padded_targets(targets: Node, target_lengths: Node, batch: int) -> Node:
    """Padded (N, S) targets; 1-d concatenated ones (each sample's labels
    one after another) are split by ``target_lengths`` and padded to their
    total length, an upper bound of the longest.

    >>> import numpy as np
    >>> from lazytensor.core.leaves import constant
    >>> flat = constant(np.array([1, 2, 3]), np.dtype("int64"))
    >>> padded_targets(flat, constant(np.array([2, 1]), np.dtype("int64")), 2).shape
    (2, 3)
    """
    if targets.ndim == 2:
        return targets
    total = targets.shape[0]
    if total == 0:
        return ew.full((batch, 0), 0, _INDEX)
    ends = make(Op.CUMSUM, (target_lengths,), 0, False)
    starts = make(Op.SUB, (ends, target_lengths))
    pos = make(Op.ADD, (ew.broadcast_to(reshape(starts, (batch, 1)), (batch, total)),
                        iota((batch, total), 1, _INDEX)))
    pos = make(Op.MIN, (pos, ew.full(pos.shape, total - 1, _INDEX)))
    return reshape(take(targets, reshape(pos, (-1,))), (batch, total))


def ctc_loss_backward(grad: Node, log_probs: Node, targets: Node, input_lengths: Node,
                      target_lengths: Node, blank: int, nll: Node,
                      zero_infinity: bool = False) -> Node:
    """The gradient (T, N, C) of ``ctc_loss``'s nll (weighted by ``grad``,
    (N,) or a scalar) taken through a log-softmax that made ``log_probs``:
    the VJP of the recursion plus exp(log_probs) * grad on each sample's
    first ``input_lengths`` frames (exact for log-softmax inputs, which it
    assumes, as torch's kernel does). With ``zero_infinity``, samples of
    infinite ``nll`` get zeros."""
    frames, batch, classes = log_probs.shape
    g = ew.broadcast_to(grad, (batch,)) if grad.ndim == 0 else grad
    finite = make(Op.NE, (nll, _full(math.inf, nll)))
    g = make(Op.SELECT, (finite, g, _full(0, g))) if zero_infinity else g
    true = vjp(lambda x: ctc_loss(x, targets, input_lengths, target_lengths, blank)[0],
               (log_probs,), g)[0]
    lens = ew.convert(input_lengths, _INDEX)
    running = make(Op.LT, (iota(log_probs.shape, 0, _INDEX),
                           ew.broadcast_to(reshape(lens, (1, batch, 1)), log_probs.shape)))
    scaled = make(Op.MUL, (make(Op.EXP, (log_probs,)),
                           ew.broadcast_to(reshape(g, (1, batch, 1)), log_probs.shape)))
    out = make(Op.ADD, (true, make(Op.SELECT, (running, scaled, _full(0, log_probs)))))
    if zero_infinity:
        dead = ew.broadcast_to(reshape(make(Op.NOT, (finite,)), (1, batch, 1)), log_probs.shape)
        out = make(Op.SELECT, (dead, _full(0, log_probs), out))
    return out


def _frame(emit: Node, t: int) -> Node:
    return reshape(slice_axis(emit, 0, t, t + 1), emit.shape[1:])


def _column(x: Node, j: int) -> Node:
    return reshape(slice_axis(x, 1, j, j + 1), x.shape[:1])


__all__ = ["ctc_loss", "ctc_loss_backward", "padded_targets"]
