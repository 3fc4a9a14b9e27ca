"""Run numpy's own test modules with ``lazytensor.numpy`` in place of numpy.

numpy ships its test suite; this copies some of its modules into a scratch
folder with ``import numpy as np`` rewritten to ``import lazytensor.numpy as
np``, so every ``np.<function>`` in a test builds and runs lazy arrays, and
runs them with pytest. numpy.testing's assertions receive host copies of
lazy arrays (``numpy.testing.assert_equal(lazy, lazy)`` would otherwise
compare with ``==`` and ask for the truth value of an array, as it does for
any array type that is not an ndarray subclass); those that call a function
(assert_raises, assert_warns, assert_no_warnings) pass it the test's own.

Failures are expected where numpy tests what lazytensor deliberately does
not do: object, string, datetime, structured and longdouble dtypes (which
run numpy's own code eagerly, so they pass where numpy's arrays may), ndarray
subclasses (matrix, masked arrays), numpy scalar return types (lazy
results are 0-d lazy arrays, as JAX's and CuPy's are), memory flags and
in-place writes through ``out=`` into numpy arrays the test owns. The figure
to watch is the pass count, per module. linalg's test_xerbla_override is
deselected: it forks, and the child of a process with XLA's threads hangs.
_core/tests/test_umath.py is not a default (about ten minutes; most of its
failures are FloatingPointError under np.errstate and numpy scalar types):
run it with ``--modules`` when ufuncs change. Neither are
_core/tests/test_ufunc.py (about twenty minutes: test_ufunc_at_inner_loops
replays 3,000 one-element writes per case; most failures are object loops,
numpy scalar types and ufunc internals) and _core/tests/test_multiarray.py
(the ndarray itself, far too long whole: run it per class with ``-k``, as below;
TestMethods.test_sort_degraded, a 500,000-step Python loop of element swaps,
is deselected, and TestBool/TestArgmaxArgminCommon take minutes).

    python ci/numpy_conformance.py                 # the default modules
    python ci/numpy_conformance.py --modules lib/tests/test_shape_base.py
    python ci/numpy_conformance.py --json out.json --failures
    python ci/numpy_conformance.py --modules _core/tests/test_multiarray.py \
        -k "TestMethods or TestDot or TestChoose" --failures
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import numpy
from _suites import report, run_module

MODULES = (
    "lib/tests/test_shape_base.py", "lib/tests/test_twodim_base.py",
    "lib/tests/test_type_check.py", "lib/tests/test_ufunclike.py",
    "lib/tests/test_arraysetops.py", "lib/tests/test_histograms.py",
    "lib/tests/test_nanfunctions.py", "lib/tests/test_arraypad.py",
    "lib/tests/test_index_tricks.py", "lib/tests/test_function_base.py",
    "linalg/tests/test_linalg.py", "fft/tests/test_pocketfft.py",
    "_core/tests/test_numeric.py", "_core/tests/test_shape_base.py",
    "_core/tests/test_function_base.py", "lib/tests/test_stride_tricks.py",
    "lib/tests/test_polynomial.py", "_core/tests/test_indexing.py",
    "_core/tests/test_numerictypes.py", "_core/tests/test_nep50_promotions.py",
)
# tests that cannot run in a process that already started XLA's threads: the
# child that test_xerbla_override forks deadlocks; test_sort_degraded swaps
# elements one at a time in a Python loop of 500,000 steps (hours, lazily)
DESELECT = ("linalg_tests_test_linalg_lazy.py::test_xerbla_override",
            "_core_tests_test_multiarray_lazy.py::TestMethods::test_sort_degraded")

CONFTEST = '''\
import functools

import lazytensor.numpy as lnp
import numpy
import numpy.testing


def _host(x):
    if isinstance(x, lnp.ndarray):
        return numpy.asarray(x)
    if isinstance(x, (list, tuple)) and any(isinstance(v, lnp.ndarray) for v in x):
        return type(x)(_host(v) for v in x)
    return x


def _on_host(assertion):
    @functools.wraps(assertion)
    def run(*args, **kwargs):
        return assertion(*map(_host, args), **{k: _host(v) for k, v in kwargs.items()})
    return run


# these call the function they are given: its arguments stay the test's own
# (a host copy would send out= into a copy: assert_no_warnings(f, a, out=a))
_CALLERS = {"assert_raises", "assert_raises_regex", "assert_warns", "assert_no_warnings",
            "assert_no_gc_cycles"}
for _name in dir(numpy.testing):
    if _name.startswith("assert_") and _name not in _CALLERS:
        setattr(numpy.testing, _name, _on_host(getattr(numpy.testing, _name)))
'''

_IMPORT = re.compile(r"^import numpy as np$", re.M)
_PRIVATE = re.compile(r"\bnp\.(_\w+)")  # numpy's private modules stay numpy's
def prepare(folder: Path, modules: list[str]) -> list[Path]:
    """The rewritten copies of ``modules`` (paths inside numpy) in ``folder``."""
    root = Path(numpy.__file__).parent
    (folder / "conftest.py").write_text(CONFTEST)
    copies = []
    for module in modules:
        source = (root / module).read_text()
        copy = folder / f"{module.replace('/', '_').removesuffix('.py')}_lazy.py"
        source = _IMPORT.sub("import lazytensor.numpy as np\nimport numpy", source)
        copy.write_text(_PRIVATE.sub(r"numpy.\1", source))
        copies.append(copy)
    return copies


def _deselected(copy: Path) -> tuple:
    return tuple(f"--deselect={test}" for test in DESELECT if test.startswith(copy.name + "::"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", help="comma-separated paths inside numpy")
    parser.add_argument("--json", help="write per-module counts here")
    parser.add_argument("--failures", action="store_true", help="list the failing tests")
    parser.add_argument("-k", dest="select", help="pytest's -k expression (classes, tests)")
    args = parser.parse_args(argv)
    modules = args.modules.split(",") if args.modules else list(MODULES)
    with tempfile.TemporaryDirectory() as tmp:
        results = [run_module(copy, args.failures, args.select, extra=_deselected(copy))
                   for copy in prepare(Path(tmp), modules)]
    report(results, f"numpy {numpy.__version__}: ", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
