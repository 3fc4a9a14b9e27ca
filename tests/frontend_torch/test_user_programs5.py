"""Regression tests for bugs that ordinary PyTorch programs hit on the lazy
device (fifth batch), each compared with eager torch on the CPU (values,
dtype, shape; see ``lazy_vs_eager.py``)."""

from __future__ import annotations

import torch

from .lazy_vs_eager import fallbacks, same_on_both, same_outcomes


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


def test_bitwise_ops_of_floats_raise_torchs_not_implemented_error():
    """x & y, x | 1, ~x, x << 1, bitwise_not... of float tensors (or an
    integer tensor with a float scalar) raised a RuntimeError from the
    core's type check; torch raises NotImplementedError ("bitwise_and_cpu"
    not implemented for 'Float'), which is what a user's except catches."""
    def program(dev):
        x = torch.randn(3, 4).to(dev)
        i = torch.tensor([1, 2, 3]).to(dev)
        b = torch.tensor([True, False, True]).to(dev)
        return [
            lambda: x & x, lambda: x | 1, lambda: x ^ x, lambda: x << 1,
            lambda: x.clone().bitwise_and_(x), lambda: torch.bitwise_xor(x, 1),
            lambda: x.double() >> 2, lambda: x.bitwise_not(), lambda: x.int() & x,
            lambda: b & x.T, lambda: i & 1.5, lambda: i << 1.5, lambda: 2.0 >> i,
            lambda: x.half() & 1, lambda: torch.bitwise_not(x.bfloat16()), lambda: ~x,
            lambda: i & (1 + 2j), lambda: i.bitwise_and(x.sum()),
            lambda: i | True, lambda: b ^ 1, lambda: b << 1, lambda: 3 << i, lambda: ~b,
        ]

    same_outcomes(program)


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


def test_mode_is_lowered_with_torchs_tie_rules():
    """torch.mode (majority vote over an ensemble's predictions) ran as an
    eager fallback; its lowering must give torch's smallest value among
    equally frequent ones and the last index where it occurs, and torch's
    errors for an empty dim and complex input."""
    def program(dev):
        votes = torch.tensor([[1, 2, 2, 3, 3, 1], [4, 4, 1, 1, 5, 5], [7, 7, 7, 7, 7, 7],
                              [3, 2, 1, 0, 9, 8]]).to(dev)
        x = torch.randn(4, 6).round().to(dev).requires_grad_()
        value, index = torch.mode(x, 1, keepdim=True)
        (value * torch.arange(4.0).to(dev)[:, None]).sum().backward()
        return [torch.mode(votes, 1), torch.mode(votes, 0, keepdim=True),
                torch.mode(torch.tensor([5, 3, 5, 3, 3, 5]).to(dev)),
                torch.mode(torch.tensor(5.0).to(dev)), torch.mode(torch.zeros(2, 0).to(dev), 0),
                torch.mode(torch.tensor([True, False, True]).to(dev)),
                torch.mode(torch.tensor([1.0, 3, 3, 1], dtype=torch.bfloat16).to(dev)),
                torch.mode(torch.randint(0, 4, (3, 5, 7)).to(dev), 1), value, index, x.grad]

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before

    def errors(dev):
        return [lambda: torch.mode(torch.zeros(2, 0).to(dev), 1)[0],
                lambda: torch.mode(torch.tensor([1 + 1j]).to(dev))[0]]

    same_outcomes(errors)


def test_put_is_lowered_with_torchs_checks():
    """Tensor.put / put_ (writing into the flattened tensor, e.g. a sparse
    update of a parameter) ran as an eager fallback; its lowering must wrap
    negative indices, sum repeated indices with accumulate=True, give its
    gradients, and raise torch's errors (index dtype, source dtype, sizes,
    an out-of-range CPU index)."""
    def program(dev):
        x = torch.randn(2, 3).to(dev).requires_grad_()
        s = torch.randn(3).to(dev).requires_grad_()
        y = x.put(torch.tensor([4, 0, -2]).to(dev), s * 2, accumulate=True)
        (y * torch.arange(6.0).view(2, 3).to(dev)).sum().backward()
        z = torch.zeros(2, 3).to(dev)
        return [y, x.grad, s.grad, z.put(torch.tensor([[0, -1]]).to(dev), torch.ones(2).to(dev)),
                z.clone().put_(torch.tensor([[5, 0], [-1, 1]]).to(dev), torch.arange(4.0).to(dev),
                               accumulate=True),
                z.t().put(torch.tensor([1, 2]).to(dev), torch.tensor([7.0, 8]).to(dev)),
                z.long().put(torch.tensor([1, 1]), torch.tensor([2, 3]).to(dev), accumulate=True),
                torch.tensor(5.0).to(dev).put(torch.tensor([0, -1]).to(dev),
                                              torch.tensor([1.0, 2]).to(dev), accumulate=True)]

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before

    def errors(dev):
        z = torch.zeros(2, 3).to(dev)
        one, two = torch.ones(1).to(dev), torch.ones(2).to(dev)
        return [lambda: z.put(torch.tensor([0], dtype=torch.int32).to(dev), one),
                lambda: z.put(torch.tensor([0]).to(dev), one.double()),
                lambda: z.put(torch.tensor([0, 1, 2]).to(dev), two),
                lambda: z.put(torch.tensor([0, 6]), two),
                lambda: torch.zeros(0).to(dev).put(torch.tensor([0]).to(dev), one)]

    same_outcomes(errors)


def test_accumulating_writes_into_bool_tensors_combine_as_or():
    """index_put_(accumulate=True), index_add, scatter_add, scatter_reduce
    ("sum"/"prod") and put(accumulate=True) into a bool tensor (marking
    visited nodes, coverage masks) crashed when the graph ran (XLA has no
    add or multiply for bools: "add does not accept dtype bool"), or raised
    at once for a single index; torch adds bools as OR and multiplies them
    as AND. index_reduce of bools must raise as torch's."""
    def program(dev):
        seen = torch.zeros(2, 3, dtype=torch.bool).to(dev)
        flags = torch.tensor([True, False, True]).to(dev)
        rows, cols = torch.tensor([1, 1, 0]).to(dev), torch.tensor([2, 2, 1]).to(dev)
        return [
            seen.index_put((rows, cols), flags, accumulate=True),
            seen.index_put((torch.tensor(1).to(dev), torch.tensor(2).to(dev)),
                           torch.tensor(True).to(dev), accumulate=True),
            seen.index_put((torch.tensor(1).to(dev),), torch.tensor(True).to(dev), accumulate=True),
            seen.index_add(1, torch.tensor([0, 0]).to(dev),
                           torch.ones(2, 2, dtype=torch.bool).to(dev)),
            seen[0].scatter_add(0, rows, flags),
            seen[0].scatter_reduce(0, rows, flags, "sum", include_self=False),
            torch.ones(3, dtype=torch.bool).to(dev).scatter_reduce(0, rows, flags, "prod"),
            seen.scatter(1, torch.tensor([[0, 0]]).to(dev), True, reduce="add"),
            seen.put(torch.tensor([4, 4, 0]).to(dev), flags, accumulate=True),
        ]

    before = fallbacks()
    same_on_both(program)
    assert fallbacks() == before

    def errors(dev):
        index = torch.tensor([0, 0]).to(dev)
        return [lambda: torch.ones(3, dtype=torch.bool).to(dev).index_reduce(
                    0, index, torch.tensor([True, False]).to(dev), "prod"),
                lambda: torch.ones(3, dtype=torch.complex64).to(dev).index_reduce(
                    0, index, torch.ones(2, dtype=torch.complex64).to(dev), "amax")]

    same_outcomes(errors)


def test_ops_without_a_kernel_for_the_dtypes_raise_as_torch():
    """Elementwise ops that torch has no kernel for computed or raised the
    wrong type: bool // bool, bool % bool and clamp of complex numbers
    gave results (torch: NotImplementedError), hypot/logaddexp/igamma of
    integers and fmod of bools raised RuntimeError (torch:
    NotImplementedError), a bool tensor ** True gave int64 (torch: a bool
    copy), addcmul of bools raised RuntimeError."""
    def program(dev):
        b = torch.tensor([True, False, True]).to(dev)
        i = torch.tensor([1, 2, 3]).to(dev)
        z = torch.tensor([1 + 1j, -2j, 3]).to(dev)
        return [
            lambda: b // b, lambda: b % True, lambda: torch.fmod(b, b), lambda: b ** b,
            lambda: b ** True, lambda: b ** False, lambda: b ** 2, lambda: True ** b,
            lambda: torch.hypot(i, i), lambda: torch.logaddexp(i, i.flip(0)),
            lambda: torch.igamma(i, i), lambda: torch.nextafter(i, i),
            lambda: torch.clamp(z, min=0.5), lambda: z.clamp(max=z.flip(0)),
            lambda: b.clamp(min=True), lambda: torch.addcmul(b, b, b),
            lambda: torch.maximum(z, z), lambda: z < z, lambda: z // 2,
            lambda: i // 2, lambda: i % 2, lambda: torch.hypot(i.float(), i.float()),
            lambda: torch.clamp(i, min=1.5), lambda: i ** 2, lambda: torch.addcmul(i, i, i),
        ]

    same_outcomes(program)


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
