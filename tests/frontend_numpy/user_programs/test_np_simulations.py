"""Simulations (ODE and PDE steppers, particle and lattice models) as
scientists write them in numpy. Each test writes an ordinary numpy program
once, runs it with numpy and with ``lazytensor.numpy`` on the same data and
compares (``np_compare.check``: values with a dtype-fitting tolerance,
dtype, shape, Python types; a third run compiles nothing; no eager fallback
but the ones a program names)."""


from __future__ import annotations

import lazytensor.numpy as lnp
import numpy as np
import pytest
from lazytensor.core.runtime import get_runtime
from np_compare import check


def wave_equation(np, u0):
    """The 2-D wave equation with a leapfrog scheme: a five-point Laplacian
    from slices, fixed (zero) edges, energy as a Python float per step."""
    c, dt, dx = 1.0, 0.1, 0.5
    r2 = (c * dt / dx) ** 2
    prev, cur = u0.copy(), u0.copy()
    energy = []
    for _ in range(15):
        lap = np.zeros_like(cur)
        lap[1:-1, 1:-1] = (cur[2:, 1:-1] + cur[:-2, 1:-1] + cur[1:-1, 2:]
                           + cur[1:-1, :-2] - 4 * cur[1:-1, 1:-1])
        nxt = 2 * cur - prev + r2 * lap
        nxt[0, :] = nxt[-1, :] = 0
        nxt[:, 0] = nxt[:, -1] = 0
        prev, cur = cur, nxt
        energy.append(round(float(np.sum(cur ** 2)), 8))
    return cur, energy, np.unravel_index(np.argmax(np.abs(cur)), cur.shape)


def julia_set(np, zr, zi):
    """Escape times of a Julia set on a complex grid, iterating only the
    points still bounded (a mask updated in place), smooth colouring."""
    z = zr[None, :] + 1j * zi[:, None]
    c = -0.8 + 0.156j
    counts = np.zeros(z.shape, dtype=np.int32)
    alive = np.ones(z.shape, dtype=bool)
    for i in range(30):
        z[alive] = z[alive] ** 2 + c
        escaped = alive & (np.abs(z) > 2)
        counts[escaped] = i
        alive &= ~escaped
    smooth = counts + 1 - np.log2(np.log(np.maximum(np.abs(z), 2.0)))
    return counts, float(alive.mean()), smooth.astype(np.float32)


def lorenz_rk4(np, state0):
    """The Lorenz system integrated with classical RK4 in a fixed-step
    Python loop, the trajectory stacked from a list, a Poincare-style
    crossing count with np.diff of signs."""
    sigma, rho, beta = 10.0, 28.0, 8.0 / 3.0

    def f(s):
        x, y, z = s
        return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])

    h = 0.01
    s = state0.copy()
    traj = [s]
    for _ in range(60):
        k1 = f(s)
        k2 = f(s + h / 2 * k1)
        k3 = f(s + h / 2 * k2)
        k4 = f(s + h * k3)
        s = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj.append(s)
    traj = np.stack(traj)
    crossings = np.count_nonzero(np.diff(np.sign(traj[:, 0])))
    return traj, crossings, traj.min(axis=0), np.linalg.norm(traj[-1])


def poisson_gauss_seidel(np, f):
    """The 2-D Poisson equation by red-black Gauss-Seidel sweeps on a
    checkerboard mask with slices, until the residual norm drops below a
    tolerance; the Cholesky-based multivariate log-density of the result."""
    n = f.shape[0]
    h2 = (1.0 / (n - 1)) ** 2
    u = np.zeros_like(f)
    ii, jj = np.indices((n - 2, n - 2))
    red = (ii + jj) % 2 == 0
    sweeps = 0
    for sweeps in range(1, 200):  # noqa: B007
        for colour in (red, ~red):
            nb = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
            inner = u[1:-1, 1:-1]
            inner[colour] = ((nb + h2 * f[1:-1, 1:-1]) / 4)[colour]
        r = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
             - 4 * u[1:-1, 1:-1]) / h2 + f[1:-1, 1:-1]
        if np.linalg.norm(r) < 1e-2:
            break
    C = np.cov(u[1:-1, 1:-1]) + 1e-3 * np.eye(n - 2)
    L = np.linalg.cholesky(C)
    sign, logdet = np.linalg.slogdet(C)
    z = np.linalg.solve(L, u[1:-1, n // 2])
    return u, sweeps, float(logdet), float(-0.5 * z @ z), sign


def n_body(np, pos, vel, mass):
    """A softened gravitational N-body system with kick-drift-kick leapfrog:
    pairwise separations by broadcasting, np.fill_diagonal, accelerations
    with einsum, energy and angular momentum (np.cross) conservation."""
    G, eps, dt = 1.0, 0.05, 0.01

    def accel(p):
        d = p[None, :, :] - p[:, None, :]
        r2 = (d ** 2).sum(-1) + eps ** 2
        inv3 = r2 ** -1.5
        np.fill_diagonal(inv3, 0.0)
        return G * np.einsum("ij,ijk,j->ik", inv3, d, mass)

    def energy(p, v):
        d = p[None] - p[:, None]
        r = np.sqrt((d ** 2).sum(-1) + eps ** 2)
        i, j = np.triu_indices(len(mass), 1)
        return 0.5 * (mass * (v ** 2).sum(1)).sum() - G * (mass[i] * mass[j] / r[i, j]).sum()

    e0 = energy(pos, vel)
    a = accel(pos)
    for _ in range(25):
        vel = vel + 0.5 * dt * a
        pos = pos + dt * vel
        a = accel(pos)
        vel = vel + 0.5 * dt * a
    L = np.cross(pos, mass[:, None] * vel).sum(axis=0)
    return pos, vel, float(abs(energy(pos, vel) - e0) / abs(e0)), L


def finite_differences(np, f, dx, dy):
    """The gradient of a sampled surface with np.gradient (second-order edges
    too), divergence and a five-point Laplacian by slicing, np.diff of a
    profile, and the trapezoid integral of the gradient's magnitude."""
    gy, gx = np.gradient(f, dy, dx)
    gy2, gx2 = np.gradient(f, dy, dx, edge_order=2)
    div = np.gradient(gx, dx, axis=1) + np.gradient(gy, dy, axis=0)
    lap = np.zeros_like(f)
    lap[1:-1, 1:-1] = ((f[1:-1, 2:] - 2 * f[1:-1, 1:-1] + f[1:-1, :-2]) / dx ** 2
                       + (f[2:, 1:-1] - 2 * f[1:-1, 1:-1] + f[:-2, 1:-1]) / dy ** 2)
    profile = f[f.shape[0] // 2]
    d1 = np.diff(profile) / dx
    d2 = np.diff(profile, n=2) / dx ** 2
    mag = np.hypot(gx2, gy2)
    area = np.trapezoid(np.trapezoid(mag, dx=dx, axis=1), dx=dy)
    return gx, gy, gx2 - gx, div, lap, d1, d2, float(area)


def damped_oscillators(np, x0, v0, k, c):
    """Many damped oscillators stepped with semi-implicit Euler, updating the
    state in place (v += dt * a; x += dt * v) and through ufunc out=
    arguments, the energy traced per step into a preallocated array."""
    dt, steps = 0.01, 80
    x, v = x0.copy(), v0.copy()
    a = np.empty_like(x)
    energy = np.empty(steps)
    for i in range(steps):
        np.multiply(-k, x, out=a)
        a -= c * v
        v += dt * a
        np.add(x, dt * v, out=x)
        energy[i] = 0.5 * np.sum(v * v + k * x * x)
    settled = np.flatnonzero(np.abs(x) < 0.05 * np.abs(x0))
    return x, v, energy, settled, bool(np.all(np.diff(energy) <= 1e-12))


def rk45_adaptive(np, y0):
    """An adaptive Runge-Kutta-Fehlberg integrator for a predator-prey system:
    the step size grows and shrinks with the embedded error estimate (a
    Python float from np.max), accepted steps appended to lists."""
    a, b, c, d = 1.0, 0.1, 1.5, 0.075

    def f(y):
        return np.array([a * y[0] - b * y[0] * y[1], -c * y[1] + d * y[0] * y[1]])

    t, h, y = 0.0, 0.1, y0.astype(float)
    ts, ys = [t], [y]
    while t < 4.0:
        h = min(h, 4.0 - t)
        k1 = f(y)
        k2 = f(y + h * k1 / 4)
        k3 = f(y + h * (3 * k1 + 9 * k2) / 32)
        k4 = f(y + h * (1932 * k1 - 7200 * k2 + 7296 * k3) / 2197)
        k5 = f(y + h * (439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104))
        k6 = f(y + h * (-8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565 + 1859 * k4 / 4104 - 11 * k5 / 40))
        y4 = y + h * (25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5)
        y5 = y + h * (16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430
                      - 9 * k5 / 50 + 2 * k6 / 55)
        err = float(np.max(np.abs(y5 - y4)))
        if err < 1e-6:
            t, y = t + h, y5
            ts.append(t)
            ys.append(y)
        h = 0.9 * h * (1e-6 / max(err, 1e-14)) ** 0.2
    return np.array(ts), np.stack(ys), len(ts)


def heat_implicit_crank_nicolson(np, u0):
    """The 1-D heat equation with Crank-Nicolson steps: tridiagonal matrices
    built with np.diag of offsets, the step matrix from np.linalg.solve once,
    then repeated matrix-vector products; compared with np.linalg.eigh's
    spectral solution."""
    n = len(u0)
    r = 0.5
    off = np.ones(n - 1)
    T = np.diag(-2 * np.ones(n)) + np.diag(off, 1) + np.diag(off, -1)
    A = np.eye(n) - r / 2 * T
    B = np.eye(n) + r / 2 * T
    M = np.linalg.solve(A, B)
    u = u0.copy()
    history = [u]
    for _ in range(25):
        u = M @ u
        history.append(u)
    w, V = np.linalg.eigh(T)
    lam = (1 + r / 2 * w) / (1 - r / 2 * w)
    spectral = V @ (lam ** 25 * (V.T @ u0))
    return np.array(history)[::5], spectral, float(np.abs(u - spectral).max()), float(u.sum())


def ray_spheres(np, origins, dirs, centres, radii):
    """Ray-sphere intersection for every ray and sphere by broadcasting with
    np.newaxis: the discriminant as a mask, the nearest positive hit with
    np.where and np.inf, the hit sphere's id, normals and Lambert shading."""
    dirs = dirs / np.linalg.norm(dirs, axis=-1, keepdims=True)
    oc = origins[:, np.newaxis, :] - centres[np.newaxis, :, :]
    b = np.sum(oc * dirs[:, np.newaxis, :], axis=-1)
    c = np.sum(oc * oc, axis=-1) - radii ** 2
    disc = b * b - c
    hit = disc > 0
    sq = np.sqrt(np.where(hit, disc, 0.0))
    t0, t1 = -b - sq, -b + sq
    t = np.where(t0 > 1e-6, t0, t1)
    t = np.where(hit & (t > 1e-6), t, np.inf)
    nearest = t.argmin(axis=1)
    tmin = t[np.arange(len(t)), nearest]
    any_hit = np.isfinite(tmin)
    points = origins + dirs * np.where(any_hit, tmin, 0)[:, None]
    normals = (points - centres[nearest]) / radii[nearest][:, None]
    light = np.array([0.3, 0.9, -0.3])
    shade = np.where(any_hit, np.clip(normals @ (light / np.linalg.norm(light)), 0, 1), 0.0)
    return np.where(any_hit, nearest, -1), tmin, shade, hit.sum(axis=0), any_hit.mean()


def quantum_circuit(np, theta):
    """A three-qubit state vector simulator: gates expanded to the full space
    by np.kron, a CNOT from np.eye rows, measurement probabilities, partial
    traces by reshape and np.tensordot, and the expectation of Z on each
    qubit by np.outer weights."""
    I = np.eye(2)
    H = np.array([[1, 1], [1, -1]]) / np.sqrt(2)
    Z = np.diag([1.0, -1.0])
    ry = np.array([[np.cos(theta / 2), -np.sin(theta / 2)], [np.sin(theta / 2), np.cos(theta / 2)]])
    cnot = np.eye(4)[[0, 1, 3, 2]]
    state = np.zeros(8)
    state[0] = 1
    state = np.kron(np.kron(H, I), ry) @ state
    state = np.kron(cnot, I) @ state
    state = np.kron(I, cnot) @ state
    probs = state ** 2
    psi = state.reshape(2, 2, 2)
    rho01 = np.tensordot(psi, psi, axes=([2], [2])).reshape(4, 4)
    ez = [float(np.kron(np.kron(*ops[:2]), ops[2]) @ state @ state)
          for ops in ([Z, I, I], [I, Z, I], [I, I, Z])]
    w = np.outer([1, -1], [1, -1]).ravel()
    corr = (probs.reshape(4, 2).sum(axis=1) * w).sum()
    return state, probs, rho01, np.trace(rho01), ez, corr, np.linalg.eigvalsh(rho01)


def ising_checkerboard(np, spins, uniforms, temps):
    """A 2-d Ising model by Metropolis sweeps on checkerboard colours: the
    neighbour sum by np.roll, the energy change, acceptance against given
    uniforms with a temperature that changes every sweep (a Python float),
    and the magnetisation and energy per sweep."""
    h, w = spins.shape
    ii, jj = np.indices((h, w))
    colours = [(ii + jj) % 2 == 0, (ii + jj) % 2 == 1]
    mags, energies = [], []
    for k, T in enumerate(temps):
        for c, mask in enumerate(colours):
            nb = (np.roll(spins, 1, 0) + np.roll(spins, -1, 0) + np.roll(spins, 1, 1)
                  + np.roll(spins, -1, 1))
            dE = 2 * spins * nb
            flip = mask & ((dE <= 0) | (uniforms[k, c] < np.exp(-dE / T)))
            spins = np.where(flip, -spins, spins)
        mags.append(spins.mean())
        energies.append(-(spins * (np.roll(spins, 1, 0) + np.roll(spins, 1, 1))).sum())
    return spins, np.array(mags), np.array(energies), np.abs(spins.sum())


def random_walks(np, steps):
    """Random walks from ±1 steps: positions by np.cumsum, first passage of a
    barrier by argmax of a boolean with a never-hit sentinel, the walks'
    extremes, time spent positive, and returns to the origin."""
    pos = np.cumsum(steps, axis=1)
    hit = np.abs(pos) >= 6
    ever = hit.any(axis=1)
    first = np.where(ever, hit.argmax(axis=1), -1)
    ret = (pos == 0).sum(axis=1)
    frac_pos = (pos > 0).mean(axis=1)
    lo, hi = pos.min(axis=1), pos.max(axis=1)
    surv = 1 - np.cumsum(np.bincount(first[ever], minlength=steps.shape[1])) / len(steps)
    return pos[:, -1], first, ret, frac_pos, hi - lo, surv, np.median(first[ever])


def pendulum_rk4(np, theta0, omega0, dt, steps):
    """A damped pendulum integrated by classical Runge-Kutta over a state
    vector, the trajectory kept in a preallocated array, the energy and its
    time integral by np.trapezoid, and the angular acceleration by
    np.gradient."""
    def f(y):
        return np.array([y[1], -9.81 * np.sin(y[0]) - 0.1 * y[1]])

    y = np.array([theta0, omega0])
    traj = np.empty((steps + 1, 2))
    traj[0] = y
    for k in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[k + 1] = y
    energy = 0.5 * traj[:, 1] ** 2 + 9.81 * (1 - np.cos(traj[:, 0]))
    t = np.arange(steps + 1) * dt
    return traj, np.trapezoid(energy, t), np.gradient(traj[:, 1], dt), energy[-1] < energy[0]


def life_and_rule110(np, board, row, steps):
    """Conway's game of life by summing the eight np.roll shifts of a
    toroidal int8 board, the live count per generation, and an elementary
    rule 110 automaton where each cell's 3-bit neighbourhood indexes the rule
    table (a uint8 bit shift)."""
    counts = []
    for _ in range(steps):
        n = sum(np.roll(np.roll(board, i, 0), j, 1)
                for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        board = ((n == 3) | ((board == 1) & (n == 2))).astype(np.int8)
        counts.append(int(board.sum()))
    history = [row]
    for _ in range(steps):
        code = (np.roll(row, 1) << 2) | (row << 1) | np.roll(row, -1)
        row = (np.uint8(110) >> code) & 1
        history.append(row)
    return board, counts, np.stack(history), board.dtype.name


def host_drawn_random_walks(np, steps, barrier):
    """Random walks drawn on the host and processed lazily: positions by
    cumsum, running maxima by np.maximum.accumulate, the first step past a
    barrier (argmax of a mask, -1 when never crossed), the mean squared
    displacement and the histogram of final positions."""
    pos = np.cumsum(steps, axis=1)
    runmax = np.maximum.accumulate(pos, axis=1)
    crossed = pos >= barrier
    first = np.where(crossed.any(axis=1), crossed.argmax(axis=1), -1)
    msd = (pos.astype(np.float64) ** 2).mean(axis=0)
    hist, edges = np.histogram(pos[:, -1], bins=5)
    drawdown = (runmax - pos).max(axis=1)
    return pos[:, -1], first, msd, hist, edges, drawdown, int((first >= 0).sum())


def heat_equation(np, u0, alpha, steps):
    """The 2-D heat equation by explicit finite differences (five-point
    Laplacian by slicing, Dirichlet borders), then a 1-D Crank-Nicolson run
    with np.linalg.solve on a tridiagonal matrix built with np.diag, and the
    total heat and the maximum over time."""
    u = u0.copy()
    dx = 1.0 / (u.shape[0] - 1)
    dt = 0.2 * dx * dx / alpha
    peaks = []
    for _ in range(steps):
        lap = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]) / dx**2
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * dt * lap
        peaks.append(u.max())
    n = u.shape[0] - 2
    r = alpha * dt / dx**2
    main, off = np.full(n, 1 + r), np.full(n - 1, -r / 2)
    A = np.diag(main) + np.diag(off, 1) + np.diag(off, -1)
    B = np.diag(np.full(n, 1 - r)) + np.diag(-off, 1) + np.diag(-off, -1)
    v = u0[u0.shape[0] // 2, 1:-1].copy()
    for _ in range(steps):
        v = np.linalg.solve(A, B @ v)
    return u, np.array(peaks), u.sum() * dx * dx, v, np.trapezoid(v, dx=dx)


@pytest.mark.usefixtures('runtime')
def test_wave_equation_leapfrog():
    x = np.linspace(-1, 1, 24)
    X, Y = np.meshgrid(x, x)
    check(wave_equation, np.exp(-20 * ((X - 0.2) ** 2 + 2 * Y ** 2)) + 0.1 * X * Y ** 2, rtol=1e-7)


@pytest.mark.usefixtures('runtime')
def test_julia_set_with_masks():
    check(julia_set, np.linspace(-1.5, 1.5, 30), np.linspace(-1, 1, 20), rtol=1e-6)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_lorenz_rk4_loop():
    check(lorenz_rk4, np.array([1.0, 1.0, 1.0]), rtol=1e-9)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_poisson_red_black_gauss_seidel():
    x = np.linspace(0, 1, 10)
    X, Y = np.meshgrid(x, x)
    check(poisson_gauss_seidel, 2 * np.pi ** 2 * np.sin(np.pi * X) * np.sin(np.pi * Y), rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_n_body_leapfrog():
    rng = np.random.default_rng(33)
    check(n_body, rng.normal(size=(8, 3)), 0.3 * rng.normal(size=(8, 3)),
          rng.uniform(0.5, 1.5, 8), rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_gradient_divergence_and_laplacian():
    y, x = np.mgrid[-1:1:21j, -1.5:1.5:31j]
    f = np.exp(-(x ** 2 + 2 * y ** 2)) * np.cos(3 * x)
    check(finite_differences, f, 0.1, 0.1, rtol=1e-9)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_damped_oscillators_in_place_with_out():
    rng = np.random.default_rng(111)
    n = 12
    check(damped_oscillators, rng.normal(size=n), np.zeros(n),
          rng.uniform(1, 20, n), rng.uniform(0.1, 2, n), rtol=1e-9)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_adaptive_rkf45_predator_prey():
    check(rk45_adaptive, np.array([10, 5]), rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_crank_nicolson_heat_equation():
    x = np.linspace(0, 1, 16)
    check(heat_implicit_crank_nicolson, np.exp(-60 * (x - 0.4) ** 2), rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
def test_ray_sphere_intersection_with_masks():
    rng = np.random.default_rng(133)
    n = 200
    dirs = np.stack([rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n), np.ones(n)], axis=1)
    check(ray_spheres, np.zeros((n, 3)), dirs, rng.uniform([-2, -2, 4], [2, 2, 8], (5, 3)),
          rng.uniform(0.5, 1.5, 5))


@pytest.mark.usefixtures('own_runtime')
def test_quantum_circuit_with_kron_and_tensordot():
    check(quantum_circuit, np.float64(0.7), rtol=1e-9)
    check(quantum_circuit, 1.3, rtol=1e-9)


@pytest.mark.usefixtures('own_runtime')
def test_ising_model_with_checkerboard_sweeps():
    rng = np.random.default_rng(143)
    spins = rng.choice(np.array([-1, 1]), (16, 16))
    # one sweep: XLA's CPU compile time grows fast with each np.roll stencil in one graph
    check(ising_checkerboard, spins, rng.random((1, 2, 16, 16)), [2.3])


@pytest.mark.usefixtures('own_runtime')
def test_a_loop_with_a_changing_python_temperature_compiles_once():
    """The Ising sweep body is one graph whatever the temperature: sweeps
    with a new Python float compile nothing after the second."""
    rng = np.random.default_rng(144)
    spins = lnp.asarray(rng.choice(np.array([-1, 1]), (16, 16)))
    uniforms = rng.random((4, 2, 16, 16))
    for k, T in enumerate([2.0, 1.7, 1.3, 0.9]):
        spins, *_ = ising_checkerboard(lnp, spins, uniforms[k:k + 1], [T])
        lnp.asarray(spins).tolist()
        if k == 1:
            misses = get_runtime().metrics.counters["cache_misses"]
    assert get_runtime().metrics.counters["cache_misses"] == misses


@pytest.mark.usefixtures('own_runtime')
def test_random_walk_first_passage():
    rng = np.random.default_rng(147)
    check(random_walks, rng.choice(np.array([-1, 1], dtype=np.int8), (40, 60)))


@pytest.mark.usefixtures('own_runtime')
def test_pendulum_rk4_with_trapezoid_and_gradient():
    check(pendulum_rk4, 1.0, 0.0, 0.05, 8)


@pytest.mark.usefixtures('own_runtime')
def test_game_of_life_and_rule_110_with_roll():
    rng = np.random.default_rng(161)
    board = (rng.random((12, 12)) < 0.35).astype(np.int8)
    row = np.zeros(24, np.uint8)
    row[-1] = 1
    check(life_and_rule110, board, row, 5)


@pytest.mark.usefixtures('own_runtime')
def test_random_walks_drawn_on_the_host():
    rng = np.random.default_rng(166)
    check(host_drawn_random_walks, rng.choice(np.array([-1, 1]), size=(20, 50)), 6)


@pytest.mark.usefixtures('own_runtime')
def test_heat_equation_explicit_and_crank_nicolson():
    x = np.linspace(0, 1, 14)
    X, Y = np.meshgrid(x, x)
    u0 = np.exp(-40 * ((X - 0.4) ** 2 + (Y - 0.6) ** 2))
    u0[0, :] = u0[-1, :] = u0[:, 0] = u0[:, -1] = 0.0
    check(heat_equation, u0, 0.7, 4, rtol=1e-9)
