"""std::io tests: .npy files written by NumPy (every dtype, both byte orders, C and Fortran
order, format versions 1-3), round trips, malformed files, text files, directories, paths."""
import os
import posixpath
import struct

import numpy as np

from common import FIXTURES, TestFile, fmt

FIX = "../../fixtures/"     # the fixtures as seen from tests/stdlib/cases/io/
FIX_ERR = "../" + FIX       # ... and from tests/stdlib/cases/io/errors/
TMP = "/tmp/ein_stdlib_io_"  # where the tests write (the repository stays clean)


def save(name, arr, version=None):
    path = os.path.join(FIXTURES, name)
    with open(path, "wb") as f:
        np.lib.format.write_array(f, arr, version=version, allow_pickle=False)
    return FIX + name


def raw_npy(name, header, data=b"", version=1):
    """A hand-made .npy: header dict text padded like NumPy's, then `data`."""
    h = header.encode("latin1")
    pre = b"\x93NUMPY" + bytes([version, 0])
    lenbytes = 2 if version == 1 else 4
    pad = (64 - (len(pre) + lenbytes + len(h) + 1) % 64) % 64
    h += b" " * pad + b"\n"
    with open(os.path.join(FIXTURES, name), "wb") as f:
        f.write(pre + struct.pack("<H" if version == 1 else "<I", len(h)) + h + data)
    return FIX + name


# name -> (array as NumPy writes it, the element type it loads as)
GOOD = {
    "f32_2x3": (np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5, "f32"),
    "f64_5": (np.array([0.1, -2.5, 1e-300, 3.25e10, -0.0]), "f64"),
    "i32_2x2": (np.array([[1, -2], [2147483647, -2147483648]], dtype=np.int32), "i32"),
    "i64_4": (np.array([1, -1, 2 ** 62, -(2 ** 63)], dtype=np.int64), "i64"),
    "bool_2x3": (np.array([[True, False, True], [False, False, True]]), "bool"),
    "i8_4": (np.array([-128, -1, 0, 127], dtype=np.int8), "i8"),
    "i16_3": (np.array([-32768, 5, 32767], dtype=np.int16), "i32"),
    "u8_3": (np.array([0, 200, 255], dtype=np.uint8), "i32"),
    "u16_2": (np.array([1, 65535], dtype=np.uint16), "i32"),
    "u32_2": (np.array([7, 4294967295], dtype=np.uint32), "i64"),
    "u64_2": (np.array([3, 2 ** 63 - 1], dtype=np.uint64), "i64"),
    "f16_5": (np.array([1.5, -2.25, 65504, 6e-8, 0.1], dtype=np.float16), "f16"),
    "f32_3d": (np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5, "f32"),
    "f64_big_endian": (np.array([[1.5, -2.0], [1e-3, 7.0]], dtype=">f8"), "f64"),
    "i32_big_endian": (np.array([1, -2, 65536], dtype=">i4"), "i32"),
    "f32_big_endian": (np.array([0.25, -8.5], dtype=">f4"), "f32"),
    "f16_big_endian": (np.array([0.5, -3.0], dtype=">f2"), "f16"),
    "f64_fortran": (np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)), "f64"),
    "i64_fortran_3d": (np.asfortranarray(np.arange(24, dtype=np.int64).reshape(2, 3, 4)), "i64"),
    "bool_fortran": (np.asfortranarray(np.array([[True, False], [True, True], [False, True]])),
                     "bool"),
    "f32_fortran_be": (np.asfortranarray(np.arange(6, dtype=">f4").reshape(3, 2)), "f32"),
    "f64_scalar": (np.array(3.5), "f64"),
    "i32_scalar": (np.array(-7, dtype=np.int32), "i32"),
    "f32_empty": (np.zeros((0,), dtype=np.float32), "f32"),
    "f64_1x1": (np.array([[2.0]]), "f64"),
}


def type_of(arr, kind):
    if arr.ndim == 0:
        return kind
    return f"[{kind}; " + ", ".join(str(d) for d in arr.shape) + "]"


def load_file():
    t = TestFile("io/load.ein", "std::io::load_npy on files NumPy wrote: every dtype, both byte "
                 "orders, C and Fortran order, 0-d arrays, format versions 1-3",
                 uses=["std::io::*"])
    for name, (arr, kind) in GOOD.items():
        path = save(name + ".npy", arr)
        t.raw(f'let {name} = load_npy("{path}");')
        t.check(name, arr.copy(order="C"), kind)
        t.check(f"typeof({name})", type_of(arr, kind), "str")
    for version in ((2, 0), (3, 0)):
        arr = np.arange(4, dtype=np.float64).reshape(2, 2) - 1.5
        path = save(f"f64_v{version[0]}.npy", arr, version=version)
        t.check(f'load_npy("{path}")', arr, "f64")
    # hand-made headers: key order, spacing, a py2 long suffix, a trailing comma
    path = raw_npy("odd_header.npy", "{ 'shape' : (2L,) ,'fortran_order':False, \"descr\":'<i4' }",
                   struct.pack("<2i", 5, -6))
    t.check(f'load_npy("{path}")', np.array([5, -6]), "i32")
    # loaded arrays are ordinary values: indexable, usable in declarations
    t.raw(f'let m = load_npy("{FIX}f32_2x3.npy");', "let doubled[i, j] = m[i, j] * 2.0;")
    t.check("doubled", GOOD["f32_2x3"][0] * 2, "f32")
    t.check("m[1, 2] + m[0, 0]", GOOD["f32_2x3"][0][1, 2] + GOOD["f32_2x3"][0][0, 0], "f32")
    t.raw(f'let v = load_npy("{FIX}i64_4.npy");')
    t.check("v[2] + v[0]", int(GOOD["i64_4"][0][2]) + int(GOOD["i64_4"][0][0]), "i64")
    # literals next to a loaded value take its element type
    t.check("v[0] * 3 + v[1] / 2", 1 * 3 + 0, "i64")
    t.check("m[0, 1] * 4.0", GOOD["f32_2x3"][0][0, 1] * 4, "f32")
    path = raw_npy("empty_2d.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 0), }")
    t.check(f'typeof(load_npy("{path}"))', "[f64; 3, 0]", "str")
    t.write()


def roundtrip_file():
    t = TestFile("io/roundtrip.ein", "std::io::save_npy writes byte for byte what numpy.save "
                 "writes; load_npy reads it back", uses=["std::io::*"])
    for name in ("f32_2x3", "f64_5", "i32_2x2", "i64_4", "bool_2x3", "i8_4", "f16_5", "f32_3d",
                 "f64_scalar", "i32_scalar", "f32_empty"):
        arr, kind = GOOD[name]
        t.raw(f'let a_{name} = load_npy("{FIX}{name}.npy");',
              f'save_npy("{TMP}{name}.npy", a_{name});')
        t.check(f'read_file("{TMP}{name}.npy") == read_file("{FIX}{name}.npy")', True, "bool")
        t.check(f'load_npy("{TMP}{name}.npy")', arr, kind)
    # C-ordered little-endian copies of files NumPy wrote in other layouts
    for name in ("f64_big_endian", "f64_fortran", "i64_fortran_3d", "f32_fortran_be"):
        arr, kind = GOOD[name]
        canon = arr.copy(order="C").astype(arr.dtype.newbyteorder("<"))
        save(name + "_c.npy", canon)
        t.raw(f'save_npy("{TMP}{name}.npy", load_npy("{FIX}{name}.npy"));')
        t.check(f'read_file("{TMP}{name}.npy") == read_file("{FIX}{name}_c.npy")', True, "bool")
    # arrays made in Einlang
    made = [("made_f32", "[[1.0, -2.5], [0.125, 4.0]]", "[f32; 2, 2]",
             np.array([[1.0, -2.5], [0.125, 4.0]], dtype=np.float32)),
            ("made_f64", "[0.1, 0.2, 0.3]", "[f64; 3]", np.array([0.1, 0.2, 0.3])),
            ("made_i64", "[[[1, 2]], [[3, 4]]]", "[i64; 2, 1, 2]",
             np.array([[[1, 2]], [[3, 4]]], dtype=np.int64)),
            ("made_bool", "[true, false, false]", "[bool; 3]", np.array([True, False, False])),
            ("made_scalar", "2.5", "f64", np.array(2.5))]
    for name, literal, ann, ref in made:
        save(name + ".npy", ref)
        t.raw(f"let {name}: {ann} = {literal};", f'save_npy("{TMP}{name}.npy", {name});')
        t.check(f'read_file("{TMP}{name}.npy") == read_file("{FIX}{name}.npy")', True, "bool")
    t.raw("let computed[i in 0..4] = (i * i) as f32 / 2.0;",
          f'save_npy("{TMP}computed.npy", computed);')
    save("computed.npy", (np.arange(4) ** 2 / 2).astype(np.float32))
    t.check(f'read_file("{TMP}computed.npy") == read_file("{FIX}computed.npy")', True, "bool")
    # bf16 has no NumPy dtype: it is stored widened to float32
    t.raw("let half: [bf16; 2] = [1.5, -0.25];", f'save_npy("{TMP}bf16.npy", half);')
    t.check(f'typeof(load_npy("{TMP}bf16.npy"))', "[f32; 2]", "str")
    t.check(f'load_npy("{TMP}bf16.npy")', np.array([1.5, -0.25], dtype=np.float32), "f32")
    t.write()


def error_files():
    """One file per malformed input: each run must fail with its code, never crash."""
    cases = {
        "missing": ("E009", FIX_ERR + "no_such_file.npy"),
        "directory": ("E009", FIX_ERR),
        "bad_magic": ("E006", None),
        "truncated_data": ("E006", None),
        "truncated_header": ("E006", None),
        "bad_version": ("E006", None),
        "header_syntax": ("E006", None),
        "missing_key": ("E006", None),
        "complex": ("E006", None),
        "structured": ("E006", None),
        "unicode": ("E006", None),
        "object": ("E006", None),
        "u64_too_big": ("E006", None),
        "huge_shape": ("E008", None),
        "overflowing_shape": ("E008", None),
        "header_too_long": ("E006", None),
    }
    fx = FIXTURES
    with open(os.path.join(fx, "bad_magic.npy"), "wb") as f:
        f.write(b"\x93NUMPX\x01\x00" + b"\x00" * 60)
    good = open(os.path.join(fx, "f64_5.npy"), "rb").read()
    with open(os.path.join(fx, "truncated_data.npy"), "wb") as f:
        f.write(good[:-5])
    with open(os.path.join(fx, "truncated_header.npy"), "wb") as f:
        f.write(good[:40])
    raw_npy("bad_version.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
            b"\x00" * 8, version=9)
    raw_npy("header_syntax.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,,), }",
            b"\x00" * 8)
    raw_npy("missing_key.npy", "{'descr': '<f8', 'shape': (1,), }", b"\x00" * 8)
    save("complex.npy", np.array([1 + 2j]))
    save("structured.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]))
    save("unicode.npy", np.array(["ab", "c"]))
    raw_npy("object.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", b"\x00" * 8)
    save("u64_too_big.npy", np.array([1, 2 ** 63], dtype=np.uint64))
    raw_npy("huge_shape.npy", "{'descr': '<f8', 'fortran_order': False, "
            "'shape': (1000000000000, 1000), }", b"\x00" * 8)
    raw_npy("overflowing_shape.npy", "{'descr': '<f8', 'fortran_order': False, "
            "'shape': (99999999999999999999999,), }", b"\x00" * 8)
    with open(os.path.join(fx, "header_too_long.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{")
    for name, (code, path) in cases.items():
        t = TestFile(f"io/errors/{name}.ein", f"std::io::load_npy on a {name.replace('_', ' ')} "
                     f"file fails with {code}", uses=["std::io::load_npy"])
        t.raw(f'print(load_npy("{path or FIX_ERR + name + ".npy"}"));')
        t.expect_error(code)
        t.write()
    t = TestFile("io/errors/save_unwritable.ein", "std::io::save_npy into a missing directory "
                 "fails with E009", uses=["std::io::save_npy"])
    t.raw('save_npy("/nonexistent_dir_ein/x.npy", [1.0]);')
    t.expect_error("E009")
    t.write()
    t = TestFile("io/errors/save_strings.ein", "std::io::save_npy of an array of strings is E002",
                 uses=["std::io::save_npy"])
    t.raw('save_npy("/tmp/ein_stdlib_io_strings.npy", ["a", "b"]);')
    t.expect_error("E002")
    t.write()


def files_file():
    t = TestFile("io/files.ein", "std::io text files, directories, copies, moves, sizes and tests",
                 uses=["std::io::*"])
    listing = os.path.join(FIXTURES, "listing")
    os.makedirs(listing)
    for n in ("b.txt", "a.npy", "C.md"):
        with open(os.path.join(listing, n), "w") as f:
            f.write(n + "\n")
    os.makedirs(os.path.join(listing, "sub"))
    with open(os.path.join(listing, "sub", ".keep"), "w") as f:
        f.write("")
    t.check(f'list_dir("{FIX}listing")', '["C.md", "a.npy", "b.txt", "sub"]', "str")
    t.check(f'len(list_dir("{FIX}listing/sub"))', 1, "i32")
    t.check(f'read_file("{FIX}listing/b.txt")', "b.txt", "str")
    t.raw("//> ")
    t.check(f'file_exists("{FIX}listing/a.npy")', True, "bool")
    t.check(f'file_exists("{FIX}listing")', True, "bool")
    t.check(f'file_exists("{FIX}listing/none")', False, "bool")
    t.raw(f'write_file("{TMP}text.txt", "line 1\\nline {{{{2}}}}\\n");')
    t.check(f'read_file("{TMP}text.txt") == "line 1\\nline {{{{2}}}}\\n"', True, "bool")
    t.check(f'len(read_file("{TMP}text.txt"))', len("line 1\nline {2}\n"), "i32")
    t.raw(f'write_file("{TMP}text.txt", "");')
    t.check(f'read_file("{TMP}text.txt") == ""', True, "bool")
    # appending, sizes, tests, copies, moves, deletion, directories
    t.raw(f'append_file("{TMP}text.txt", "ab");', f'append_file("{TMP}text.txt", "cdé\\n");')
    t.check(f'read_file("{TMP}text.txt") == "abcdé\\n"', True, "bool")
    t.check(f'file_size("{TMP}text.txt")', len("abcdé\n".encode()), "i64")
    t.check(f'typeof(file_size("{TMP}text.txt"))', "i64", "str")
    t.check(f'file_size("{FIX}listing/b.txt")', len("b.txt\n"), "i64")
    t.check(f'is_file("{TMP}text.txt")', True, "bool")
    t.check(f'is_dir("{TMP}text.txt")', False, "bool")
    t.check(f'is_file("{FIX}listing")', False, "bool")
    t.check(f'is_dir("{FIX}listing")', True, "bool")
    t.check(f'is_file("{FIX}listing/none")', False, "bool")
    t.check(f'is_dir("{FIX}listing/none")', False, "bool")
    t.raw(f'create_dir("{TMP}tree/a/b");', f'create_dir("{TMP}tree/a/b");')
    t.check(f'is_dir("{TMP}tree/a/b")', True, "bool")
    t.raw(f'copy_file("{TMP}text.txt", "{TMP}tree/a/copy.txt");')
    t.check(f'read_file("{TMP}tree/a/copy.txt") == read_file("{TMP}text.txt")', True, "bool")
    t.raw(f'write_file("{TMP}tree/a/copy.txt", "new");',
          f'copy_file("{TMP}tree/a/copy.txt", "{TMP}tree/a/b/second.txt");')
    t.check(f'read_file("{TMP}tree/a/b/second.txt")', "new", "str")
    t.raw(f'move_file("{TMP}tree/a/copy.txt", "{TMP}tree/moved.txt");')
    t.check(f'file_exists("{TMP}tree/a/copy.txt")', False, "bool")
    t.check(f'read_file("{TMP}tree/moved.txt")', "new", "str")
    t.check(f'list_dir("{TMP}tree")', '["a", "moved.txt"]', "str")
    t.raw(f'delete_file("{TMP}tree/moved.txt");')
    t.check(f'list_dir("{TMP}tree")', '["a"]', "str")
    t.raw(f'remove_dir("{TMP}tree");')
    t.check(f'file_exists("{TMP}tree")', False, "bool")
    t.write()
    for name, code, what in [
            ("delete_missing", 'delete_file("/nonexistent_dir_ein/x.txt");', "delete_file of a missing file"),
            ("delete_directory", f'delete_file("{FIX_ERR}listing");', "delete_file of a directory"),
            ("remove_dir_file", f'remove_dir("{FIX_ERR}listing/b.txt");', "remove_dir of a file"),
            ("copy_missing", 'copy_file("/nonexistent_dir_ein/x", "/tmp/ein_stdlib_io_y");', "copy_file of a missing file"),
            ("move_missing", 'move_file("/nonexistent_dir_ein/x", "/tmp/ein_stdlib_io_y");', "move_file of a missing file"),
            ("size_missing", 'print(file_size("/nonexistent_dir_ein/x"));', "file_size of a missing file"),
            ("append_unwritable", 'append_file("/nonexistent_dir_ein/x", "a");', "append_file into a missing directory")]:
        t = TestFile(f"io/errors/{name}.ein", f"std::io {what} is E009", uses=["std::io::*"])
        t.raw(code)
        t.expect_error("E009")
        t.write()
    t = TestFile("io/errors/read_missing.ein", "std::io::read_file of a missing file is E009",
                 uses=["std::io::read_file"])
    t.raw('print(read_file("/nonexistent_dir_ein/none.txt"));')
    t.expect_error("E009")
    t.write()
    t = TestFile("io/errors/list_missing.ein", "std::io::list_dir of a missing directory is E009",
                 uses=["std::io::list_dir"])
    t.raw('print(list_dir("/nonexistent_dir_ein"));')
    t.expect_error("E009")
    t.write()


def path_file():
    t = TestFile("io/path.ein", "std::io join_path, split_path, basename, dirname, relative_path, "
                 "absolute_path (os.path / pathlib semantics), script_dir",
                 uses=["std::io::*"])
    paths = ["a/b/c.txt", "/usr/lib/x.so", "file", "dir/", "/", "", "a//b", "//x", "a/b//",
             "./rel/../p q.npy", "/a", "x/y/z/w/v/u/t/s/r/q/p/o/n/m/l/k/j/i/h/g/f/e.ein",
             "we!rd/#$%&'()*+,-.;<=>?@[]^_`|~.t", "données/été/naïve.txt", "日本/語"]
    for p in paths:
        t.check(f'"[" + basename("{p}") + "]"', "[" + posixpath.basename(p) + "]", "str")
        t.check(f'"[" + dirname("{p}") + "]"', "[" + posixpath.dirname(p) + "]", "str")
    for parts in [("a", "b"), ("a/", "b"), ("a", "/b"), ("", "b"), ("a/b", "c/d"), ("/", "x"),
                  ("a", ""), ("dir//", "f"), ("é", "ü"), ("a",), ("data", "run1", "w.npy"),
                  ("/x", "y", "/z", "w"), ("a", "", "b", "")]:
        lit = "[" + ", ".join(f'"{q}"' for q in parts) + "]"
        t.check(f'"[" + join_path({lit}) + "]"', "[" + posixpath.join(*parts) + "]", "str")
    t.raw('let joined = join_path(["data", "run1", "w.npy"]);')
    t.check("basename(joined) + \" \" + dirname(joined)", "w.npy data/run1", "str")
    import pathlib
    for p in ["/usr/lib/x.so", "a/b/c.txt", "a//b/", "/", "file", "./rel/p", "données/été"]:
        parts = list(pathlib.PurePosixPath(p).parts)
        t.check(f'split_path("{p}")', "[" + ", ".join(f'"{q}"' for q in parts) + "]", "str")
        t.check(f'join_path(split_path("{p}")) == "{posixpath.normpath(p) if p.startswith(".") else str(pathlib.PurePosixPath(p))}"',
                True, "bool")
    t.check('len(split_path(""))', 0, "i32")
    for p, start in [("/a/b/c", "/a/d"), ("/a", "/a"), ("/a/b", "/"), ("/", "/a/b"),
                     ("/x/y/../z", "/x"), ("/p/q", "/p/q/r/s"), ("/é/ü", "/é")]:
        t.check(f'relative_path("{p}", "{start}")', posixpath.relpath(p, start), "str")
    for p in ["/a/./b/../c/", "/a//b", "/", "/x/../../y"]:
        t.check(f'absolute_path("{p}")', posixpath.abspath(p), "str")
    # the working directory of a test is its own directory (tests/golden/README.md)
    t.check('absolute_path(".") == current_dir()', True, "bool")
    t.check('script_dir() == current_dir()', True, "bool")
    t.check('basename(script_dir())', "io", "str")
    t.check('resolve_relative_to_script("w.npy") == script_dir() + "/w.npy"', True, "bool")
    t.check('resolve_relative_to_script("/abs/w.npy")', "/abs/w.npy", "str")
    t.check('relative_path(script_dir() + "/sub/f", ".")', "sub/f", "str")
    t.check('relative_path("sub/f", script_dir())', "sub/f", "str")
    t.write()


def generate():
    os.makedirs(FIXTURES, exist_ok=True)
    load_file()
    roundtrip_file()
    error_files()
    files_file()
    path_file()
    assert fmt is not None
