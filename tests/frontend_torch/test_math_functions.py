"""Math functions lowered as torch computes them: special functions (digamma,
polygamma, erfcx, log_ndtr, Bessel), orthogonal polynomials, gcd/lcm, frexp,
fftfreq. Each check compares with eager torch on the CPU (values, dtypes,
shapes, or the exception type and text)."""


from __future__ import annotations

import math
import warnings

import pytest
import torch

from .conftest import DEV
from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes

SPECIAL_X = [0.0, -0.0, -1.0, -2.0, -3.0, -2.5, -9.75, -12.3, 0.25, 0.5, 1.0, 3.7, 40.0,
             1e-3, -1e-3, math.inf, -math.inf, math.nan]


POLYNOMIALS = [f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p"]


def test_angle_of_integers_and_digamma_at_zero_follow_torch():
    """angle of integer and bool tensors kept their dtype (torch: float32);
    digamma(+-0) gave NaN (torch: -inf at +0, +inf at -0), also through
    polygamma(0, x) and the Gamma distribution's entropy."""
    def program(dev):
        ints = torch.tensor([0, -1, 2]).to(dev)
        x = torch.tensor([0.0, -0.0, -2.5, 1.0, 3.0]).to(dev)
        return {"angle_int": ints.angle(), "angle_bool": torch.tensor([True]).to(dev).angle(),
                "angle_float": x.angle(), "angle_complex": (x + 1j).angle(),
                "digamma": x.digamma(), "digamma_int": ints.digamma(),
                "polygamma0": torch.polygamma(0, x), "half": x.half().digamma()}

    same_on_both(program)


def test_fftfreq_gives_the_negative_frequencies_as_torch():
    """torch.fft.fftfreq(8) on the lazy device gave [0, 1/8, ..., 7/8]
    instead of [0, ..., 3/8, -1/2, ..., -1/8]: torch's kernel writes the
    second half by resizing an empty slice of its output into the storage
    behind it, which a lazy view does not share (also with out=)."""
    def program(dev):
        out = [torch.fft.fftfreq(n, d, device=dev) for n in (1, 2, 7, 8) for d in (1.0, 0.5, 3)]
        out.append(torch.fft.fftfreq(5, 0.1, dtype=torch.float64, device=dev))
        out.append(torch.fft.fftfreq(6, dtype=torch.float16, device=dev))
        signal = torch.randn(16).to(dev)
        freqs = torch.fft.fftshift(torch.fft.fftfreq(16, 0.01, device=dev))
        out.append(freqs[torch.fft.fftshift(torch.fft.fft(signal)).abs().argmax()])
        for size in (3, 7):  # resized, and written in place
            o = torch.empty(size, dtype=torch.float64, device=dev)
            torch.fft.fftfreq(7, 0.3, out=o)
            out.append(o)
        return out

    before = fallbacks()
    same_on_both(program, rtol=0, atol=0)
    assert fallbacks() == before
    for dtype in (torch.int64, torch.complex64):
        errors = []
        for dev in (torch.device("cpu"), torch.device("lazy", 0)):
            try:
                torch.fft.fftfreq(6, dtype=dtype, device=dev)
            except (RuntimeError, NotImplementedError) as error:
                errors.append((type(error), str(error)))
        assert len(errors) == 2 and errors[0] == errors[1]


def test_gcd_and_lcm_are_lowered():
    """torch.gcd / torch.lcm (e.g. reducing fractions, aligning periods)
    ran as eager fallbacks although the core has both (Euclid unrolled to
    its worst case); bool and float operands must still raise torch's
    NotImplementedError."""
    def program(dev):
        a = torch.tensor([12, -18, 0, 7, -128], dtype=torch.int8).to(dev)
        b = torch.tensor([8, 12, 0, 0, 6], dtype=torch.int32).to(dev)
        num = torch.tensor([6, 10, -9, 1 << 40]).to(dev)
        den = torch.tensor([8, 25, 12, 3 << 41]).to(dev)
        g = torch.gcd(num, den)
        return [torch.gcd(a, b), torch.lcm(a, b), torch.gcd(a, a.flip(0)), num // g, den // g,
                a.clone().gcd_(a.flip(0)),
                torch.gcd(torch.tensor([255, 12], dtype=torch.uint8).to(dev),
                          torch.tensor([51, 18], dtype=torch.uint8).to(dev))]

    before = fallbacks()
    same_on_both(program, rtol=0, atol=0)
    assert fallbacks() == before

    def errors(dev):
        a = torch.tensor([4, 6]).to(dev)
        return [lambda: torch.gcd(a.bool(), a.bool()), lambda: torch.gcd(a.float(), a),
                lambda: torch.lcm(a, a.double()), lambda: torch.lcm(a, a)]

    same_outcomes(errors)


def test_spherical_bessel_j0_is_lowered():
    """torch.special.spherical_bessel_j0 (sinc-like radial features) ran as
    an eager fallback; it is sin(x) / x with its Taylor series near 0, 0 at
    +-inf, integers to float, and half precision raising as torch."""
    def program(dev):
        x = torch.cat([torch.linspace(-30, 30, 301), torch.linspace(-0.6, 0.6, 121),
                       torch.tensor([0.0, -0.0, 1e-20, float("inf"), -float("inf"),
                                     float("nan"), 0.5, -0.5, 0.49999])]).to(dev)
        j0 = torch.special.spherical_bessel_j0
        return [j0(x), j0(x.double()), j0(torch.arange(-3, 4).to(dev))]

    before = fallbacks()
    same_on_both(program, rtol=1e-6, atol=1e-7)
    assert fallbacks() == before

    def errors(dev):
        x = torch.ones(3).to(dev)
        return [lambda: torch.special.spherical_bessel_j0(x.half()),
                lambda: torch.special.spherical_bessel_j0(x.bfloat16())]

    same_outcomes(errors)


def test_frexp_is_lowered_exactly_for_every_float_dtype():
    """torch.frexp ran as an eager fallback; it is now read from the bits
    (subnormals included, which XLA's CPU float compares flush to zero)."""
    def program(dev):
        out = []
        for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
            tiny = torch.finfo(dtype).tiny
            x = torch.tensor([0.0, -0.0, 1.0, -3.5, 6e-8, float("inf"), -float("inf"),
                              float("nan"), tiny, tiny / 4, -tiny / 1024, 1e30],
                             dtype=torch.float64).to(dtype)
            x = torch.cat([x, (torch.randn(64, dtype=torch.float64) * 1e3).to(dtype)]).to(dev)
            mantissa, exponent = torch.frexp(x)
            out += [mantissa, exponent, mantissa.signbit()]
        w = torch.tensor([3.0, -0.2, 1e-3]).to(dev).requires_grad_()
        torch.frexp(w).mantissa.sum().backward()
        return out + [w.grad]

    before = fallbacks()
    same_on_both(program, rtol=0, atol=0)
    assert fallbacks() == before
    same_outcomes(lambda dev: [lambda: torch.frexp(torch.arange(3).to(dev))])


def test_erfcx_and_log_ndtr_are_lowered():
    """torch.special.erfcx (and log_ndtr, which calls it) ran as eager
    fallbacks; erfcx is now lowered in float64 (the product below 25, the
    asymptotic series above), and half precision or complex input raises
    torch's NotImplementedError for both (log_ndtr of half computed)."""
    def program(dev):
        x = torch.cat([torch.linspace(-9, 40, 401), torch.tensor([0.0, float("inf"),
                                                                  -float("inf"), float("nan")])])
        w = torch.linspace(-3, 3, 7).to(dev).requires_grad_()
        torch.special.erfcx(w).sum().backward()
        return [torch.special.erfcx(x.to(dev)), torch.special.erfcx(x.double().to(dev)),
                torch.special.log_ndtr(x.to(dev)), torch.special.erfcx(torch.arange(4).to(dev)),
                w.grad]

    before = fallbacks()
    same_on_both(program, rtol=1e-5, atol=1e-30)
    assert fallbacks() == before
    same_outcomes(lambda dev: [
        lambda: torch.special.erfcx(torch.ones(2, dtype=torch.half).to(dev)),
        lambda: torch.special.log_ndtr(torch.ones(2, dtype=torch.half).to(dev)),
        lambda: torch.special.erfcx(torch.ones(2, dtype=torch.complex64).to(dev))])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_polygamma_orders_lowered_with_torch_edge_values(dtype):
    x = torch.tensor(SPECIAL_X) if dtype is not torch.int64 else torch.arange(-3, 5)
    x = x.to(dtype)
    before = fallbacks()
    lx = x.to(DEV)
    lazy = [torch.polygamma(1, lx), torch.special.polygamma(2, lx), lx.polygamma(5)]
    for n, got in zip((1, 2, 5), lazy, strict=True):
        eager, got = torch.polygamma(n, x), got.cpu()
        assert got.dtype == eager.dtype and got.shape == eager.shape
        torch.testing.assert_close(got, eager, rtol=1e-5, atol=0, equal_nan=True)
    assert fallbacks() == before


def test_polygamma_grad_and_negative_order():
    def program(dev):
        x = torch.linspace(-4.3, 6.1, 23).to(dev).requires_grad_()
        y = torch.polygamma(2, x) + x.polygamma(1)
        y.sum().backward()
        return [y, x.grad]

    same_on_both(program, rtol=1e-4, atol=1e-5)
    same_outcomes(lambda dev: [lambda: torch.polygamma(-1, torch.ones(3, device=dev))])


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_orthogonal_polynomials_lowered_for_number_and_tensor_degrees(name):
    """torch.special.<poly>(x, 3) with a Python degree raised a RuntimeError on
    the lazy device (torch passes the n_scalar overload's wrapped number to
    the Tensor overload, which the eager fallback refused); tensor degrees
    ran eagerly. Now all are the core's recurrence: degrees truncated,
    negative ones 0, int inputs give float32."""
    f = getattr(torch.special, name)
    x = torch.tensor([-9.5, -2.0, -1.0, -0.7, 0.0, 1e-10, 0.3, 0.5, 0.99, 1.0, 1.5, 4.0,
                      math.inf, -math.inf])
    degrees = torch.tensor([-2.0, 0.0, 1.0, 2.9, 3.0, 7.0, 9.0, 12.0, 5.0, 20.0, 4.0, 6.0,
                            2.0, 3.0])
    before = fallbacks()

    def program(dev):
        return [f(x.to(dev), 3), f(x.double().to(dev), 12), f(x.to(dev), degrees.to(dev)),
                f(0.25, degrees.to(dev)), f(torch.arange(-3, 4).to(dev), 2),
                f(x.to(dev), torch.tensor([2, -1, 0, 5]).repeat(4)[:14].to(dev)),
                f(x.to(dev), 0), f(x.to(dev), -1)]

    same_on_both(program, rtol=1e-5, atol=1e-5)
    assert fallbacks() == before


def test_orthogonal_polynomial_huge_degree_falls_back_counted():
    x = torch.linspace(-1, 1, 7)
    before = fallbacks()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lazy = torch.special.legendre_polynomial_p(x.to(DEV), 500.0)
    torch.testing.assert_close(lazy.cpu(), torch.special.legendre_polynomial_p(x, 500.0))
    assert fallbacks() == before + 1
