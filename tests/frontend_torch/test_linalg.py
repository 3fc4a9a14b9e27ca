"""torch.linalg on the lazy device: inverse, matrix_exp, solve/det/lu, qr and
Householder products, with their gradients and errors. Each check compares
with eager torch on the CPU (values, dtypes, shapes, or the exception type
and text)."""


from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from .conftest import DEV
from .lazy_vs_eager import (
    fallbacks,
    same_on_both,
    same_without_fallback,
    train_step,
)


def test_small_linear_algebra():
    def program(dev):
        a = torch.randn(4, 4, dtype=torch.float64)
        spd = (a @ a.T + 4 * torch.eye(4, dtype=torch.float64)).to(dev)
        b = torch.randn(4, 2, dtype=torch.float64).to(dev)
        chol = torch.linalg.cholesky(spd)
        return {"solve": torch.linalg.solve(spd, b), "inv": torch.linalg.inv(spd),
                "det": torch.linalg.det(spd), "slogdet": torch.linalg.slogdet(spd),
                "chol": chol, "chol_solve": torch.cholesky_solve(b, chol),
                "eigvalsh": torch.linalg.eigvalsh(spd), "trace": spd.trace(),
                "tri": torch.linalg.solve_triangular(chol, b, upper=False),
                "matrix_norm": torch.linalg.matrix_norm(spd), "pinv_shape":
                torch.linalg.pinv(spd[:, :3]).shape, "kron": torch.kron(b[:2], b[:2])}

    same_on_both(program, rtol=1e-7, atol=1e-8)


def test_linalg_qr_is_lowered_with_torchs_signs_modes_gradient_and_errors():
    start = fallbacks()
    for shape, mode, dtype in [((5, 3), "reduced", torch.float32),
                               ((3, 5), "complete", torch.float64),
                               ((2, 4, 4), "r", torch.complex64)]:
        a = torch.randn(*shape, dtype=dtype)
        expected, got = torch.linalg.qr(a, mode=mode), torch.linalg.qr(a.to(DEV), mode=mode)
        for e, g in zip(expected, got, strict=True):
            assert g.dtype == e.dtype and g.shape == e.shape
            torch.testing.assert_close(g.cpu(), e)
    a = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    lazy_a = a.detach().to(DEV).requires_grad_()
    for x in (a, lazy_a):
        q, r = torch.linalg.qr(x)
        (q.sin().sum() + r.square().sum()).backward()
    torch.testing.assert_close(lazy_a.grad.cpu(), a.grad)
    assert fallbacks() == start
    for bad, mode in [(torch.ones(3), "reduced"), (torch.ones(3, 3, dtype=torch.long), "r"),
                      (torch.ones(3, 3), "full")]:
        with pytest.raises(RuntimeError) as eager:
            torch.linalg.qr(bad, mode=mode)
        with pytest.raises(RuntimeError, match=eager.value.args[0].replace("(", r"\(")
                           .replace(")", r"\)")):
            torch.linalg.qr(bad.to(DEV), mode=mode)


def test_orthogonal_parametrization_of_a_non_square_layer_uses_lowered_householder_products():
    """P.orthogonal's default map for a non-square weight is Householder
    (torch.linalg.householder_product, LAPACK's orgqr): lowered, with its
    gradient, so the training loop neither falls back nor recompiles."""
    from torch.nn.utils.parametrizations import orthogonal

    def program(dev):
        enc = orthogonal(nn.Linear(6, 3)).to(dev)
        head = nn.Linear(3, 2).to(dev)
        opt = torch.optim.SGD(list(enc.parameters()) + list(head.parameters()), lr=0.1)
        x, y = torch.randn(16, 6).to(dev), torch.randn(16, 2).to(dev)
        out, first = [], None
        for step in range(3):
            loss = F.mse_loss(head(torch.tanh(enc(x))), y)
            first = train_step(opt, loss, dev, out, step, first, settled=1)
        w = enc.weight
        return out + [w, w @ w.T, enc.parametrizations.weight.original.grad]

    same_without_fallback(program, rtol=1e-4, atol=1e-5)


def test_householder_product_raises_as_torch():
    cases = [(torch.ones(3), torch.ones(1)), (torch.ones(2, 3), torch.ones(1)),
             (torch.ones(3, 2), torch.ones(3)), (torch.ones(3, 2), torch.ones(2, 1)),
             (torch.ones(3, 2), torch.ones(1, dtype=torch.float64)),
             (torch.ones(3, 2, dtype=torch.long), torch.ones(1, dtype=torch.long)),
             (torch.ones(2, 3, 2), torch.ones(3, 1))]
    for a, tau in cases:
        with pytest.raises((RuntimeError, NotImplementedError)) as eager:
            torch.linalg.householder_product(a, tau)
        with pytest.raises(eager.type) as lazy:
            torch.linalg.householder_product(a.to(DEV), tau.to(DEV))
        assert str(lazy.value) == str(eager.value)
    a, tau = torch.randn(2, 4, 4, dtype=torch.complex64), torch.randn(2, 3, dtype=torch.complex64)
    got = torch.linalg.householder_product(a.to(DEV), tau.to(DEV))
    torch.testing.assert_close(got.cpu(), torch.linalg.householder_product(a, tau))


def test_inverse_and_matrix_exp_are_lowered_with_their_gradients():
    def program(dev):
        a = (torch.randn(2, 4, 4) + 4 * torch.eye(4)).to(dev).requires_grad_()
        ortho = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3)).to(dev)
        inv, exp = torch.linalg.inv(a), torch.linalg.matrix_exp(a / 4)
        (inv.sum() + exp.pow(2).sum()).backward()
        return {"inv": inv, "exp": exp, "grad": a.grad, "info": torch.linalg.inv_ex(a)[1],
                "gram": ortho.weight @ ortho.weight.T}

    before = fallbacks()
    same_on_both(program, rtol=1e-4, atol=1e-4)
    assert fallbacks() == before


def test_gaussian_process_solve_det_and_lu_are_lowered_with_their_gradients():
    """linalg.solve, det, slogdet, lu_factor, lu_solve, lu and lu_unpack (and
    so their backwards, which call linalg_lu_solve and lu_unpack) ran through
    the eager CPU fallback."""
    def program(dev):
        out = {}
        for dtype in (torch.float64, torch.complex64):
            x = torch.randn(6, 2, dtype=torch.float64)
            kernel = torch.exp(-torch.cdist(x, x) ** 2) + 0.5 * torch.eye(6)
            base = kernel.to(dtype).to(dev)
            for layout, a in (("contiguous", base.clone()), ("transposed", base.clone().mT)):
                a.requires_grad_()
                y = torch.randn(6, 2, dtype=dtype).to(dev).requires_grad_()
                alpha = torch.linalg.solve(a, y)
                right = torch.linalg.solve(a, y.mT, left=False)
                vec = torch.linalg.solve(a, y[:, 0])
                sign, logdet = torch.linalg.slogdet(a)
                lu, pivots = torch.linalg.lu_factor(a)
                via_lu = torch.linalg.lu_solve(lu, pivots, y, adjoint=True)
                p, low, up = torch.linalg.lu(a)
                nll = ((y.conj() * alpha).sum().real + logdet + torch.linalg.det(a).abs()
                       + right.abs().sum() + vec.abs().sum() + via_lu.abs().sum()
                       + low.abs().sum() + up.abs().sum())
                nll.backward()
                out[f"{dtype}-{layout}"] = {
                    "alpha": alpha, "right": right, "vec": vec, "sign": sign, "logdet": logdet,
                    "lu": lu, "pivots": pivots, "via_lu": via_lu, "p": p, "a_grad": a.grad,
                    "y_grad": y.grad}
        return out

    before = fallbacks()
    same_on_both(program, rtol=1e-4, atol=1e-5)
    assert fallbacks() == before


def test_matrix_exp_in_half_precision_is_computed_in_float32():
    """torch.linalg.matrix_exp of a bfloat16 or float16 matrix crashed at the
    barrier on the lazy device (XLA's solve has no half-precision kernel:
    NotImplementedError wrapping a KeyError); now computed in float32 and
    rounded. Eager torch's own CPU kernel gives NaN for these inputs (every
    element of the OpInfo samples), so the reference here is eager float32
    rounded to the half dtype (found by the bfloat16 OpInfo run)."""
    g = torch.Generator().manual_seed(5)
    x = torch.randn(2, 4, 4, generator=g) * 0.7
    for dtype in (torch.bfloat16, torch.float16):
        got = torch.linalg.matrix_exp(x.to(dtype).to(DEV)).cpu()
        want = torch.linalg.matrix_exp(x.to(dtype).float()).to(dtype)
        assert got.dtype == dtype and got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-2, atol=1e-2)
