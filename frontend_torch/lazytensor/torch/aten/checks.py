"""torch's argument checks of products, convolutions, pooling and the
negative log-likelihood, with torch's wording and order: the core would
compute an answer (or raise its own, numpy-worded error) for arguments
torch rejects. The op implementations in ``nn.py`` call these first."""

from __future__ import annotations

from lazytensor.core import Node
from lazytensor.core import dtypes as dt
from lazytensor.torch._tensor import scalar_type_name
from lazytensor.torch.aten._common import cpp_type_name, node


def _cpp(n: Node) -> str:
    return cpp_type_name(n.dtype)


def same_dtype(name: str, a: Node, b: Node) -> None:
    """torch's dtype check of a product's two operands, in its wording
    for ``name`` (mm, bmm, dot; mv passes matrix, vector)."""
    if a.dtype == b.dtype:
        return
    ta, tb = scalar_type_name(a.dtype), scalar_type_name(b.dtype)
    raise RuntimeError({
        "mm": f"expected m1 and m2 to have the same dtype, but got: {_cpp(a)} != {_cpp(b)}",
        "bmm": f"expected scalar type {ta} but found {tb}",
        "dot": f"dot : expected both vectors to have same dtype, but found {ta} and {tb}",
        "mv": f"addmv input tensors must have the same dtype, but got {tb}, {ta}, and {tb}",
    }[name])


def bias_dtype(name: str, bias: Node, a: Node, b: Node) -> None:
    """addmm's and baddbmm's check of the added tensor's dtype, in torch's
    order (addmm: self against mat2 first; baddbmm: the batches first)."""
    if name == "addmm" and bias.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{scalar_type_name(bias.dtype)} and {scalar_type_name(b.dtype)}")
    if name == "addmm" and a.dtype != b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}")
    if name == "baddbmm":
        same_dtype("bmm", a, b)
        if bias.dtype != a.dtype:
            raise RuntimeError(f"Input dtypes must be the same, got: input {_cpp(bias)}, "
                               f"batch1: {_cpp(a)}, batch2: {_cpp(b)}")


def _per_dim(values, n: int) -> list[int]:
    values = list(values)
    return values * n if len(values) == 1 else values


def check_conv(nx: Node, nw: Node, stride, padding, dilation, transposed: bool,
               groups: int) -> None:
    """torch's shape checks of a convolution (the core would make an empty
    or wrongly shaped result): stride, input channels, and a (dilated)
    kernel no larger than the padded input."""
    n = nw.ndim - 2
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    shape = list(nx.shape) if nx.ndim == n + 2 else [1, *nx.shape]
    want = nw.shape[0] if transposed else nw.shape[1] * groups
    if len(shape) == n + 2 and shape[1] != want:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {given}, weight of size {list(nw.shape)}, expected input"
                           f"{shape} to have {want} channels, but got {shape[1]} channels "
                           "instead")
    if transposed or len(shape) != n + 2:
        return
    padded = [s + 2 * p for s, p in zip(shape[2:], _per_dim(padding, n), strict=True)]
    kernel = [d * (k - 1) + 1 for d, k in zip(_per_dim(dilation, n), nw.shape[2:], strict=True)]
    if any(p < k for p, k in zip(padded, kernel, strict=True)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                           "than actual input size")


def _pooled_size(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """torch's pooling_output_shape along one dim."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    return out - 1 if ceil and (out - 1) * s >= size + p else out


def check_pool(kind: str, shape: tuple, k, s, p, d, ceil: bool) -> None:
    """torch's checks of a max/avg pool's arguments (the core would divide
    by a zero stride or make an empty result): stride, dilation, and an
    output of at least one element per dim."""
    n = len(k)
    if 0 in s:
        raise RuntimeError("stride should not be zero")
    if kind == "max" and n == 2 and min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {d[0]} "
                           f"dilationW: {d[1]}")
    spatial = shape[-n:]
    if kind == "avg" and n == 3 and any(i < kk for i, kk in zip(spatial, k, strict=True)):
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) "
                           f"smaller than kernel size (kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    outs = [_pooled_size(*a, ceil) for a in zip(spatial, k, s, [lo for lo, _ in p], d,
                                                strict=True)]
    if min(outs) < 1:
        given = "x".join(map(str, shape[-n - 1:]))
        calc = "x".join(map(str, [shape[-n - 1], *outs]))
        raise RuntimeError(f"Given input size: ({given}). Calculated output size: ({calc}). "
                           "Output size is too small")


def nll_target(target: Node, byte_ok: bool) -> Node:
    """torch's class-index target checks: int64 or uint8 (``byte_ok``; both
    nll_loss and nll_loss2d check this first), then int64 only (nll_loss2d)."""
    if target.dtype == dt.int64 or (byte_ok and target.dtype == dt.uint8):
        return target
    name = scalar_type_name(target.dtype)
    raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}" if byte_ok
                       else f"expected scalar type Long but found {name}")


def nll_checks(x, target, weight) -> None:
    """nll_loss_forward's checks, in torch's order: the input's and the
    target's dims, the target's dtype, the batch size, the weight's size."""
    if not 0 < x.dim() <= 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    nll_target(node(target), True)
    if x.dim() == 2 and target.dim() == 1 and x.shape[0] != target.shape[0]:
        raise RuntimeError(f"size mismatch (got input: {list(x.shape)}, target: "
                           f"{list(target.shape)})")
    if weight is not None and (weight.dim() != 1 or weight.numel() != x.shape[-1]):
        raise RuntimeError(f"weight tensor should be defined either for all {x.shape[-1]} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
