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


def ode_file():
    t = TestFile("numerics/ode.ein", "std::numerics::ode: Euler, midpoint and RK4 trajectories "
                 "(n_steps + 1 values)", uses=["std::numerics::ode"])
    for i, (u0, k, dt, n, kind) in enumerate([(1.0, 0.5, 0.1, 10, "f64"), (2.5, 1.5, 0.2, 6, "f32"),
                                              (-1.0, 0.3, 0.05, 0, "f64")]):
        for name, v in (("u0", u0), ("k", k), ("dt", dt)):
            t.raw(f"let {name}{i}: {kind} = {v};")
        cast = np.float32 if kind == "f32" else np.float64
        u0c, kc, dtc = (float(cast(v)) for v in (u0, k, dt))
        args = f"u0{i}, k{i}, dt{i}, {n}"
        t.check(f"ode::euler_decay({args})", euler(u0c, kc, dtc, n), kind)
        t.check(f"ode::midpoint_decay({args})", midpoint(u0c, kc, dtc, n), kind)
        t.check(f"ode::rk4_decay({args})", rk4(lambda x: -kc * x, u0c, dtc, n), kind)
        t.check(f"len(ode::euler_decay({args}))", n + 1, "i32")
    # the exact solution is approached as the order rises
    t.raw("let exact = 1.0 * std::math::exp(-0.5 * 1.0);")
    t.check("std::math::abs(ode::rk4_decay(1.0, 0.5, 0.1, 10)[10] - exact) < 1e-6", True, "bool")
    t.check("std::math::abs(ode::euler_decay(1.0, 0.5, 0.1, 10)[10] - exact) > 1e-3", True, "bool")
    for i, (d, n, kind) in enumerate([(2, 5, "f64"), (3, 4, "f32")]):
        A = t.let(f"A{i}", decimals(1400 + i, (d, d), -1, 1), kind)
        u0 = t.let(f"v{i}", decimals(1410 + i, (d,)), kind)
        t.raw(f"let h{i}: {kind} = 0.1;")
        u = [u0.astype(np.float64)]
        for _ in range(n):
            u.append(u[-1] + 0.1 * (A.astype(np.float64) @ u[-1]))
        t.check(f"ode::euler_linear(A{i}, v{i}, h{i}, {n})", np.array(u), kind)
    t.check("ode::euler(|u| -2.0 * u, 1.0, 0.1, 3)", euler(1.0, 2.0, 0.1, 3), "f32")
    t.check("ode::rk4(|u| 1.0 - u * u, 0.0, 0.25, 4)", rk4(lambda x: 1 - x * x, 0.0, 0.25, 4), "f32")
    t.write()


def optim_file():
    t = TestFile("numerics/optim.ein", "std::numerics::optim: quadratic value and gradient, "
                 "gradient descent, least squares", uses=["std::numerics::optim::*"])
    for i, (d, kind) in enumerate([(2, "f64"), (3, "f32")]):
        M = decimals(1500 + i, (d, d), -1, 1)
        A = t.let(f"A{i}", np.round(M @ M.T + d * np.eye(d), 2), kind).astype(np.float64)
        N = t.let(f"N{i}", decimals(1501 + i, (d, d), -1, 1), kind).astype(np.float64)
        b = t.let(f"b{i}", decimals(1510 + i, (d,)), kind).astype(np.float64)
        x = t.let(f"x{i}", decimals(1520 + i, (d,)), kind).astype(np.float64)
        t.check(f"quadratic_value(A{i}, b{i}, x{i})", 0.5 * x @ A @ x - b @ x, kind)
        t.check(f"quadratic_gradient(A{i}, b{i}, x{i})", A @ x - b, kind)
        t.check(f"quadratic_gradient(N{i}, b{i}, x{i})", 0.5 * (N + N.T) @ x - b, kind)
        t.raw(f"let lr{i}: {kind} = 0.05;")
        path = [x]
        for _ in range(20):
            path.append(path[-1] - 0.05 * (A @ path[-1] - b))
        t.check(f"gradient_descent_path(A{i}, b{i}, x{i}, lr{i}, 20)", np.array(path), kind)
        t.check(f"gradient_descent(A{i}, b{i}, x{i}, lr{i}, 20)", path[-1], kind)
    for i, (n, total, kind) in enumerate([(5, 5, "f64"), (4, 6, "f32"), (2, 2, "f64")]):
        xs = t.let(f"px{i}", decimals(1530 + i, (total,), -3, 3), kind).astype(np.float64)
        ys = t.let(f"py{i}", decimals(1540 + i, (total,), -3, 3), kind).astype(np.float64)
        slope, intercept = np.polyfit(xs[:n], ys[:n], 1)
        t.check(f"least_squares_slope_intercept(px{i}, py{i}, {n})", np.array([slope, intercept]),
                kind)
    t.check("least_squares_slope_intercept([0.0, 1.0, 2.0], [1.0, 3.0, 5.0], 3)",
            np.array([2.0, 1.0]), "f32")
    t.write()


def dp_file():
    t = TestFile("numerics/dp.ein", "std::numerics::dp: Bellman backups, value iteration, "
                 "greedy policy, discounted returns", uses=["std::numerics::dp::*"])
    for i, (S, A, kind) in enumerate([(3, 2, "f64"), (4, 3, "f32")]):
        R = t.let(f"R{i}", decimals(1600 + i, (S, A), -1, 2), kind).astype(np.float64)
        P = np.random.default_rng(1610 + i).uniform(0, 1, size=(S, A, S))
        P = np.round(P / P.sum(axis=-1, keepdims=True), 3)
        P[..., -1] = np.round(1 - P[..., :-1].sum(axis=-1), 3)
        P = t.let(f"P{i}", P, kind).astype(np.float64)
        V = t.let(f"V{i}", decimals(1620 + i, (S,), 0, 5), kind).astype(np.float64)
        t.raw(f"let g{i}: {kind} = 0.9;")
        q = R + 0.9 * np.einsum("sat,t->sa", P, V)
        t.check(f"bellman_step(V{i}, R{i}, P{i}, g{i})", q.max(axis=1), kind)
        t.check(f"greedy_policy(V{i}, R{i}, P{i}, g{i})", q.argmax(axis=1), "i32")
        v = np.zeros(S)
        for n in range(1, 6):
            v = (R + 0.9 * np.einsum("sat,t->sa", P, v)).max(axis=1)
            if n in (1, 5):
                t.check(f"value_iteration(R{i}, P{i}, g{i}, {n})", v, kind)
        t.check(f"value_iteration(R{i}, P{i}, g{i}, 0)", np.zeros(S), kind)
    for i, (n, kind) in enumerate([(5, "f64"), (3, "f32"), (1, "f64")]):
        r = t.let(f"r{i}", decimals(1630 + i, (n,), -1, 3), kind).astype(np.float64)
        t.raw(f"let gm{i}: {kind} = 0.8;")
        t.check(f"discounted_return(r{i}, gm{i})", sum(r[k] * 0.8 ** k for k in range(n)), kind)
        G = np.zeros(n)
        acc = 0.0
        for k in reversed(range(n)):
            acc = r[k] + 0.8 * acc
            G[k] = acc
        t.check(f"returns_to_go(r{i}, gm{i})", G, kind)
    t.write()


def import_forms_file():
    t = TestFile("numerics/imports.ein", "std::numerics reached through a glob import, a module "
                 "import and a full path", uses=["std::numerics::*"])
    t.check("ode::euler_decay(1.0, 0.5, 0.1, 2)", euler(1.0, 0.5, 0.1, 2).astype(np.float32), "f32")
    t.check("euler_decay(1.0, 0.5, 0.1, 1)", euler(1.0, 0.5, 0.1, 1).astype(np.float32), "f32")
    t.check("optim::quadratic_value([[2.0]], [1.0], [3.0])", 0.5 * 2 * 9 - 3, "f32")
    t.check("dp::discounted_return([1.0, 2.0], 0.5)", 2.0, "f32")
    t.check("std::numerics::ode::rk4_decay(1.0, 0.5, 0.1, 1)",
            rk4(lambda x: -0.5 * x, 1.0, 0.1, 1).astype(np.float32), "f32")
    t.write()


def generate():
    import_forms_file()
    ode_file()
    optim_file()
    dp_file()
