"""Issue 15 seen through jupyter_client: what an IPython user does every day.

Commands anywhere in a cell and the cell magics %%time / %%timeit; matrices echoed one row per
line in text/plain; `_`, %history, %pwd, %cd; diagnostics without internal wrappers; a module
typed as a value; comm_info and comm_open answered; plots as PNG with a text drawing; a
10^6-point plot stays small; history search with IPython's glob patterns.

Run by tests/stages/kernel.sh (which sets JUPYTER_PATH to a freshly installed kernelspec).
"""
import base64
import os
import tempfile
import unittest
import uuid

import test_client

ANSI = test_client.ANSI


class KernelTestCase(test_client.KernelTestCase):
    def run_error(self, code):
        cell = self.k.run(code)
        self.assertEqual(cell.status, "error", f"{code!r} should fail: {cell.outputs}")
        return cell, ANSI.sub("", "\n".join(cell.reply.get("traceback", [])))


class CommandsAnywhere(KernelTestCase):
    def test_code_then_plot(self):
        cell = self.run_ok("let w[i in 0..5] = (i * i) as f32;\n%plot w")
        displays = cell.of("display_data")
        self.assertEqual(len(displays), 1, cell.outputs)
        self.assertIn("image/png", displays[0]["data"])
        self.assertEqual(self.run_ok("w[4]").result(), "16.0")  # the code's binding stays

    def test_comment_then_who(self):
        self.run_ok("let listed = 3;")
        cell = self.run_ok("// what do we have?\n%who")
        text = "".join(d["data"]["text/plain"] for d in cell.of("display_data")) + cell.stdout()
        self.assertRegex(text, r"listed +let +i32")

    def test_code_command_code(self):
        cell = self.run_ok("let p = 2;\n%who\np * 21")
        self.assertEqual(cell.result(), "42")
        self.assertTrue(cell.of("display_data"), cell.outputs)

    def test_error_lines_count_the_whole_cell(self):
        cell, tb = self.run_error("let ok1 = 1;\n%who\nlet bad = nope;")
        n = cell.reply["execution_count"]
        self.assertIn(f"cell[{n}]:3:11", tb)

    def test_remainder_operator_is_not_a_command(self):
        self.assertEqual(self.run_ok("let r = 17\n% 5;\nr").result(), "2")

    def test_cell_magic_time(self):
        cell = self.run_ok("%%time\nlet tm = 20;\ntm + 1")
        self.assertEqual(cell.result(), "21")
        table = cell.of("display_data")[0]["data"]["text/plain"]
        self.assertRegex(table, r"run +[0-9.]+ ms")
        self.assertEqual(self.run_ok("tm").result(), "20")

    def test_cell_magic_timeit(self):
        cell = self.run_ok("%%timeit\nlet s = sum[i in 0..100](i);\ns")
        self.assertIn("per loop", cell.of("display_data")[0]["data"]["text/plain"])
        self.assertEqual(self.k.run("s").status, "error")  # measured code binds nothing

    def test_cell_magic_errors(self):
        cell = self.k.run("%%nosuch\n1")
        self.assertEqual(cell.reply["ename"], "UsageError")
        self.assertIn("%%time", cell.reply["evalue"])
        cell, tb = self.run_error("%%time\nlet e = nope;")
        n = cell.reply["execution_count"]
        self.assertIn(f"cell[{n}]:2:9", tb)

    def test_is_complete(self):
        def status(code):
            return self.k.shell_reply(self.k.kc.is_complete(code))["status"]
        self.assertEqual(status("let a = 1;\n%plot a"), "complete")
        self.assertEqual(status("let a = 1;\n%plot f(a,"), "incomplete")
        self.assertEqual(status("%%time\n1 + 1"), "incomplete")
        self.assertEqual(status("%%time\n1 + 1\n\n"), "complete")


class Echo(KernelTestCase):
    def test_matrix_rows_aligned(self):
        text = self.run_ok("[[1.0, 2.0], [30.0, 4.5]]").result()
        self.assertEqual(text, "[[ 1.0,  2.0],\n [30.0,  4.5]]")

    def test_large_matrix_gives_shape(self):
        self.run_ok("let big[i in 0..50, j in 0..40] = (i - j) as f64;")
        lines = self.run_ok("big").result().splitlines()
        self.assertEqual(lines[0], "[f64; 50, 40]")
        self.assertEqual(lines[1], "[[  0.0,  -1.0,  -2.0, ..., -37.0, -38.0, -39.0],")
        self.assertEqual(lines[4], " ...,")
        self.assertEqual(lines[-1], " [ 49.0,  48.0,  47.0, ...,  12.0,  11.0,  10.0]]")
        self.assertLessEqual(max(len(l) for l in lines), 80)

    def test_print_keeps_the_spec_format(self):
        self.assertEqual(self.run_ok("print([[1, 2], [3, 4]]);").stdout(), "[[1, 2], [3, 4]]\n")

    def test_vectors_and_scalars_unchanged(self):
        self.assertEqual(self.run_ok("[1.0, 2.5]").result(), "[1.0, 2.5]")
        self.assertEqual(self.run_ok("7").result(), "7")


class Reflexes(KernelTestCase):
    def test_last_result(self):
        self.run_ok("6 * 7")
        self.assertEqual(self.run_ok("_ + 1").result(), "43")
        self.run_ok("let nothing_shown = 1;")  # no value: `_` stays
        self.assertEqual(self.run_ok("_").result(), "43")
        # A function keeps the `_` it saw (SPEC §11), however often `_` changes afterwards.
        self.run_ok("10")
        self.run_ok("fn saw() -> i32 { _ + 0 }")
        for v in ["5", "6", "[1.0]"]:
            self.run_ok(v)
        self.assertEqual(self.run_ok("saw()").result(), "10")

    def test_history_pwd_cd(self):
        first = self.run_ok("let hist_a = 1;").reply["execution_count"]
        self.run_ok("let hist_b = 2;")
        text = self.run_ok("%history -n").stdout()
        self.assertIn(f"{first}: let hist_a = 1;", text)
        text = self.run_ok("%history -g hist_?").stdout()
        self.assertIn("hist_b", text)
        self.assertNotIn("%history", text)
        here = self.run_ok("%pwd").stdout().strip()
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.run_ok(f"%cd {d}").stdout().strip(), os.path.realpath(d))
            self.assertEqual(self.run_ok("%pwd").stdout().strip(), os.path.realpath(d))
            self.run_ok("%cd -")
        self.assertEqual(self.run_ok("%pwd").stdout().strip(), here)
        cell = self.k.run("%cd /no/such/dir")
        self.assertEqual(cell.reply["ename"], "UsageError")

    def test_plot_typo_shows_the_users_text(self):
        cell, tb = self.run_error("%plot typo")
        self.assertIn("typo", tb)
        self.assertNotIn("{ typo", tb)

    def test_module_as_a_value(self):
        cell, tb = self.run_error("std::math")
        self.assertIn("`std::math` is a module, not a value", cell.reply["evalue"])
        self.assertIn("std::math::", tb)

    def test_sqrt_without_use_names_its_module(self):
        cell, tb = self.run_error("sqrt(2.0)")
        self.assertIn("use std::math::sqrt", tb)

    def test_member_completion(self):
        self.run_ok("let Arr = [[1.0, 2.0]];\nlet tup = (1, 2.0, 3);")
        def matches(code):
            reply = self.k.shell_reply(self.k.kc.complete(code, len(code)))
            return reply["matches"], reply["cursor_start"]
        self.assertEqual(matches("Arr."), (["length", "shape", "size"], 4))
        self.assertEqual(matches("let q = 2;\nArr.s"), (["shape", "size"], 15))
        self.assertEqual(matches("tup.")[0], ["0", "1", "2"])
        self.assertEqual(matches("1.")[0], [])  # a number, not a member access

    def test_use_group_completion(self):
        ms, start = (lambda r: (r["matches"], r["cursor_start"]))(
            self.k.shell_reply(self.k.kc.complete("use std::math::{si", 18)))
        self.assertIn("sin", ms)
        self.assertIn("sinh", ms)
        self.assertTrue(all(m.startswith("si") for m in ms), ms)
        self.assertEqual(start, 16)
        ms = self.k.shell_reply(self.k.kc.complete("use std::math::{sin, sq", 23))["matches"]
        self.assertEqual(ms, ["sqrt", "sqrt2", "sqrt3", "square"])  # share/std/math items

    def test_inspect_shows_the_called_function(self):
        self.run_ok("fn mm(X, Y) { X }\nlet M2 = [[1.0]];")
        code = "mm(M2, M2"
        reply = self.k.shell_reply(self.k.kc.inspect(code, len(code)))
        self.assertIn("fn mm(X, Y)", reply["data"]["text/plain"])


class Plots(KernelTestCase):
    def test_png_and_terminal_drawing(self):
        cell = self.run_ok("%plot [1.0, 4.0, 9.0, 16.0]")
        data = cell.of("display_data")[0]["data"]
        self.assertNotIn("image/svg+xml", data)  # nbconvert's sanitiser would empty it
        self.assertTrue(base64.b64decode(data["image/png"]).startswith(b"\x89PNG"))
        self.assertIn("+---", data["text/plain"])  # jupyter console shows the drawing
        self.assertNotIn("\x1b[", data["text/plain"])

    def test_million_points_stay_small(self):
        self.run_ok("use std::math::sin;\nlet wave[i in 0..1000000] = sin(i as f64 * 0.001);")
        cell = self.run_ok("%plot wave")
        size = sum(len(v) for v in cell.of("display_data")[0]["data"].values())
        self.assertLess(size, 500_000, "the display is bounded by the picture, not the data")


class Comms(KernelTestCase):
    def test_comm_info(self):
        reply = self.k.shell_reply(self.k.kc.comm_info(target_name="jupyter.widget"))
        self.assertEqual(reply["status"], "ok")
        self.assertEqual(reply["comms"], {})

    def test_widget_comm_open_is_closed(self):
        comm_id = uuid.uuid4().hex
        msg = self.k.kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget",
                                                  "data": {}})
        self.k.kc.shell_channel.send(msg)
        closed = None
        for _ in range(50):
            try:
                m = self.k.kc.get_iopub_msg(timeout=0.2)
            except Exception:
                continue
            if m["msg_type"] == "comm_close" and m["content"].get("comm_id") == comm_id:
                closed = m
                break
        self.assertIsNotNone(closed, "a widget comm gets comm_close (protocol)")
        self.assertEqual(self.run_ok("1 + 1").result(), "2")


if __name__ == "__main__":
    unittest.main()
