"""The core's CTC loss against a brute-force sum over every alignment, and
its graph size against the number of frames (the recursion is one loop,
CTC_ALPHA, not unrolled: unrolled over 50 frames its gradient took XLA
minutes to compile)."""

import itertools

import numpy as np
from core_nodes import check, dev
from lazytensor.core.autodiff import grad
from lazytensor.core.composite.nn import ctc
from lazytensor.core.ir import toposort


def _collapse(path, blank):
    out = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
    return tuple(out)


def _brute_nll(log_probs, targets, in_lens, tgt_lens, blank):
    frames, n, classes = log_probs.shape
    out = []
    for b in range(n):
        want = tuple(targets[b, :tgt_lens[b]])
        total = 0.0
        for path in itertools.product(range(classes), repeat=int(in_lens[b])):
            if _collapse(path, blank) == want:
                total += np.exp(sum(log_probs[t, b, c] for t, c in enumerate(path)))
        out.append(-np.log(total) if total else np.inf)
    return np.array(out)


def _inputs(frames, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((frames, 3, 3))
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    targets = np.array([[1, 2, 2], [2, 0, 0], [1, 1, 0]])
    return log_probs, targets, np.array([frames, frames - 1, 3]), np.array([2, 1, 2])


def test_ctc_loss_matches_the_sum_over_alignments():
    log_probs, targets, in_lens, tgt_lens = _inputs(5)
    nll, alphas = ctc.ctc_loss(dev(log_probs), dev(targets), dev(in_lens), dev(tgt_lens), 0)
    check(nll, _brute_nll(log_probs, targets, in_lens, tgt_lens, 0), rtol=1e-10)
    assert alphas.shape == (3, 5, 7)


def test_ctc_graph_does_not_grow_with_frames():
    def size(frames):
        log_probs, targets, in_lens, tgt_lens = _inputs(frames)
        lp = dev(log_probs)
        nll, _ = ctc.ctc_loss(lp, dev(targets), dev(in_lens), dev(tgt_lens), 0)
        (g,) = grad(nll, [lp])
        return len(toposort([nll, g]))

    assert size(6) == size(300)
