"""``python -m lazytensor.lift FILE.py:FUNCTION`` prints the program, its
verification and the time; examples come from the file or from --spec."""

import subprocess
import sys
import textwrap

SOURCE = textwrap.dedent('''
    import numpy as np

    def row_sums(A):
        n, m = A.shape
        r = np.zeros(n)
        for i in range(n):
            for j in range(m):
                r[i] += A[i, j]
        return r

    def running(x):
        out = np.zeros(len(x))
        acc = 0.0
        for i in range(len(x)):
            acc = 0.5 * acc + x[i]
            out[i] = acc
        return out

    EXAMPLES = [(np.arange(6.0).reshape(2, 3),), (np.ones((4, 5)),)]
''')


def _run(tmp_path, *args):
    path = tmp_path / "legacy.py"
    path.write_text(SOURCE)
    return subprocess.run([sys.executable, "-m", "lazytensor.lift", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def test_cli_lifts_with_the_files_examples(tmp_path):
    out = _run(tmp_path, "legacy.py:row_sums")
    assert out.returncode == 0, out.stderr
    assert "r[i] = sum[j](A[i, j])" in out.stdout
    assert "verified" in out.stdout and "lifted in" in out.stdout


def test_cli_spec_examples_and_failure_status(tmp_path):
    ok = _run(tmp_path, "legacy.py:row_sums", "--spec", "f8[n,m]")
    assert ok.returncode == 0, ok.stderr
    bad = _run(tmp_path, "legacy.py:running", "--spec", "f8[n]", "--time-limit", "2")
    assert bad.returncode == 1
    assert "no program for `out`" in bad.stdout and "gave up after" in bad.stdout
