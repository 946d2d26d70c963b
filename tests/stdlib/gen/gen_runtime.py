"""The library on values typed only at run time: every value test of the areas below again, with
each array input written by NumPy to a .npy file and read back by an unannotated
`load_npy(path)`, whose rank and element type the compiler does not know when it compiles the
statements that use it. Files under cases/runtime/, one per original file; the fixtures are
under fixtures/runtime/, named by their content (files that share an input share the fixture).

The expected values are NumPy's, as in the original files: a run-time-typed input must give
the same numbers as the annotated literal (i32 data stays i32, f64 stays f64)."""
import hashlib
import os

import numpy as np

import common

AREAS = ["gen_math", "gen_array", "gen_ml", "gen_ml_nn", "gen_ml_tensor", "gen_ml_ex", "gen_ml_onnx",
         "gen_forms", "gen_numerics", "gen_programs"]
FIX_DIR = os.path.join(common.FIXTURES, "runtime")
FIX_REL = "../../fixtures/runtime/"  # the fixtures as seen from cases/runtime/


class RuntimeFile(common.TestFile):
    """A TestFile whose array `let`s load .npy files instead of binding annotated literals.
    Files that expect an error are not rewritten (their errors are about the literal forms)."""

    def __init__(self, rel, purpose, uses=()):
        name = rel[:-len(".ein")].replace("/", "_")
        super().__init__(f"runtime/{name}.ein", f"{purpose}; inputs loaded from .npy files NumPy wrote",
                         list(uses) + ["std::io::load_npy"])
        self.skip = "errors/" in rel

    def let(self, name, x, kind):
        a = np.asarray(x)
        if a.ndim == 0 or a.size == 0 or kind not in common.NP_TYPE:
            return super().let(name, x, kind)
        v = common.as_kind(x, kind)
        data = np.ascontiguousarray(v)
        key = hashlib.sha1(f"{data.dtype.str}{data.shape}".encode() + data.tobytes()).hexdigest()[:12]
        os.makedirs(FIX_DIR, exist_ok=True)
        path = os.path.join(FIX_DIR, f"{kind}_{key}.npy")
        if not os.path.exists(path):
            np.save(path, data)
        self.lines.append(f'let {name} = load_npy("{FIX_REL}{kind}_{key}.npy");')
        return v

    def expect_error(self, code, line_of_last_statement=True):
        self.skip = True

    def write(self):
        if not self.skip and self.n:
            return super().write()
        return None


def generate():
    import importlib
    for area in AREAS:
        mod = importlib.import_module(area)
        saved = mod.TestFile
        mod.TestFile = RuntimeFile
        try:
            mod.generate()
        finally:
            mod.TestFile = saved
