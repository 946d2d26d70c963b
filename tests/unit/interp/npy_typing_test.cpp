// `load_npy` of a literal path is typed at compile time (lang/passes/type_infer_npy.cpp): from
// the file's header when the cell does not write that file, from a save earlier in the cell
// when it does, dynamic otherwise. The files are written here byte by byte in NumPy's format
// 1.0 (numpy/lib/format.py), so the expected types do not come from ein's own writer.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/unit/interp/interp_fixture.h"

namespace ein::testing {
namespace {

// A C-order .npy file holding `data` (raw little-endian bytes) with this descr and shape.
void write_npy(const std::string& path, const std::string& descr, const std::string& shape,
               const std::string& data) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + dict.size() + 1;
  dict += std::string((16 - total % 16) % 16, ' ') + "\n";
  std::ofstream f(path, std::ios::binary);
  f << "\x93NUMPY" << '\x01' << '\x00';
  f.put(static_cast<char>(dict.size() & 0xff));
  f.put(static_cast<char>(dict.size() >> 8));
  f << dict << data;
}

std::string f64s(std::initializer_list<double> xs) {
  std::string out;
  for (double x : xs) out.append(reinterpret_cast<const char*>(&x), sizeof x);
  return out;
}

TEST(NpyTyping, AFileTheCellDoesNotWriteIsTypedFromItsHeader) {
  const std::string p = ::testing::TempDir() + "ein_npy_typing_header.npy";
  write_npy(p, "<f8", "(2, 3)", f64s({1, 2, 3, 4, 5, 7}));
  Sess s;
  // mean is written with a rest pattern: it needs the rank at compile time.
  EXPECT_EQ(s.run("use std::io::load_npy;\nuse std::array::mean;\nlet x = load_npy(\"" + p +
                  "\");\nlet y[i] = x[i, 0] / 3.0;\nprint(typeof(y), mean(x));"),
            "[f64; 2] 3.6666666666666665\n")
      << s.last.rendered;
  std::remove(p.c_str());
}

TEST(NpyTyping, ASaveEarlierInTheCellWinsOverTheFileOnDisk) {
  const std::string p = ::testing::TempDir() + "ein_npy_typing_saved.npy";
  write_npy(p, "<f8", "(1,)", f64s({1}));
  Sess s;
  EXPECT_EQ(s.run("use std::io::{save_npy, load_npy};\nlet a: [i64; 2, 2] = [[1, 2], [3, 4]];\n"
                  "save_npy(\"" + p + "\", a);\nlet b = load_npy(\"" + p + "\");\nprint(typeof(b), b[1, 0] * 2);"),
            "[i64; 2, 2] 6\n")
      << s.last.rendered;
  std::remove(p.c_str());
}

TEST(NpyTyping, AFileWrittenLaterInTheCellStaysDynamic) {
  // The f64 file on disk is replaced by an i32 one before the second load runs: typing that
  // load from the header would be wrong, so it is typed at run time.
  const std::string p = ::testing::TempDir() + "ein_npy_typing_later.npy";
  write_npy(p, "<f8", "(1,)", f64s({2.5}));
  Sess s;
  EXPECT_EQ(s.run("use std::io::{save_npy, load_npy};\nlet a = load_npy(\"" + p + "\");\n"
                  "save_npy(\"" + p + "\", [7, 8, 9]);\nlet b = load_npy(\"" + p + "\");\n"
                  "let c[i] = b[i] * 2;\nprint(typeof(a), typeof(c), c);"),
            "[f64; 1] [i32; 3] [14, 16, 18]\n")
      << s.last.rendered;
  std::remove(p.c_str());
}

TEST(NpyTyping, ASaveThroughANonLiteralPathKeepsEveryLoadDynamic) {
  const std::string p = ::testing::TempDir() + "ein_npy_typing_unnamed.npy";
  write_npy(p, "<f8", "(1,)", f64s({2.5}));
  Sess s;
  EXPECT_EQ(s.run("use std::io::{save_npy, load_npy};\nlet path = \"" + p + "\";\n"
                  "let big: [i64; 1] = [3000000000];\nsave_npy(path, big);\nlet b = load_npy(\"" + p + "\");\n"
                  "let c[i] = b[i] + 1;\nprint(c, typeof(c));"),
            "[3000000001] [i64; 1]\n")
      << s.last.rendered;
  std::remove(p.c_str());
}

}  // namespace
}  // namespace ein::testing
