"""The xein kernel against Debian's jupyter_kernel_test (the protocol conformance suite).

Run by tests/stages/kernel.sh, which installs the kernelspec into a temporary prefix and points
JUPYTER_PATH at it. Alone:
    xein install --prefix /tmp/k && JUPYTER_PATH=/tmp/k/share/jupyter \
        PYENV_VERSION=system python3 -m unittest -v tests/kernel/test_kernel_protocol.py
"""
import unittest

import jupyter_kernel_test

# A shape error (SPEC §9's example): k is 3 in A but 2 in B.
SHAPE_ERROR = """let A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
let B = [[1.0, 2.0], [3.0, 4.0]];
let C[i, j] = sum[k](A[i, k] * B[k, j]);"""


class XeinProtocolTests(jupyter_kernel_test.KernelTests):
    kernel_name = "einlang"
    language_name = "einlang"
    file_extension = ".ein"

    code_hello_world = 'print("hello, world");'

    completion_samples = [
        {"text": "pri", "matches": {"print"}},
        {"text": "le", "matches": {"len", "let"}},
        {"text": "%tim", "matches": {"%time", "%timeit"}},
        {"text": "let v = 1;\nlet w = v + typ", "matches": {"typeof"}},
    ]

    complete_code_samples = [
        "1 + 2",
        "let x = 1;",
        "fn f(a) { a * 2 }",
        'print("{1 + 2}");',
        "%time 1 + 2",
        "",
    ]
    incomplete_code_samples = [
        "let x = (1 +",
        "fn f(a) {",
        "let M[i, j] = sum[k](",
        'let s = "abc',
        "%time let y = [1,",
    ]
    invalid_code_samples = [
        "let x = );",
        "1 + + )",
        "let = 3;",
    ]

    code_page_something = "print?"

    code_generate_error = SHAPE_ERROR

    code_execute_result = [
        {"code": "1 + 2", "result": "3"},
        {"code": "6 * 7", "result": "42"},
        {"code": "1+2+3", "result": "6"},
        {"code": "let v = [1.0, 2.5];\nv", "result": "[1.0, 2.5]"},
        {"code": "let M[i in 0..2, j in 0..3] = (i * 3 + j) as f32;\nM", "mime": "text/html"},
    ]

    code_display_data = [
        {"code": "%plot [1.0, 4.0, 9.0, 16.0]", "mime": "image/png"},
        {"code": "%plot [1.0, 4.0, 9.0, 16.0]", "mime": "text/plain"},
        {"code": "%time let t = 1 + 1;", "mime": "text/html"},
    ]

    # IPython's glob pattern (jupyter_kernel_test's own example): `?` one character, `*` any run.
    code_history_pattern = "1?2*"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "print"


if __name__ == "__main__":
    unittest.main()
