"""Backward ATen ops that PyTorch gives no decomposition for, computed as
the VJP of their forward op: upsampling (every mode), replication
padding, 2-d grid sampling and weight normalization. The forward runs
through the ATen table (itself lowered or decomposed by PyTorch) on a
stand-in of the input, and the core's autodiff
(``lazytensor.core.composite.nn.functional.vjp``) pulls the gradient back through the
recorded nodes, so each backward is exactly the gradient of the forward
that ran.

Upsampling is linear in its input, so its backward (which is not given the
input, only its size) differentiates at zeros of that size.
"""

from __future__ import annotations

from collections.abc import Callable

from lazytensor.core import Node
from lazytensor.core.composite.elementwise.apply import full
from lazytensor.core.composite.nn import functional as cnn
from lazytensor.torch._tensor import wrap
from lazytensor.torch.aten._common import aten, node


def _vjp(forward: Callable, primal: Node, cotangent: Node) -> Node:
    """The gradient of ``forward`` (torch tensors -> torch tensor) at
    ``primal``, pulled back from ``cotangent``."""
    def fn(stand_in: Node) -> Node:
        return node(forward(wrap(stand_in)))

    return cnn.vjp(fn, (primal,), cotangent)[0]


def _upsample_backward(forward):
    """``forward(self, output_size, *rest)``'s backward
    ``(grad_output, output_size, input_size, *rest)``."""
    def impl(grad_output, output_size, input_size, *rest):
        g = node(grad_output)
        zeros = full(tuple(int(s) for s in input_size), 0, g.dtype)
        return wrap(_vjp(lambda t: forward(t, output_size, *rest), zeros, g))

    return impl


def _pad_backward(forward):
    """``forward(self, padding)``'s backward ``(grad_output, self, padding)``."""
    def impl(grad_output, x, padding):
        return wrap(_vjp(lambda t: forward(t, padding), node(x), node(grad_output)))

    return impl


def _weight_norm_backward(grad_w, saved_v, saved_g, saved_norms, dim):
    """Gradients of ``w = g * v / ||v||`` (norms over every dim but ``dim``)
    with respect to v and g."""
    def fn(v: Node, g: Node) -> Node:
        return node(aten._weight_norm_interface.default(wrap(v), wrap(g), dim)[0])

    gv, gg = cnn.vjp(fn, (node(saved_v), node(saved_g)), node(grad_w))
    return wrap(gv), wrap(gg)


def _grid_sampler_2d_backward(grad_output, x, grid, interpolation_mode, padding_mode,
                              align_corners, output_mask):
    """Gradients of ``grid_sampler_2d`` with respect to the input and the
    grid (None where ``output_mask`` declines one, as torch returns)."""
    def fn(image: Node, points: Node) -> Node:
        return node(aten.grid_sampler_2d.default(wrap(image), wrap(points), interpolation_mode,
                                                 padding_mode, align_corners))

    grads = cnn.vjp(fn, (node(x), node(grid)), node(grad_output))
    return tuple(wrap(g) if wanted else None for g, wanted in zip(grads, output_mask, strict=True))


_UPSAMPLING = ("upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
               "_upsample_nearest_exact1d", "_upsample_nearest_exact2d",
               "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
               "upsample_bicubic2d", "upsample_trilinear3d", "_upsample_bilinear2d_aa",
               "_upsample_bicubic2d_aa")
_PADDING = ("replication_pad1d", "replication_pad2d", "replication_pad3d")

TABLE = {
    aten._weight_norm_interface_backward.default: _weight_norm_backward,
    aten.grid_sampler_2d_backward.default: _grid_sampler_2d_backward,
    **{getattr(aten, f"{name}_backward").default:
       _upsample_backward(getattr(aten, name).default) for name in _UPSAMPLING},
    **{getattr(aten, f"{name}_backward").default:
       _pad_backward(getattr(aten, name).default) for name in _PADDING},
}
