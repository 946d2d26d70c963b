"""Gradient checks of the differentiable surface functions the other gen_grad modules left out
(found by the issue 13 audit in docs/stdlib-notes.md): the activations silu and log_sigmoid,
math_ops' rsqrt, the ml_ex losses, cumprod, flipud, onehot in its values, the broadcast helpers
programs call directly, the scalar ODE solvers with a closure, and std::numerics' decision
process and N-D quadratic helpers. Same tuple form as gen_grad_cases; every reference restates
the function in NumPy."""
import numpy as np

from gen_grad import away, rnd


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def solve(step, u0, dt, n):
    u = [u0]
    for _ in range(n):
        u.append(step(u[-1], dt))
    return np.array(u)


def ml_functions():
    x = rnd(700, (2, 3), -2, 2)
    z, y01 = rnd(701, (2, 3), -2, 2), (rnd(702, (2, 3)) > 0).astype(float)
    lp = np.log(np.abs(rnd(703, (3, 4))) + 0.1)
    target = [2, 0, 3]
    ys = np.where(rnd(704, (2, 3)) > 0, 1.0, -1.0)
    s = away(705, (2, 3), [-1.0, 1.0], -2, 2, 0.1)
    c = rnd(706, (2, 4), 0.5, 1.5)
    v = rnd(707, (4,))
    ind = [[0, 2], [3, 1]]
    oh = np.array(ind)[..., None] == np.arange(4)
    y_lit = "let ylab: [f64; 2, 3] = " + str(ys.tolist()) + ";"
    y01_lit = "let y01: [f64; 2, 3] = " + str(y01.tolist()) + ";"
    t_pred = rnd(708, (2, 3))
    return [
        ("silu", "silu(x)", {"x": x}, ["x"], lambda x: x * sigmoid(x)),
        ("log_sigmoid", "log_sigmoid(x)", {"x": x}, ["x"], lambda x: -np.logaddexp(0, -x)),
        ("rsqrt_ml", "std::ml::math_ops::rsqrt(c)", {"c": c}, ["c"], lambda c: 1 / np.sqrt(c)),
        ("l1_loss", "l1_loss(x, tp)", {"x": x, "tp": t_pred}, ["x", "tp"],
         lambda x, tp: np.abs(x - tp).mean()),
        ("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits(z, y01)", {"z": z}, ["z"],
         lambda z: (np.maximum(z, 0) - z * y01 + np.log1p(np.exp(-np.abs(z)))).mean(), ["std::ml::*"], [y01_lit]),
        ("nll_loss", "nll_loss(lp, tg)", {"lp": lp}, ["lp"],
         lambda lp: -lp[np.arange(3), target].mean(), ["std::ml::*"], [f"let tg = {target};"]),
        ("hinge_loss", "hinge_loss(s, ylab)", {"s": s}, ["s"],
         lambda s: np.maximum(0, 1 - ys * s).mean(), ["std::ml::*"], [y_lit]),
        ("cumprod", "cumprod(c)", {"c": c}, ["c"], lambda c: np.cumprod(c, axis=-1)),
        ("cumprod_1d", "cumprod(v)", {"v": v}, ["v"], lambda v: np.cumprod(v)),
        ("flipud", "flipud(x)", {"x": x}, ["x"], lambda x: np.flipud(x)),
        ("onehot_values", "onehot(ix, 4, vals)", {"vals": np.array([0.25, 1.5])}, ["vals"],
         lambda vals: np.where(oh, vals[1], vals[0]), ["std::ml::*"], [f"let ix = {ind};"]),
    ]


def broadcast_helpers():
    x = rnd(710, (3, 1))
    r = rnd(711, (1, 4))
    m = rnd(712, (2, 3, 4))
    f = rnd(713, (6,))
    b = "std::ml::broadcast::"
    return [
        ("lift", b + "lift(x)", {"x": x}, ["x"], lambda x: x[None]),
        ("lift_to", b + "lift_to(r, m)", {"r": r, "m": m}, ["r"], lambda r, m: r[None], []),
        ("stretch", b + "stretch(x, [3, 5])", {"x": x}, ["x"], lambda x: np.broadcast_to(x, (3, 5)), []),
        ("broadcast_like", b + "broadcast_like(r, m)", {"r": r, "m": m}, ["r"],
         lambda r, m: np.broadcast_to(r, m.shape), []),
        ("broadcast_pair_first", b + "broadcast_pair(x, r).0", {"x": x, "r": r}, ["x", "r"],
         lambda x, r: np.broadcast_arrays(x, r)[0], []),
        ("broadcast_pair_second", b + "broadcast_pair(x, r).1", {"x": x, "r": r}, ["x", "r"],
         lambda x, r: np.broadcast_arrays(x, r)[1], []),
        ("unflatten_like", b + "unflatten_like(f, m2)", {"f": f}, ["f"], lambda f: f.reshape(2, 3), [],
         ["let m2: [f64; 2, 3] = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]];"]),
    ] + axis_views() + mixed_kinds()


def mixed_kinds():
    """Operands of different element kinds (session 19): the float operand's gradient through
    broadcast::promote_with and the functions that call it, beside an integer array ai and a bool
    mask bm (np.minimum, np.where, np.clip, np.add of the same operands)."""
    b = "std::ml::broadcast::"
    x = rnd(740, (3, 2), -2, 2)
    ai = np.array([[1, -2], [0, 1], [-1, 2]], dtype=np.int32)
    bm = np.array([[True, False], [False, True], [True, True]])
    consts = [f"let ai: [i32; 3, 2] = {ai.tolist()};", f"let bm: [bool; 3, 2] = {str(bm.tolist()).lower()};"]
    return [
        ("promote_with", b + "promote_with(x, ai)", {"x": x}, ["x"], lambda x: x, [], consts),
        ("min_int_array", "std::math::min(x, ai)", {"x": x}, ["x"], lambda x: np.minimum(x, ai), [], consts),
        ("where_int_array", "std::ml::where(bm, x, ai)", {"x": x}, ["x"], lambda x: np.where(bm, x, ai), [], consts),
        ("clip_int_bounds", "std::ml::clip(x, ai, 3)", {"x": x}, ["x"], lambda x: np.clip(x, ai, 3), [], consts),
        ("add_bool", "std::ml::add(x, bm)", {"x": x}, ["x"], lambda x: x + bm, [], consts),
    ]


def axis_views():
    """The [before, n, after] views of the axis operations, the flat-view helpers and the strided
    slice (session 17 audit: called by every axis operation, never differentiated directly)."""
    b = "std::ml::broadcast::"
    x4 = rnd(714, (2, 3, 2, 2))
    y = rnd(715, (2, 5, 4))
    y2 = rnd(716, (2, 4))
    f = rnd(717, (12,))
    m = rnd(718, (3, 4))
    t5 = rnd(719, (2, 2, 1, 2, 3))
    zeros = "let z4: [f64; 2, 3, 2, 2] = " + str(np.zeros((2, 3, 2, 2)).tolist()) + ";"
    model3 = "let z3: [f64; 1, 1, 1] = [[[0.0]]];"
    return [
        ("around_axis", b + "around_axis(x4, 1)", {"x4": x4}, ["x4"], lambda x4: x4.reshape(2, 3, 4), []),
        ("around_axis_last", b + "around_axis(x4, 3)", {"x4": x4}, ["x4"], lambda x4: x4.reshape(12, 2, 1), []),
        ("from_axis_view", b + "from_axis_view(y, z4, 1)", {"y": y}, ["y"],
         lambda y: y.reshape(2, 5, 2, 2), [], [zeros]),
        ("without_axis", b + "without_axis(y2, z4, 1)", {"y2": y2}, ["y2"],
         lambda y2: y2.reshape(2, 2, 2), [], [zeros]),
        ("unflatten", b + "unflatten(f, [2, 3, 2], z3)", {"f": f}, ["f"], lambda f: f.reshape(2, 3, 2), [],
         [model3]),
        ("rows_of", b + "rows_of(f, 4, 5)", {"f": f}, ["f"], lambda f: f[4:9], []),
        ("take_strided", b + "take_strided(m, [2, 3], [-1, -2], [3, 2])", {"m": m}, ["m"],
         lambda m: m[2::-1, 3::-2], []),
        ("take_strided_5d", b + "take_strided(t5, [1, 0, 0, 1, 0], [-1, 1, 1, -1, 2], [2, 2, 1, 2, 2])",
         {"t5": t5}, ["t5"], lambda t5: t5[1::-1, :, :, 1::-1, 0::2], []),
    ]


def scalar_helpers():
    """std::math::sum (np.sum of a whole array) and std::math_utils' elementwise max, min and
    clamp (np.maximum / np.minimum / np.clip), inputs away from ties and the clamp bounds."""
    x = rnd(730, (2, 3), -2, 2)
    y = x + np.round(np.where(rnd(731, (2, 3)) > 0, 0.3, -0.3), 3)
    v = away(732, (7,), [-0.5, 0.5], -1, 1, 0.05)
    t3 = rnd(733, (2, 2, 3))
    mu = "std::math_utils::"
    return [
        ("math_sum", "std::math::sum(t3)", {"t3": t3}, ["t3"], lambda t3: t3.sum(), []),
        ("math_utils_max", mu + "max(x, y)", {"x": x, "y": y}, ["x", "y"], lambda x, y: np.maximum(x, y), []),
        ("math_utils_min", mu + "min(x, y)", {"x": x, "y": y}, ["x", "y"], lambda x, y: np.minimum(x, y), []),
        ("math_utils_clamp", mu + "clamp(v, -0.5, 0.5)", {"v": v}, ["v"], lambda v: np.clip(v, -0.5, 0.5), []),
    ]


def numerics():
    A = np.round(np.array([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.0, 0.4, 1.0]]) + rnd(720, (3, 3), -0.1, 0.1), 3)
    bq, xq = rnd(721, (3,)), rnd(722, (3,))
    R = rnd(723, (3, 2), 0, 2)
    P = rnd(724, (3, 2, 3), 0.1, 1)
    P = np.round(P / P.sum(-1, keepdims=True), 3)
    V = rnd(725, (3,), 0, 3)
    rw = rnd(726, (5,))
    u0, k = np.float64(0.8), np.float64(0.7)
    Pl = [f"let P: [f64; 3, 2, 3] = {P.tolist()};"]
    opt, dp, ode = "std::numerics::optim::", "std::numerics::dp::", "std::numerics::ode::"

    def descent(A, b, x0, lr=0.1, n=4):
        path = [x0]
        for _ in range(n):
            path.append(path[-1] - lr * ((A + A.T) @ path[-1] / 2 - b))
        return np.array(path)

    def backup(V, R):
        return (R + 0.9 * np.einsum("sat,t->sa", P, V)).max(axis=1)

    def iterate(R, n=3):
        V = np.zeros(3)
        for _ in range(n):
            V = backup(V, R)
        return V

    def returns(rw, g):
        G = np.zeros_like(rw)
        G[-1] = rw[-1]
        for t in range(len(rw) - 2, -1, -1):
            G[t] = rw[t] + g * G[t + 1]
        return G

    def rk4_step(u, dt, f):
        k1 = f(u)
        k2 = f(u + 0.5 * dt * k1)
        k3 = f(u + 0.5 * dt * k2)
        return u + dt / 6 * (k1 + 2 * k2 + 2 * k3 + f(u + dt * k3))
    return [
        ("quadratic_value", opt + "quadratic_value(A, bq, xq)", {"A": A, "bq": bq, "xq": xq}, ["A", "bq", "xq"],
         lambda A, bq, xq: 0.5 * xq @ A @ xq - bq @ xq, []),
        ("quadratic_gradient", opt + "quadratic_gradient(A, bq, xq)", {"A": A, "bq": bq, "xq": xq},
         ["A", "bq", "xq"], lambda A, bq, xq: (A + A.T) @ xq / 2 - bq, []),
        ("gradient_descent_path", opt + "gradient_descent_path(A, bq, xq, 0.1, 4)", {"A": A, "bq": bq, "xq": xq},
         ["A", "bq", "xq"], lambda A, bq, xq: descent(A, bq, xq), []),
        ("gradient_descent", opt + "gradient_descent(A, bq, xq, 0.1, 4)", {"A": A, "bq": bq, "xq": xq},
         ["A", "bq", "xq"], lambda A, bq, xq: descent(A, bq, xq)[-1], []),
        ("bellman_step_mdp", dp + "bellman_step_mdp(V, R, P, 0.9)", {"V": V, "R": R}, ["V", "R"],
         backup, [], Pl),
        ("value_iteration_mdp", dp + "value_iteration_mdp(R, P, 0.9, 3)", {"R": R}, ["R"], iterate, [], Pl),
        ("returns_to_go", dp + "returns_to_go(rw, g)", {"rw": rw, "g": np.float64(0.8)}, ["rw", "g"], returns, []),
        ("euler_closure", ode + "euler(|u| -k * u * u, u0, 0.1, 4)", {"u0": u0, "k": k}, ["u0", "k"],
         lambda u0, k: solve(lambda u, dt: u + dt * (-k * u * u), u0, 0.1, 4), []),
        ("rk4_closure", ode + "rk4(|u| -k * u * u, u0, 0.1, 4)", {"u0": u0, "k": k}, ["u0", "k"],
         lambda u0, k: solve(lambda u, dt: rk4_step(u, dt, lambda w: -k * w * w), u0, 0.1, 4), []),
    ]


def cases():
    return ml_functions() + broadcast_helpers() + numerics() + scalar_helpers()
