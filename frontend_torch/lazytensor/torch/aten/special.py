"""torch.special's orthogonal polynomials (Chebyshev T/U/V/W and their
shifted forms, Hermite H/He, Laguerre L, Legendre P) on the core's
recurrences (``lazytensor.core.composite.elementwise.special``).

torch's rule: x and n promote together (int to float); the degree is n
truncated to an integer, and a negative degree gives 0. The recurrence is
unrolled to the largest degree, so a degree held in a lazy tensor is read
to the host (x stays lazy); a degree above ``MAX_DEGREE`` runs eagerly,
counted. A Python number in either slot (torch passes wrapped scalars of the
``x_scalar``/``n_scalar`` overloads as numbers) takes part as a scalar.
"""

from __future__ import annotations

import math

from lazytensor.core.composite.elementwise import special
from lazytensor.torch._promotion import INT_TO_FLOAT
from lazytensor.torch._tensor import LazyTensor, to_cpu
from lazytensor.torch.aten._common import aten, elementwise

import torch

MAX_DEGREE = 128  # unrolled recurrence steps at most; higher degrees run eagerly


def _top_degree(n) -> float:
    """The largest finite trunc(n) (-1 when there is none)."""
    if not isinstance(n, torch.Tensor):
        return math.trunc(n) if math.isfinite(n) else -1
    host = to_cpu(n) if isinstance(n, LazyTensor) else n
    if host.numel() == 0:
        return -1
    finite = host.double().nan_to_num(nan=-1.0, posinf=-1.0, neginf=-1.0)
    return finite.trunc().max().item()


def _host_scalar(v):
    return torch.tensor(v) if isinstance(v, (int, float, bool)) else v


def _polynomial(name: str):
    kind = name.removeprefix("special_").replace("_polynomial", "")
    packet = getattr(aten, name)

    def impl(x, n):
        top = _top_degree(n)
        if top > MAX_DEGREE:
            from lazytensor.torch._fallback import eager

            return eager(packet.default)(_host_scalar(x), _host_scalar(n))
        return elementwise(
            lambda xs, ns: special.orthogonal_polynomial(kind, xs, ns, max(int(top), 0)),
            INT_TO_FLOAT, x, n)

    return impl


_NAMES = [f"special_{shift}{family}_polynomial_{k}" for shift in ("", "shifted_")
          for family, kinds in (("chebyshev", "tuvw"),) for k in kinds]
_NAMES += ["special_hermite_polynomial_h", "special_hermite_polynomial_he",
           "special_laguerre_polynomial_l", "special_legendre_polynomial_p"]

TABLE = {getattr(aten, name): _polynomial(name) for name in _NAMES}
