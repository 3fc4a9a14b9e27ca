"""torch's errors that depend on computed values (LinAlgError of a
singular or indefinite matrix, multinomial's invalid probabilities): raised
by the barrier that computes the result, with torch's exception type and
message, followed by the op and the line that recorded it; the ``*_ex``
ops return LAPACK's info as torch does."""

from __future__ import annotations

import lazytensor.torch as lt
import pytest
import torch

from .conftest import DEV

INDEFINITE = [[1.0, 2.0], [2.0, 1.0]]
SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
SPD = [[4.0, 1.0], [1.0, 3.0]]
# one good matrix, then a bad one: torch names batch element 1
_CASES = {
    "linalg.cholesky": (lambda a: torch.linalg.cholesky(a), INDEFINITE),
    "linalg.cholesky upper": (lambda a: torch.linalg.cholesky(a, upper=True), INDEFINITE),
    "linalg.cholesky batch": (lambda a: torch.linalg.cholesky(a), [SPD, INDEFINITE]),
    "cholesky 3x3 order 3": (lambda a: torch.linalg.cholesky(a),
                             [[1.0, 0, 0], [0, 1.0, 0], [0, 0, -1.0]]),
    "cholesky NaN": (lambda a: torch.linalg.cholesky(a), [[1.0, float("nan")], [float("nan"), 1]]),
    "torch.cholesky": (lambda a: torch.cholesky(a), INDEFINITE),
    "cholesky_ex check_errors": (lambda a: torch.linalg.cholesky_ex(a, check_errors=True).L,
                                 INDEFINITE),
    "linalg.inv": (lambda a: torch.linalg.inv(a), SINGULAR),
    "linalg.inv batch": (lambda a: torch.linalg.inv(a), [SPD, SINGULAR]),
    "torch.inverse": (lambda a: torch.inverse(a), SINGULAR),
    "inv_ex check_errors": (lambda a: torch.linalg.inv_ex(a, check_errors=True).inverse,
                            SINGULAR),
    "matrix_power -1": (lambda a: torch.linalg.matrix_power(a, -1), SINGULAR),
    "tensorinv": (lambda a: torch.linalg.tensorinv(a, 1), SINGULAR),
    "linalg.solve": (lambda a: torch.linalg.solve(a, torch.ones(2, device=a.device)), SINGULAR),
    "linalg.solve batch": (lambda a: torch.linalg.solve(a, torch.ones(2, 2, device=a.device)),
                           [SPD, SINGULAR]),
    "solve_ex check_errors": (lambda a: torch.linalg.solve_ex(
        a, torch.ones(2, device=a.device), check_errors=True).result, SINGULAR),
    "tensorsolve": (lambda a: torch.linalg.tensorsolve(a, torch.ones(2, device=a.device)),
                    SINGULAR),
    "linalg.lu_factor": (lambda a: torch.linalg.lu_factor(a).LU, [SPD, [[0.0, 0], [0, 0]]]),
    "cholesky_inverse": (lambda a: torch.cholesky_inverse(a), [[1.0, 0], [1.0, 0]]),
    "cholesky_inverse batch": (lambda a: torch.cholesky_inverse(a),
                               [[[1.0, 0], [0, 1]], [[1.0, 0], [1, 0]]]),
}


def _eager_error(fn, value):
    with pytest.raises(Exception) as info:
        fn(torch.tensor(value))
    return info.value


@pytest.mark.parametrize("name", sorted(_CASES))
def test_error_is_torch_s_at_the_read(name):
    fn, value = _CASES[name]
    expected = _eager_error(fn, value)
    out = fn(torch.tensor(value, device=DEV))  # recorded: nothing raised yet
    with pytest.raises(type(expected)) as info:
        out.cpu()
    message = str(info.value)
    assert message.splitlines()[0] == str(expected)
    assert f"recorded at {__file__}:" in message  # the line in fn, not lazytensor's


@pytest.mark.parametrize("name", ["linalg.cholesky", "linalg.inv", "linalg.solve"])
def test_mark_step_raises_once_and_keeps_the_values(name):
    fn, value = _CASES[name]
    out = fn(torch.tensor(value, device=DEV))
    with pytest.raises(Exception, match="recorded at"):
        lt.mark_step()
    lt.mark_step()  # raised once
    assert not torch.isfinite(out.cpu()).all()  # the factorization's NaN/inf


@pytest.mark.parametrize("name", ["linalg.cholesky batch", "linalg.inv batch",
                                  "linalg.solve batch", "cholesky_inverse batch"])
def test_valid_inputs_raise_nothing(name):
    fn, value = _CASES[name]
    good = torch.tensor(value)[:1]
    torch.testing.assert_close(fn(good.to(DEV)).cpu(), fn(good))
    lt.mark_step()


_INFOS = {
    "cholesky_ex": lambda a: torch.linalg.cholesky_ex(a).info,
    "inv_ex": lambda a: torch.linalg.inv_ex(a).info,
    "solve_ex": lambda a: torch.linalg.solve_ex(a, torch.ones(a.shape[:-1], device=a.device)).info,
    "lu_factor_ex": lambda a: torch.linalg.lu_factor_ex(a).info,
}


def _matrices():
    """Positive definite, indefinite at each order, singular, a batch."""
    out = [torch.tensor(SPD), torch.tensor(INDEFINITE), torch.tensor(SINGULAR),
           torch.zeros(3, 3), torch.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])]
    for k in range(4):
        d = torch.ones(4)
        d[k] = -1.0
        out.append(torch.diag(d))
    out.append(torch.stack([torch.eye(3), -torch.eye(3), torch.diag(torch.tensor([1.0, 1, 0]))]))
    return out


@pytest.mark.parametrize("name", sorted(_INFOS))
def test_ex_ops_return_lapack_s_info_and_raise_nothing(name):
    for a in _matrices():
        expected = _INFOS[name](a)
        actual = _INFOS[name](a.to(DEV))
        lt.mark_step()
        torch.testing.assert_close(actual.cpu(), expected, msg=f"{name} of {a}")


_PROBABILITIES = {
    "negative": [0.5, -0.1], "NaN": [0.5, float("nan")], "inf": [0.5, float("inf")],
    "all zero": [0.0, 0.0], "a zero row": [[0.5, 0.5], [0.0, 0.0]],
    "inf then negative": [[float("inf"), 1.0], [1.0, -1.0]],
}


@pytest.mark.parametrize("samples,replacement", [(1, False), (2, True), (2, False)])
@pytest.mark.parametrize("name", sorted(_PROBABILITIES))
def test_multinomial_invalid_probabilities_raise_torch_s_error(name, samples, replacement):
    p = _PROBABILITIES[name]
    expected = _eager_error(lambda t: torch.multinomial(t, samples, replacement), p)
    out = torch.multinomial(torch.tensor(p, device=DEV), samples, replacement)
    with pytest.raises(type(expected)) as info:
        out.cpu()
    assert str(info.value).splitlines()[0] == str(expected)
    assert "multinomial recorded at" in str(info.value)


def test_multinomial_valid_probabilities_raise_nothing():
    p = torch.tensor([[0.0, 1.0, 0.0], [0.2, 0.0, 0.8]], device=DEV)
    out = torch.multinomial(p, 2, replacement=True).cpu()
    assert out[0].tolist() == [1, 1] and set(out[1].tolist()) <= {0, 2}


def test_a_captured_step_with_a_check_is_never_replayed_so_it_still_raises():
    """A replay would not run the Python body that records the check."""
    @lt.capture
    def step(a):
        return torch.linalg.cholesky(a).sum()

    for _ in range(3):
        torch.testing.assert_close(float(step(torch.tensor(SPD, device=DEV))),
                                   float(torch.linalg.cholesky(torch.tensor(SPD)).sum()))
    with pytest.raises(torch.linalg.LinAlgError, match="recorded at"):
        float(step(torch.tensor(INDEFINITE, device=DEV)))
