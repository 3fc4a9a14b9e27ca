"""The lifting benchmark's tasks: (name, category, function, example maker).

An example maker takes a random generator and a size and returns one
argument tuple, as a user would pass to ``lift``; two examples of different
sizes are given per task. ``big`` makes the size-512 inputs of the speed
comparison.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np
import tasks_basic as B
import tasks_more as M
import tasks_ported as P


@dataclass(frozen=True)
class Task:
    name: str
    category: str
    fn: Callable
    make: Callable  # (rng, n) -> argument tuple


def f(rng, *shape):
    return rng.standard_normal(shape)


def u8(rng, *shape):
    return rng.integers(0, 256, shape).astype(np.uint8)


def s(value):
    return np.array(value)


TASKS = [
    # 1-D element-wise
    Task("vadd", "1-D element-wise", B.vadd, lambda r, n: (f(r, n), f(r, n))),
    Task("saxpy", "1-D element-wise", B.saxpy, lambda r, n: (s(r.normal()), f(r, n), f(r, n))),
    Task("scale_offset", "1-D element-wise", B.scale_offset,
         lambda r, n: (f(r, n), s(r.normal()), s(r.normal()))),
    Task("squared_diff", "1-D element-wise", B.squared_diff, lambda r, n: (f(r, n), f(r, n))),
    Task("clamp", "1-D element-wise", B.clamp, lambda r, n: (f(r, n), s(-0.5), s(0.5))),
    Task("fma3", "1-D element-wise", B.fma3, lambda r, n: (f(r, n), f(r, n), f(r, n))),
    Task("vexp_scale", "1-D element-wise", B.vexp_scale, lambda r, n: (f(r, n), s(2.0))),
    # 2-D maps and transposes
    Task("add2d", "2-D maps", B.add2d, lambda r, n: (f(r, n, n + 1), f(r, n, n + 1))),
    Task("transpose", "2-D maps", B.transpose, lambda r, n: (f(r, n, n + 2),)),
    Task("add_row_bias", "2-D maps", B.add_row_bias, lambda r, n: (f(r, n, n + 1), f(r, n + 1))),
    Task("outer", "2-D maps", B.outer, lambda r, n: (f(r, n), f(r, n + 2))),
    Task("scale_cols", "2-D maps", B.scale_cols, lambda r, n: (f(r, n, n + 1), f(r, n + 1))),
    # reductions
    Task("vsum", "reductions", B.vsum, lambda r, n: (f(r, n),)),
    Task("dot", "reductions", B.dot, lambda r, n: (f(r, n), f(r, n))),
    Task("l2norm", "reductions", B.l2norm, lambda r, n: (f(r, n),)),
    Task("vmax", "reductions", B.vmax, lambda r, n: (f(r, n),)),
    Task("row_sums", "reductions", B.row_sums, lambda r, n: (f(r, n, n + 1),)),
    Task("col_means", "reductions", B.col_means, lambda r, n: (f(r, n, n + 1),)),
    Task("row_max", "reductions", B.row_max, lambda r, n: (f(r, n, n + 1),)),
    Task("sum_abs_int", "reductions", B.sum_abs_int,
         lambda r, n: (r.integers(-50, 50, n),)),
    # matrix-vector and matrix-matrix
    Task("matvec", "matvec/matmul", B.matvec, lambda r, n: (f(r, n, n + 1), f(r, n + 1))),
    Task("vecmat", "matvec/matmul", B.vecmat, lambda r, n: (f(r, n), f(r, n, n + 1))),
    Task("matmul", "matvec/matmul", B.matmul, lambda r, n: (f(r, n, n + 1), f(r, n + 1, n + 2))),
    Task("matvec_flat", "matvec/matmul", B.matvec_flat,
         lambda r, n: (f(r, n * (n + 1)), f(r, n + 1))),
    Task("matmul_flat", "matvec/matmul", B.matmul_flat,
         lambda r, n: (f(r, n * (n + 1)), f(r, n + 1, n + 2))),
    Task("gemv_update", "matvec/matmul", B.gemv_update,
         lambda r, n: (s(r.normal()), f(r, n, n + 1), f(r, n + 1), s(r.normal()), f(r, n))),
    # 8-bit image blends
    Task("blend_darken", "8-bit blends", M.blend_darken, lambda r, n: (u8(r, n, n), u8(r, n, n))),
    Task("blend_lighten", "8-bit blends", M.blend_lighten,
         lambda r, n: (u8(r, n, n), u8(r, n, n))),
    Task("blend_multiply", "8-bit blends", M.blend_multiply, lambda r, n: (u8(r, n), u8(r, n))),
    Task("blend_screen", "8-bit blends", M.blend_screen, lambda r, n: (u8(r, n), u8(r, n))),
    Task("blend_burn", "8-bit blends", M.blend_burn, lambda r, n: (u8(r, n), u8(r, n))),
    Task("blend_overlay", "8-bit blends", M.blend_overlay, lambda r, n: (u8(r, n), u8(r, n))),
    Task("blend_average", "8-bit blends", M.blend_average, lambda r, n: (u8(r, n), u8(r, n))),
    Task("blend_difference", "8-bit blends", M.blend_difference,
         lambda r, n: (u8(r, n, n), u8(r, n, n))),
    Task("blend_add_saturate", "8-bit blends", M.blend_add_saturate,
         lambda r, n: (u8(r, n), u8(r, n))),
    Task("blend_dodge", "8-bit blends", M.blend_dodge, lambda r, n: (u8(r, n), u8(r, n))),
    # conditional element-wise
    Task("leaky_relu", "conditional", M.leaky_relu, lambda r, n: (f(r, n), s(0.01))),
    Task("threshold", "conditional", M.threshold, lambda r, n: (u8(r, n), s(np.uint8(100)))),
    Task("relu2d", "conditional", M.relu2d, lambda r, n: (f(r, n, n + 1),)),
    # neural-network kernels
    Task("softmax", "nn kernels", M.softmax, lambda r, n: (f(r, n),)),
    Task("rmsnorm", "nn kernels", M.rmsnorm, lambda r, n: (f(r, n), f(r, n), s(1e-6))),
    Task("attention_scores", "nn kernels", M.attention_scores,
         lambda r, n: (f(r, n, n + 1), f(r, n + 2, n + 1))),
    Task("attention_mix", "nn kernels", M.attention_mix,
         lambda r, n: (f(r, n, n + 1), f(r, n + 1, n + 2))),
    Task("swiglu", "nn kernels", M.swiglu, lambda r, n: (f(r, n), f(r, n))),
    Task("row_max_init", "nn kernels", M.row_softmax_max, lambda r, n: (f(r, n, n + 1),)),
    # FIR and windows
    Task("fir", "FIR/windows", M.fir, lambda r, n: (f(r, n + 3), f(r, 3))),
    Task("moving_average3", "FIR/windows", M.moving_average3, lambda r, n: (f(r, n + 2),)),
    Task("downsample2", "FIR/windows", M.downsample2, lambda r, n: (f(r, 2 * n),)),
    Task("first_difference", "FIR/windows", M.first_difference, lambda r, n: (f(r, n + 1),)),
    # multi-nest kernels
    Task("atax", "multi-nest", M.atax, lambda r, n: (f(r, n, n + 1), f(r, n + 1))),
    Task("dct2d", "multi-nest", M.dct2d, lambda r, n: (f(r, n, n + 1),)),
    Task("bicg_q", "multi-nest", M.bicg_q, lambda r, n: (f(r, n, n + 1), f(r, n + 1))),
    # histograms
    Task("histogram", "histogram", M.histogram,
         lambda r, n: (r.integers(0, 8, 3 * n), np.zeros(8, dtype=np.int64))),
    Task("histogram_coarse", "histogram", M.histogram_coarse,
         lambda r, n: (u8(r, 4 * n),)),
    # ported C-style loops (tasks_ported.py), in their categories
    Task("clip_elif", "1-D element-wise", P.clip_elif, lambda r, n: (f(r, n), s(-0.5), s(0.5))),
    Task("axpy_inplace", "1-D element-wise", P.axpy_inplace,
         lambda r, n: (s(r.normal()), f(r, n), f(r, n))),
    Task("absdiff_u8", "8-bit blends", P.absdiff_u8, lambda r, n: (u8(r, n), u8(r, n))),
    Task("outer_prod", "2-D maps", P.outer_prod, lambda r, n: (f(r, n), f(r, n + 1))),
    Task("transpose_copy", "2-D maps", P.transpose_copy, lambda r, n: (f(r, n, n + 2),)),
    Task("diagonal", "2-D maps", P.diagonal, lambda r, n: (f(r, n, n),)),
    Task("one_hot_into", "2-D maps", P.one_hot_into,
         lambda r, n: (r.integers(0, 4, n), np.zeros((n, 4)))),
    Task("count_above", "reductions", P.count_above, lambda r, n: (f(r, n), s(0.3))),
    Task("dot_stride", "reductions", P.dot_stride, lambda r, n: (f(r, 2 * n), f(r, n))),
    Task("trace", "reductions", P.trace, lambda r, n: (f(r, n, n),)),
    Task("variance", "reductions", P.variance, lambda r, n: (f(r, n),)),
    Task("relu6", "conditional", P.relu6, lambda r, n: (8 * f(r, n),)),
    Task("sign_loop", "conditional", P.sign_loop, lambda r, n: (f(r, n),)),
    Task("normalize", "nn kernels", P.normalize, lambda r, n: (f(r, n),)),
    Task("minmax_scale", "nn kernels", P.minmax_scale, lambda r, n: (f(r, n),)),
    Task("box_blur", "FIR/windows", P.box_blur, lambda r, n: (f(r, n + 2, n + 3),)),
    Task("diff1", "FIR/windows", P.diff1, lambda r, n: (f(r, n + 1),)),
    Task("horner", "multi-nest", P.horner, lambda r, n: (f(r, 4), f(r, n))),
    # running values and index tracking
    Task("prefix_sum", "scans/argmax", P.prefix_sum, lambda r, n: (f(r, n),)),
    Task("running_mean", "scans/argmax", P.running_mean, lambda r, n: (f(r, n),)),
    Task("argmax_loop", "scans/argmax", P.argmax_loop, lambda r, n: (f(r, n),)),
    Task("argmin_loop", "scans/argmax", P.argmin_loop, lambda r, n: (r.integers(-3, 4, n),)),
    Task("row_argmax", "scans/argmax", P.row_argmax, lambda r, n: (f(r, n, n + 2),)),
    Task("sat_add_u8", "8-bit blends", P.sat_add_u8, lambda r, n: (u8(r, n), u8(r, n))),
    Task("while_sum", "reductions", P.while_sum, lambda r, n: (f(r, n),)),
    Task("product", "reductions", P.product, lambda r, n: (f(r, n) * 0.5 + 1.0,)),
]


def examples(task: Task, seed: int = 0) -> list[tuple]:
    rng = np.random.default_rng(seed)
    return [task.make(rng, 4), task.make(rng, 6)]
