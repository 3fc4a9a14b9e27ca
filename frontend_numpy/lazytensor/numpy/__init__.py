"""lazytensor.numpy: numpy's API, recorded lazily and compiled with XLA.

>>> import lazytensor.numpy as lnp
>>> x = lnp.arange(6.0).reshape(2, 3)
>>> y = (x * 2 + 1).sum(axis=0)      # recorded, not run
>>> y                                 # observing runs the graph
array([ 8., 12., 16.])

Arrays implement numpy's protocols, so ``np.sin(x)`` and ``np.mean(x)``
record too and ``np.asarray(x)`` materializes. A numpy function without a
lazy mapping runs eagerly on materialized inputs (``LazyFallbackWarning``)
and returns lazy arrays again.
"""

# ruff: noqa: F401  (re-exports: __all__ is computed below)
from __future__ import annotations

from lazytensor.core.runtime import sync
from lazytensor.numpy import _methods as _methods  # noqa: F401  (installs methods)
from lazytensor.numpy import _operators as _operators  # noqa: F401  (installs operators)
from lazytensor.numpy._base import ndarray
from lazytensor.numpy._creation import (
    arange,
    array,
    asanyarray,
    asarray,
    ascontiguousarray,
    copy,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    geomspace,
    identity,
    indices,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    zeros,
    zeros_like,
)
from lazytensor.numpy._dispatch import FUNCTIONS, eager, has_lazy, to_lazy
from lazytensor.numpy._errors import LazyFallbackWarning
from lazytensor.numpy._extra import (
    append,
    astype,
    bincount,
    choose,
    convolve,
    corrcoef,
    correlate,
    cov,
    fix,
    interp,
    iscomplex,
    isin,
    isneginf,
    isposinf,
    isreal,
    rollaxis,
    select,
    sinc,
    trapezoid,
    unstack,
)
from lazytensor.numpy._math import (
    allclose,
    angle,
    argsort,
    argwhere,
    array_equal,
    array_equiv,
    clip,
    compress,
    cross,
    diff,
    dot,
    ediff1d,
    extract,
    flatnonzero,
    imag,
    inner,
    isclose,
    iscomplexobj,
    isrealobj,
    kron,
    nan_to_num,
    nonzero,
    outer,
    real,
    sort,
    take,
    tensordot,
    unique,
    vdot,
    where,
)
from lazytensor.numpy._math import round_ as round  # noqa: A004
from lazytensor.numpy._misc import (
    argpartition,
    can_cast,
    copyto,
    einsum,
    fill_diagonal,
    min_scalar_type,
    partition,
    place,
    put,
    put_along_axis,
    putmask,
    result_type,
    searchsorted,
    take_along_axis,
)
from lazytensor.numpy._reductions import all_ as all  # noqa: A004
from lazytensor.numpy._reductions import any_ as any  # noqa: A004
from lazytensor.numpy._reductions import (
    argmax,
    argmin,
    average,
    count_nonzero,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    mean,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmin,
    nanprod,
    nanstd,
    nansum,
    nanvar,
    prod,
    ptp,
    std,
    var,
)
from lazytensor.numpy._reductions import max_ as max  # noqa: A004
from lazytensor.numpy._reductions import min_ as min  # noqa: A004
from lazytensor.numpy._reductions import sum_ as sum  # noqa: A004
from lazytensor.numpy._shape import (
    array_split,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_arrays,
    broadcast_to,
    column_stack,
    concatenate,
    diag,
    diagflat,
    diagonal,
    dsplit,
    dstack,
    expand_dims,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    matrix_transpose,
    moveaxis,
    ndim,
    pad,
    ravel,
    repeat,
    reshape,
    roll,
    rot90,
    shape,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    tile,
    trace,
    transpose,
    tril,
    triu,
    vsplit,
    vstack,
)
from lazytensor.numpy._stats import median, percentile, quantile
from lazytensor.numpy._ufunc_objects import all_ufuncs as _all_ufuncs
from lazytensor.numpy._ufunc_objects import ufunc

import numpy as _np

globals().update(_all_ufuncs())
amax, amin, around, concat, permute_dims, row_stack = max, min, round, concatenate, \
    transpose, vstack

from lazytensor.numpy import fft, linalg, random  # noqa: E402

# numpy's dtypes, scalar types and constants are numpy's own objects
for _name in (
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp", "byte", "ubyte",
    "short", "ushort", "intc", "uintc", "int_", "uint", "longlong", "ulonglong", "half",
    "single", "double", "longdouble", "csingle", "cdouble", "clongdouble", "generic", "number",
    "integer", "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating",
    "dtype", "finfo", "iinfo", "pi", "e", "inf", "nan", "newaxis", "euler_gamma",
    "promote_types", "issubdtype", "isdtype", "isscalar", "errstate", "printoptions",
    "set_printoptions", "get_printoptions", "exceptions",
):
    globals()[_name] = getattr(_np, _name)
del _name


def __getattr__(name: str):
    """numpy names without a lazy version run eagerly (warned, counted)."""
    target = getattr(_np, name, None)
    if target is None or name.startswith("_"):
        raise AttributeError(f"module 'lazytensor.numpy' has no attribute {name!r}")
    if callable(target) and not isinstance(target, type):
        def fallback(*args, **kwargs):
            if has_lazy((args, kwargs)):
                return eager(f"numpy.{name}", target, args, kwargs)
            return to_lazy(target(*args, **kwargs))  # host-only inputs: nothing to fall back

        fallback.__name__ = name
        fallback.__doc__ = target.__doc__
        return fallback
    return target


__all__ = sorted(
    [n for n in globals() if not n.startswith("_") and n not in (
        "annotations", "FUNCTIONS", "eager", "has_lazy", "to_lazy")]
)
