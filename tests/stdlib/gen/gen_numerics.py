"""std::numerics tests: ODE trajectories, quadratic optimisation, least squares and dynamic
programming, against NumPy loops that restate each method."""
import numpy as np

from common import TestFile, decimals


def euler(u0, k, dt, n):
    u = [u0]
    for _ in range(n):
        u.append(u[-1] - dt * k * u[-1])
    return np.array(u)


def midpoint(u0, k, dt, n):
    u = [u0]
    for _ in range(n):
        half = u[-1] - 0.5 * dt * k * u[-1]
        u.append(u[-1] - dt * k * half)
    return np.array(u)


def rk4(f, u0, dt, n):
    u = [u0]
    for _ in range(n):
        x = u[-1]
        k1 = f(x)
        k2 = f(x + 0.5 * dt * k1)
        k3 = f(x + 0.5 * dt * k2)
        k4 = f(x + dt * k3)
        u.append(x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
    return np.array(u)


def f64lit(v):
    return repr(float(v))


def ode_file():
    t = TestFile("numerics/ode.ein", "std::numerics::ode: single steps and trajectories "
                 "(n_steps + 1 values) of Euler, midpoint and RK4, f64 as declared",
                 uses=["std::numerics::ode"])
    for i, (u0, k, dt, n) in enumerate([(1.0, 0.5, 0.1, 10), (2.5, 1.5, 0.2, 6), (-1.0, 0.3, 0.05, 0)]):
        args = f"{u0}, {k}, {dt}, {n}"
        t.check(f"ode::euler_decay({args})", euler(u0, k, dt, n), "f64")
        t.check(f"ode::midpoint_decay({args})", midpoint(u0, k, dt, n), "f64")
        t.check(f"ode::rk4_decay({args})", rk4(lambda x: -k * x, u0, dt, n), "f64")
        t.check(f"len(ode::euler_decay({args}))", n + 1, "i32")
        step = f"{u0}, {k}, {dt}"
        t.check(f"ode::euler_decay_step({step})", euler(u0, k, dt, 1)[1], "f64")
        t.check(f"ode::midpoint_decay_step({step})", midpoint(u0, k, dt, 1)[1], "f64")
        t.check(f"ode::rk4_decay_step({step})", rk4(lambda x: -k * x, u0, dt, 1)[1], "f64")
    t.check("typeof(ode::euler_decay(1.0, 0.5, 0.1, 3))", "[f64; 4]", "str")
    # the exact solution is approached as the order rises
    t.raw("let mhalf: f64 = -0.5;", "let exact: f64 = std::math::exp(mhalf);")
    t.check("std::math::abs(ode::rk4_decay(1.0, 0.5, 0.1, 10)[10] - exact) < 1e-6", True, "bool")
    t.check("std::math::abs(ode::euler_decay(1.0, 0.5, 0.1, 10)[10] - exact) > 1e-3", True, "bool")
    for i, (d, n, steps) in enumerate([(2, 2, 5), (3, 3, 4), (4, 2, 3)]):
        A = t.let(f"A{i}", decimals(1400 + i, (d, d), -1, 1), "f64")
        u0 = t.let(f"v{i}", decimals(1410 + i, (d,)), "f64")
        u = [u0[:n]]
        for _ in range(steps):
            u.append(u[-1] + 0.1 * (A[:n, :n] @ u[-1]))
        t.check(f"ode::euler_linear(v{i}, A{i}, 0.1, {steps}, {n})", np.array(u), "f64")
        t.check(f"ode::euler_linear_step(v{i}, A{i}, 0.1, {n})", u[1], "f64")
    t.check("ode::euler(|u| -2.0 * u, 1.0, 0.1, 3)", euler(1.0, 2.0, 0.1, 3), "f32")
    t.check("ode::rk4(|u| 1.0 - u * u, 0.0, 0.25, 4)", rk4(lambda x: 1 - x * x, 0.0, 0.25, 4), "f32")
    t.write()


def optim_file():
    t = TestFile("numerics/optim.ein", "std::numerics::optim: the 2-D quadratic, gradient descent "
                 "trajectories, least squares; the N-D quadratic", uses=["std::numerics::optim::*"])
    for i in range(3):
        M = decimals(1500 + i, (2, 2), -1, 1)
        A = t.let(f"A{i}", np.round(M @ M.T + 2 * np.eye(2), 2), "f64")
        b = t.let(f"b{i}", decimals(1510 + i, (2,)), "f64")
        x = t.let(f"x{i}", decimals(1520 + i, (2,)), "f64")
        t.check(f"quadratic_value_2d(x{i}, A{i}, b{i})", 0.5 * x @ A @ x - b @ x, "f64")
        t.check(f"quadratic_gradient_2d(x{i}, A{i}, b{i})", A @ x - b, "f64")
        t.check(f"quadratic_residual_norm_2d(x{i}, A{i}, b{i})", np.linalg.norm(A @ x - b), "f64")
        t.check(f"gradient_descent_step_2d(x{i}, A{i}, b{i}, 0.05)", x - 0.05 * (A @ x - b), "f64")
        for start, name in ((np.zeros(2), f"gradient_descent_2d(A{i}, b{i}, 0.1, 15)"),
                            (x, f"gradient_descent_2d_from(x{i}, A{i}, b{i}, 0.1, 15)")):
            path = [start]
            for _ in range(15):
                path.append(path[-1] - 0.1 * (A @ path[-1] - b))
            t.check(name, np.array(path), "f64")
    for i, (d, kind) in enumerate([(2, "f64"), (3, "f32")]):
        M = decimals(1505 + i, (d, d), -1, 1)
        A = t.let(f"QA{i}", np.round(M @ M.T + d * np.eye(d), 2), kind).astype(np.float64)
        N = t.let(f"QN{i}", decimals(1506 + i, (d, d), -1, 1), kind).astype(np.float64)
        b = t.let(f"Qb{i}", decimals(1515 + i, (d,)), kind).astype(np.float64)
        x = t.let(f"Qx{i}", decimals(1525 + i, (d,)), kind).astype(np.float64)
        t.check(f"quadratic_value(QA{i}, Qb{i}, Qx{i})", 0.5 * x @ A @ x - b @ x, kind)
        t.check(f"quadratic_gradient(QA{i}, Qb{i}, Qx{i})", A @ x - b, kind)
        t.check(f"quadratic_gradient(QN{i}, Qb{i}, Qx{i})", 0.5 * (N + N.T) @ x - b, kind)
        t.raw(f"let lr{i}: {kind} = 0.05;")
        path = [x]
        for _ in range(20):
            path.append(path[-1] - 0.05 * (A @ path[-1] - b))
        t.check(f"gradient_descent_path(QA{i}, Qb{i}, Qx{i}, lr{i}, 20)", np.array(path), kind)
        t.check(f"gradient_descent(QA{i}, Qb{i}, Qx{i}, lr{i}, 20)", path[-1], kind)
    for i, (n, total) in enumerate([(5, 5), (4, 6), (2, 2)]):
        xs = t.let(f"px{i}", decimals(1530 + i, (total,), -3, 3), "f64")
        ys = t.let(f"py{i}", decimals(1540 + i, (total,), -3, 3), "f64")
        slope, intercept = np.polyfit(xs[:n], ys[:n], 1)
        t.check(f"least_squares_slope_intercept(px{i}, py{i}, {n})", np.array([slope, intercept]),
                "f64")
    t.check("least_squares_slope_intercept([0.0, 1.0, 2.0], [1.0, 3.0, 5.0], 3)",
            np.array([2.0, 1.0]), "f64")
    t.write()


def chain(seed, n):
    """A column-stochastic matrix: P[s2, s] is the probability of s -> s2."""
    P = np.random.default_rng(seed).uniform(0, 1, size=(n, n))
    P = np.round(P / P.sum(axis=0, keepdims=True), 3)
    P[-1, :] = np.round(1 - P[:-1, :].sum(axis=0), 3)
    return P


def dp_file():
    t = TestFile("numerics/dp.ein", "std::numerics::dp: Markov-chain Bellman backups, value "
                 "iteration, residuals, discounted returns; decision-process backups",
                 uses=["std::numerics::dp::*"])
    for i, (S, n) in enumerate([(3, 3), (4, 3), (5, 5)]):
        P = t.let(f"P{i}", chain(1650 + i, S), "f64")
        r = t.let(f"r{i}", decimals(1660 + i, (S,), -1, 2), "f64")
        V = t.let(f"V{i}", decimals(1670 + i, (S,), 0, 5), "f64")
        Pn, rn, Vn = P[:n, :n], r[:n], V[:n]
        for s in (0, n - 1):
            t.check(f"expected_value_at_state(V{i}, P{i}, {s}, {n})", Pn[:, s] @ Vn, "f64")
        step = rn + 0.9 * Pn.T @ Vn
        t.check(f"bellman_step(V{i}, r{i}, P{i}, 0.9, {n})", step, "f64")
        t.check(f"bellman_residual(V{i}, r{i}, P{i}, 0.9, {n})", np.abs(step - Vn).max(), "f64")
        table = [np.zeros(n)]
        for _ in range(6):
            table.append(rn + 0.9 * Pn.T @ table[-1])
        t.check(f"value_iteration(r{i}, P{i}, 0.9, {n}, 6)", np.array(table), "f64")
        t.check(f"value_iteration(r{i}, P{i}, 0.9, {n}, 0)", np.zeros((1, n)), "f64")
    for i, (n, total) in enumerate([(5, 5), (3, 6), (1, 2), (0, 3)]):
        r = t.let(f"rw{i}", decimals(1630 + i, (total,), -1, 3), "f64")
        t.check(f"discounted_return(rw{i}, 0.8, {n})", sum(r[k] * 0.8 ** k for k in range(n)), "f64")
        G = np.zeros(total)
        acc = 0.0
        for k in reversed(range(total)):
            acc = r[k] + 0.8 * acc
            G[k] = acc
        t.check(f"returns_to_go(rw{i}, 0.8)", G, "f64")
    for i, (S, A, kind) in enumerate([(3, 2, "f64"), (4, 3, "f32")]):
        R = t.let(f"R{i}", decimals(1600 + i, (S, A), -1, 2), kind).astype(np.float64)
        P = np.random.default_rng(1610 + i).uniform(0, 1, size=(S, A, S))
        P = np.round(P / P.sum(axis=-1, keepdims=True), 3)
        P[..., -1] = np.round(1 - P[..., :-1].sum(axis=-1), 3)
        P = t.let(f"MP{i}", P, kind).astype(np.float64)
        V = t.let(f"MV{i}", decimals(1620 + i, (S,), 0, 5), kind).astype(np.float64)
        t.raw(f"let g{i}: {kind} = 0.9;")
        q = R + 0.9 * np.einsum("sat,t->sa", P, V)
        t.check(f"bellman_step_mdp(MV{i}, R{i}, MP{i}, g{i})", q.max(axis=1), kind)
        t.check(f"greedy_policy(MV{i}, R{i}, MP{i}, g{i})", q.argmax(axis=1), "i32")
        v = np.zeros(S)
        for n in range(1, 6):
            v = (R + 0.9 * np.einsum("sat,t->sa", P, v)).max(axis=1)
            if n in (1, 5):
                t.check(f"value_iteration_mdp(R{i}, MP{i}, g{i}, {n})", v, kind)
        t.check(f"value_iteration_mdp(R{i}, MP{i}, g{i}, 0)", np.zeros(S), kind)
    t.write()


def import_forms_file():
    t = TestFile("numerics/imports.ein", "std::numerics reached through a glob import, a module "
                 "import and a full path", uses=["std::numerics::*"])
    t.check("ode::euler_decay(1.0, 0.5, 0.1, 2)", euler(1.0, 0.5, 0.1, 2), "f64")
    t.check("euler_decay(1.0, 0.5, 0.1, 1)", euler(1.0, 0.5, 0.1, 1), "f64")
    t.check("optim::quadratic_value([[2.0]], [1.0], [3.0])", 0.5 * 2 * 9 - 3, "f32")
    t.check("dp::discounted_return([1.0, 2.0], 0.5, 2)", 2.0, "f64")
    t.check("std::numerics::ode::rk4_decay(1.0, 0.5, 0.1, 1)", rk4(lambda x: -0.5 * x, 1.0, 0.1, 1), "f64")
    t.check("std::numerics::dp::bellman_step([1.0], [0.5], [[1.0]], 0.5, 1)", np.array([1.0]), "f64")
    t.write()


def generate():
    import_forms_file()
    ode_file()
    optim_file()
    dp_file()
