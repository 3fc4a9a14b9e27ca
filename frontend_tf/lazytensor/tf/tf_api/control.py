"""``tf.case``, ``tf.switch_case`` and the monotonicity checks on lazy
arrays (the table ``APIS``; see ``lazytensor.tf.tf_api``).

TensorFlow's eager ``case``/``switch_case`` require their predicates and
branch index to be ``tf.Tensor`` instances (a lazy array was a TypeError).
Choosing a branch needs the value on the host, as ``tf.cond`` does with a
lazy predicate (it calls ``bool``): the lazy predicates / index are read
back (a barrier) and TensorFlow's own function runs with them, so its
checks (``exclusive``, the default branch, out-of-range indices) are its
own; the branches themselves record lazily.

``tf.cond``, ``tf.while_loop``, ``tf.map_fn``, ``tf.vectorized_map``,
``tf.scan``, ``tf.foldl`` and ``tf.foldr`` run eagerly as Python loops that
call the user's functions; TensorFlow's own converted the lazy elements,
predicate or final loop variables (materialized them: counted fallbacks,
eager results). Here they run the same loops on lazy slices: the functions
record lazily (one copy of the body per iteration in the graph, as eager
execution runs it once per iteration), and a predicate is read back as
Python's ``if`` reads it.

``tf.math.is_non_decreasing`` / ``is_strictly_increasing`` reshape their
input with ``tf.reshape`` (lowered: a lazy array) and then refused it as
not a ``tf.Tensor``; here they compare neighbours lazily.
"""

from __future__ import annotations

from lazytensor.core import dtypes as dt
from lazytensor.core.composite.creation.arrays import const
from lazytensor.core.composite.movement import shape as cs
from lazytensor.core.composite.reduce import reduction
from lazytensor.core.ops import Op
from lazytensor.core.registry import make
from lazytensor.tf import _tf
from lazytensor.tf._array import ndarray
from lazytensor.tf.tf_api._dispatch import holds_lazy, tensor


def _eager(value):
    """A lazy array as an eager tf.Tensor (read back: a barrier)."""
    return _tf.tf().constant(value.numpy()) if isinstance(value, ndarray) else value


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    if not holds_lazy([pred_fn_pairs]):
        raise NotImplementedError("case without lazy predicates")  # not expected here
    pairs = [(_eager(pred), fn) for pred, fn in pred_fn_pairs]
    return _tf.tf().case(pairs, default=default, exclusive=exclusive, strict=strict,
                         name=name)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    return _tf.tf().switch_case(_eager(branch_index), branch_fns, default=default, name=name)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """TensorFlow's eager cond with the predicate read back (a barrier)."""
    return _tf.tf().cond(_eager(pred), true_fn, false_fn, name=name)


def _as_tensors(structure):
    """TensorFlow's eager loops' outputs: every leaf a tensor (lazy ones stay
    lazy; TensorArrays stay as they are)."""
    tf = _tf.tf()

    def convert(x):
        if isinstance(x, (ndarray, tf.TensorArray)) or _tf.is_tf_value(x):
            return x
        return tf.convert_to_tensor(x)

    return tf.nest.map_structure(convert, structure, expand_composites=True)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """TensorFlow's eager while loop: ``cond`` read each iteration (a
    barrier when it is lazy), the same structure kept, at most
    ``maximum_iterations`` runs."""
    tf = _tf.tf()
    if not callable(cond) or not callable(body):
        raise NotImplementedError("while_loop of non-callables")  # TensorFlow's TypeError
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    limit = None if maximum_iterations is None else int(_eager(maximum_iterations))
    structure = list(loop_vars)
    count = 0
    while (limit is None or count < limit) and bool(cond(*loop_vars)):
        loop_vars = body(*loop_vars)
        tf.nest.assert_same_structure(structure, list(loop_vars))
        count += 1
    return _as_tensors(loop_vars)


def _slices(elems) -> tuple[int, list]:
    """(n, the n slices of ``elems``' structure along its first axis)."""
    tf = _tf.tf()
    flat = [x if isinstance(x, ndarray) else tf.convert_to_tensor(x)
            for x in tf.nest.flatten(elems)]
    sizes = {x.shape[0] if len(x.shape) else None for x in flat}
    if len(sizes) != 1 or not next(iter(sizes)):
        raise NotImplementedError("elems of different, unknown or no rows")  # TF's error
    (n,) = sizes
    return n, [tf.nest.pack_sequence_as(elems, [x[i] for x in flat]) for i in range(n)]


def _stacked(results: list):
    """The per-element results' structure with each leaf stacked."""
    tf = _tf.tf()
    leaves = [tf.nest.flatten(r) for r in results]
    columns = zip(*leaves, strict=True)
    return tf.nest.pack_sequence_as(results[0], [tf.stack(list(col)) for col in columns])


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """fn of each slice of ``elems``, stacked. Without an output signature
    (or ``dtype``) fn gives the elements' structure; with one, what it
    says (else TensorFlow's map_fn runs it: casts, ragged outputs)."""
    n, parts = _slices(elems)
    results = [fn(part) for part in parts]
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if signature is None:  # the results have the elements' structure (TensorFlow's error)
        _tf.tf().nest.assert_same_structure(elems, results[0])
    else:
        tf = _tf.tf()
        wanted = [getattr(s, "dtype", s) for s in tf.nest.flatten(signature)]
        got = [r.dtype for r in tf.nest.flatten(results[0])]
        if len(wanted) != len(got) or any(
                tf.as_dtype(w) != g for w, g in zip(wanted, got, strict=True)):
            raise NotImplementedError("map_fn whose signature casts or nests")
    return _stacked(results)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """fn of each slice of ``elems``, stacked (what TensorFlow's
    vectorization computes at once; here the lazy graph holds each call)."""
    return _stacked([fn(part) for part in _slices(elems)[1]])


def _fold(fn, elems, initializer, backwards: bool, keep_all: bool):
    """tf.foldl / foldr (the last accumulator) or tf.scan (every one,
    stacked in the elements' order); without an initializer the first
    element visited is the first accumulator (and scan's output there)."""
    n, parts = _slices(elems)
    order = list(range(n))[::-1] if backwards else list(range(n))
    outputs = {}
    if initializer is None:
        acc = outputs[order[0]] = parts[order[0]]
        order = order[1:]
    else:
        acc = _as_tensors(initializer)
    for i in order:
        acc = outputs[i] = fn(acc, parts[i])
    return _stacked([outputs[i] for i in range(n)]) if keep_all else acc


def _scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, infer_shape=True, reverse=False, name=None):
    return _fold(fn, elems, initializer, bool(reverse), True)


def _foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
           swap_memory=False, name=None):
    return _fold(fn, elems, initializer, False, False)


def _foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
           swap_memory=False, name=None):
    return _fold(fn, elems, initializer, True, False)


def _monotonic(op: Op, api: str):
    def impl(x, name=None):
        node = tensor(x)
        if dt.category(node.dtype) == "c":
            raise NotImplementedError(f"{api} of complex")  # TensorFlow's own error
        if dt.category(node.dtype) not in "iuf":
            raise TypeError(f"Expected x to be numeric, instead found: {x}")
        flat = cs.reshape(node, (-1,))
        n = flat.shape[0]
        if n < 2:
            return const(True, dt.bool_)
        ok = make(op, (cs.slice_axis(flat, 0, 1, n), cs.slice_axis(flat, 0, 0, n - 1)))
        return reduction.reduce("all", ok)

    impl.__name__ = api
    return impl


APIS: dict[str, object] = {
    "case": case, "switch_case": switch_case, "cond": cond, "while_loop": while_loop,
    "map_fn": map_fn, "scan": _scan, "foldl": _foldl, "foldr": _foldr,
    "vectorized_map": vectorized_map,
    "math.is_non_decreasing": _monotonic(Op.GE, "is_non_decreasing"),
    "math.is_strictly_increasing": _monotonic(Op.GT, "is_strictly_increasing"),
}

__all__ = ["APIS"]
