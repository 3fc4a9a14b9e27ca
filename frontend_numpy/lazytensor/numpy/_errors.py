"""numpy's error policy, in one place: core errors become numpy's exception
types (``ValueError`` for shapes, ``numpy.exceptions.AxisError`` for axes,
``TypeError`` for dtypes) with numpy's messages, raised at the caller's line.

>>> from lazytensor.core.composite.reduce.axes import AxisError as CoreAxisError
>>> type(translate(CoreAxisError("axis 2 is out of bounds for array of dimension 1")))
<class 'numpy.exceptions.AxisError'>
"""

from __future__ import annotations

import functools
from typing import Callable

from lazytensor.core.composite.indexing.subscript import IndexingError
from lazytensor.core.composite.reduce.axes import AxisError as CoreAxisError
from lazytensor.core.registry import CoreError, DTypeError, ShapeError
from lazytensor.core.runtime import get_runtime

import numpy as np
from numpy._core import _exceptions as _np_exc


class LazyFallbackWarning(UserWarning):
    """A numpy function ran eagerly on materialized inputs (it has no lazy mapping)."""


class UnsupportedDtype(TypeError):
    """Data of a dtype that lazy arrays cannot hold (dates, strings, objects):
    a numpy function called through ``lazytensor.numpy`` on it runs numpy's."""


# core error type -> numpy exception type (checked in order: most specific first)
_TRANSLATION: tuple[tuple[type, Callable[[str], Exception]], ...] = (
    (CoreAxisError, lambda msg: np.exceptions.AxisError(msg)),
    (IndexingError, IndexError),
    (ShapeError, ValueError),
    (DTypeError, TypeError),
    (CoreError, RuntimeError),
)


def translate(exc: CoreError) -> Exception:
    """The numpy exception that numpy raises where the core raised ``exc``."""
    for core_type, make in _TRANSLATION:
        if isinstance(exc, core_type):
            return make(str(exc))
    return exc


def guard(fn: Callable) -> Callable:
    """Wrap a frontend function so that core errors surface as numpy's, and
    a barrier inside it (a data-dependent size read with ``.item()``) donates
    no buffers: the pending nodes that it already holds must stay valid."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        runtime = get_runtime()
        donate, runtime.donate = runtime.donate, False
        try:
            return fn(*args, **kwargs)
        except CoreError as exc:
            raise translate(exc) from None
        finally:
            runtime.donate = donate

    return wrapper


def call_guarded(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` with core errors translated."""
    try:
        return fn(*args, **kwargs)
    except CoreError as exc:
        raise translate(exc) from None


def output_casting_error(ufunc, casting: str, from_: np.dtype, to: np.dtype, i: int):
    """numpy's error for ``out=`` (or ``+=``) that would need an unsafe cast."""
    return _np_exc._UFuncOutputCastingError(ufunc, casting, from_, to, i)


def read_only_error() -> ValueError:
    return ValueError("assignment destination is read-only")
