"""numpy.einsum on nodes, written on diagonal/REDUCE_SUM/DOT_GENERAL/
TRANSPOSE: explicit ('ij,jk->ik') and implicit ('ij,jk') subscripts,
ellipsis broadcasting, repeated subscripts (traces and diagonals) and
size-1 broadcasting of any subscript.

Each operand first takes the diagonals of its repeated subscripts and sums
the subscripts nobody else needs; the operands are then contracted pairwise
left to right with one DOT_GENERAL each (shared subscripts still needed
later are batch dimensions); a final transpose orders the output.

>>> import numpy as np
>>> from lazytensor.core.leaves import constant
>>> a = constant(np.zeros((2, 3)), np.dtype("float32"))
>>> einsum("ij,kj->ik", a, a).shape, einsum("...j->...", a).shape, einsum("ij,ij", a, a).shape
((2, 2), (2,), ())
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from lazytensor.core import dtypes as dt
from lazytensor.core.composite.elementwise import apply as ew
from lazytensor.core.composite.linalg.matrix import diagonal
from lazytensor.core.composite.movement.shape import transpose
from lazytensor.core.ir import Node
from lazytensor.core.ops import Op
from lazytensor.core.registry import DTypeError, ShapeError, make

Labels = list[str]  # one label per axis: a letter, or a digit for an ellipsis axis

_NO_ELLIPSIS = ("{} has more dimensions than subscripts given in einstein sum, but no '...' "
                "ellipsis provided to broadcast the extra dimensions.")


def parse(subscripts: str, shapes: Sequence[tuple[int, ...]]) -> tuple[list[Labels], Labels]:
    """Per-operand axis labels and the output labels; ellipsis axes get the
    labels '0', '1', ... aligned from the right across operands."""
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):  # numpy's words (which name the other side)
        word = "fewer" if len(terms) < len(shapes) else "more"
        raise ShapeError(f"{word} operands provided to einstein sum function than specified in "
                         f"the subscripts string")
    ranks = [len(s) - len(_letters(t, i))
             for i, (t, s) in enumerate(zip(terms, shapes, strict=False))]
    width = max([r for r, t in zip(ranks, terms, strict=False) if "..." in t], default=0)
    inputs = [_labels(t, r, width, i) for i, (t, r) in enumerate(zip(terms, ranks, strict=False))]
    if arrow:
        output = _labels(rhs, width if "..." in rhs else 0, width, None)
        if "..." not in rhs and width and any(
                "..." in t and r for t, r in zip(terms, ranks, strict=False)):
            raise ShapeError(_NO_ELLIPSIS.format("output"))
    else:
        counts = Counter(label for labels in inputs for label in labels if label.isalpha())
        output = [str(i) for i in range(width)] + sorted(l for l, c in counts.items() if c == 1)
    _check_output(output, inputs)
    return inputs, output


def _letters(term: str, index: int | None) -> str:
    body = term.replace("...", "", 1)
    if "." in body:
        raise ShapeError(f"einstein sum subscripts string contains a '.' that is not part of "
                         f"an ellipsis ('...') in operand {index}")
    for ch in body:
        if not ch.isalpha():
            raise ShapeError(f"invalid subscript '{ch}' in einstein sum subscripts string, "
                             f"subscripts must be letters")
    return body


def _labels(term: str, rank: int, width: int, index: int | None) -> Labels:
    letters = _letters(term, index)
    if "..." not in term:
        if rank < 0:
            raise ShapeError(f"einstein sum subscripts string contains too many subscripts "
                             f"for operand {index}")
        if rank > 0:
            raise ShapeError(_NO_ELLIPSIS.format("operand"))
        return list(letters)
    if rank < 0:
        raise ShapeError(f"einstein sum subscripts string contains too many subscripts for "
                         f"operand {index}")
    head, _, tail = term.partition("...")
    return list(head) + [str(i) for i in range(width - rank, width)] + list(tail)


def _check_output(output: Labels, inputs: list[Labels]) -> None:
    seen = {label for labels in inputs for label in labels}
    for label in output:
        if label not in seen:
            raise ShapeError(f"einstein sum subscripts string included output subscript "
                             f"'{label}' which never appeared in an input")
        if output.count(label) > 1:
            raise ShapeError(f"einstein sum subscripts string includes output subscript "
                             f"'{label}' multiple times")


def einsum(subscripts: str, *operands: Node, dtype: np.dtype | None = None) -> Node:
    """numpy.einsum. The operands share one dtype, or are converted to
    ``dtype`` (the caller's promotion); bool operands compute in int64 and
    give ``result != 0``, as numpy's logical einsum.

    Shape rule: the output subscripts' sizes (size-1 axes broadcast)."""
    if dtype is not None:
        operands = tuple(ew.convert(x, dtype) for x in operands)
    if len({x.dtype for x in operands}) > 1:
        raise DTypeError(f"einsum: operand dtypes differ: {[str(x.dtype) for x in operands]}")
    is_bool = bool(operands) and dt.is_bool(operands[0].dtype)
    if is_bool:
        operands = tuple(ew.convert(x, dt.int64) for x in operands)
    inputs, output = parse(subscripts, [x.shape for x in operands])
    terms = []
    for i, (x, labels) in enumerate(zip(operands, inputs, strict=False)):
        later = set(output).union(*inputs[:i], *inputs[i + 1:])
        terms.append(_prepare(x, labels, later, i))
    sizes = _sizes(operands, inputs)
    x, labels = terms[0]
    for i, (y, y_labels) in enumerate(terms[1:], 1):
        keep = set(output).union(*[t[1] for t in terms[i + 1:]])
        x, labels = _contract(x, labels, y, y_labels, keep, sizes)
    x, labels = _sum_out(x, labels, set(output))
    x = transpose(x, [labels.index(label) for label in output])
    x = ew.broadcast_to(x, tuple(sizes[label] for label in output))
    if is_bool:
        x = make(Op.NE, (x, ew.full(x.shape, 0, x.dtype)))
    return x


def _sizes(operands: Sequence[Node], inputs: list[Labels]) -> dict[str, int]:
    """Each label's size: equal across operands, or 1 (broadcast)."""
    sizes: dict[str, int] = {}
    for x, labels in zip(operands, inputs, strict=False):
        for label, size in zip(labels, x.shape, strict=False):
            known = sizes.get(label, 1)
            if size != 1 and known != 1 and size != known:
                raise ShapeError(f"operands could not be broadcast together with remapped "
                                 f"shapes: subscript '{label}' has sizes {known} and {size}")
            sizes[label] = size if known == 1 else known
    return sizes


def _prepare(x: Node, labels: Labels, needed: set[str], index: int) -> tuple[Node, Labels]:
    """Take the diagonal of repeated labels, then sum labels not needed."""
    labels = list(labels)
    while len(set(labels)) != len(labels):
        label = next(l for l in labels if labels.count(l) > 1)
        a = labels.index(label)
        b = labels.index(label, a + 1)
        if x.shape[a] != x.shape[b]:
            raise ShapeError(f"dimensions in operand {index} for collapsing index '{label}' don't "
                             f"match ({x.shape[a]} != {x.shape[b]})")
        x = diagonal(x, 0, a, b)
        labels = [l for i, l in enumerate(labels) if i not in (a, b)] + [label]
    return _sum_out(x, labels, needed)


def _sum_out(x: Node, labels: Labels, needed: set[str]) -> tuple[Node, Labels]:
    axes = tuple(i for i, label in enumerate(labels) if label not in needed)
    if not axes:
        return x, labels
    return make(Op.REDUCE_SUM, (x,), axes), [l for l in labels if l in needed]


def _grow(x: Node, labels: Labels, targets: dict[str, int]) -> Node:
    """Broadcast size-1 axes of x to the sizes in ``targets``."""
    shape = tuple(targets.get(label, s) for label, s in zip(labels, x.shape, strict=False))
    return ew.broadcast_to(x, shape) if shape != x.shape else x


def _contract(x: Node, xl: Labels, y: Node, yl: Labels, keep: set[str],
              sizes: dict[str, int]) -> tuple[Node, Labels]:
    """One DOT_GENERAL: shared labels in ``keep`` are batch axes, the other
    shared labels are contracted; labels of one side alone that nobody
    needs are summed first."""
    x, xl = _sum_out(x, xl, keep | set(yl))
    y, yl = _sum_out(y, yl, keep | set(xl))
    shared = [l for l in xl if l in yl]
    x = _grow(x, xl, {l: sizes[l] for l in shared})
    y = _grow(y, yl, {l: sizes[l] for l in shared})
    batch = [l for l in shared if l in keep]
    summed = [l for l in shared if l not in keep]
    dims = ((tuple(xl.index(l) for l in summed), tuple(yl.index(l) for l in summed)),
            (tuple(xl.index(l) for l in batch), tuple(yl.index(l) for l in batch)))
    out = make(Op.DOT_GENERAL, (x, y), dims, None)
    labels = batch + [l for l in xl if l not in shared] + [l for l in yl if l not in shared]
    return out, labels


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def sublist_form(operands: Sequence) -> tuple[str, list]:
    """The interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (numpy's
    and torch's) as subscripts ('ab,bc->ac') plus the operands.

    >>> sublist_form(["A", [0, 1], "B", [1, Ellipsis], [0, Ellipsis]])
    ('ab,b...->a...', ['A', 'B'])
    """
    def term(sub) -> str:
        return "".join("..." if s is Ellipsis else _LETTERS[int(s)] for s in sub)

    arrays, terms = list(operands[0::2]), [term(s) for s in operands[1::2]]
    if len(operands) % 2:
        return ",".join(terms) + "->" + term(operands[-1]), arrays[:-1]
    return ",".join(terms), arrays
