// Work and memory are bounded before they are spent (issue 19): every way a program can grow a
// value (comprehensions, strings, array_append, literals, file reads, specialisations) stops
// with a coded error under the memory limit, loops over an empty domain cost nothing, and
// integer ranges are exact at the i64 extremes. Each case ends with a result or a diagnostic;
// a watchdog interrupts a cell that is still running after a generous minute, which would be
// reported as the hang it is (no timing is asserted otherwise).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>

#include "tests/unit/interp/interp_fixture.h"

namespace ein::testing {
namespace {

class LimitGuard {
 public:
  explicit LimitGuard(int64_t bytes) : saved_(memory_limit()) { set_memory_limit(bytes); }
  ~LimitGuard() { set_memory_limit(saved_); }

 private:
  int64_t saved_;
};

// Runs a cell (its output goes to *out); interrupts it if it is still running after `seconds`.
// Returns false then.
bool run_bounded(Sess& s, const std::string& code, std::string* out = nullptr, int seconds = 60) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false, fired = false;
  std::thread dog([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(seconds), [&] { return done; })) {
      fired = true;
      s.s->interrupt();
    }
  });
  std::string text = s.run(code);
  if (out) *out = text;
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  dog.join();
  return !fired;
}

const char* const kTiers[] = {"never", "always"};

struct Row {
  const char* src;
  const char* code;  // expected first diagnostic
};

TEST(Bounded, GrowingValuesStopWithE008BeforeAllocating) {
  // A small limit keeps the rows that can only notice growth as it happens quick.
  LimitGuard limit(int64_t{32} << 20);
  const Row rows[] = {
      {"let a = [i | i in 0..2000000000]; print(len(a));", "E008"},
      {"let a = [[i * j | j in 0..100000] | i in 0..100000]; print(len(a));", "E008"},
      {"let a = [i | i in 0..2000000000, i % 2 == 0]; print(len(a));", "E008"},
      {"let v[i in 0..1000] = i; let a = [x | x in v, y in 0..10000000]; print(len(a));", "E008"},
      {"let a = [\"ab\" | i in 0..100000000]; print(len(a));", "E008"},
      {"let a = [(i, i) | i in 0..100000000]; print(len(a));", "E008"},
      {"fn f(s, n) { if n == 0 { len(s) } else { f(s + s, n - 1) } } print(f(\"ab\", 40));", "E008"},
      {"fn g(s, n) { if n == 0 { len(s) } else { g(\"{s}{s}\", n - 1) } } print(g(\"ab\", 40));", "E008"},
      {"let big[i in 0..1000000] = 1.0;\n"
       "fn f(a, n) { if n == 0 { len(a) } else { f(array_append(a, 1.0), n - 1) } }\nprint(f(big, 100));",
       "E008"},
      {"let big[i in 0..1000000] = 1.0; let s = [big, big, big, big, big, big, big, big, big, big];", "E008"},
      {"let big[i in 0..1000000] = 1.0; let rows = [big, big]; fn f(a, n) { if n == 0 { len(a) } else "
       "{ f(array_append(a, big), n - 1) } } print(f(rows, 100));",
       "E008"},
      {"let n: i64 = 9223372036854775807; let x[k in n - 3..=n] = k;", "E008"},
  };
  const int64_t before = memory_in_use();
  for (const char* tier : kTiers) {
    for (const Row& r : rows) {
      {
        Sess s(5000, tier);
        ASSERT_TRUE(run_bounded(s, r.src)) << "still running: " << r.src;
        EXPECT_EQ(s.code(), r.code) << tier << ": " << r.src << "\n" << s.last.rendered;
        EXPECT_EQ(s.run("print(40 + 2);"), "42\n") << r.src;  // the session keeps working
      }
      // Nothing stays reserved once the session is gone.
      EXPECT_LT(memory_in_use() - before, int64_t{1} << 16) << "after " << r.src;
    }
  }
}

TEST(Bounded, WithinTheLimitTheSameConstructsWork) {
  // The counterparts of the rows above that fit: the checks refuse only what is too large.
  LimitGuard limit(int64_t{256} << 20);
  Sess s;
  EXPECT_EQ(s.run("print(len([i | i in 0..1000000]));"), "1000000\n") << s.last.rendered;
  EXPECT_EQ(s.run("fn f(s, n) { if n == 0 { len(s) } else { f(s + s, n - 1) } } print(f(\"ab\", 20));"),
            "2097152\n") << s.last.rendered;
  EXPECT_EQ(s.run("print(array_append([1, 2], 3), array_append([[1, 2]], [3, 4]), array_append([\"a\"], \"b\"));"),
            "[1, 2, 3] [[1, 2], [3, 4]] [\"a\", \"b\"]\n")
      << s.last.rendered;
  EXPECT_EQ(s.run("print(len([\"ab\" | i in 0..1000]), len(\"{1}{2}\"));"), "1000 2\n") << s.last.rendered;
}

class TempDir {
 public:
  TempDir() {
    std::string p = (std::filesystem::temp_directory_path() / "ein-bounded-XXXXXX").string();
    std::vector<char> buf(p.begin(), p.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data()) ? buf.data() : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(Bounded, FilesThatNeverEndOrBlockAreRefused) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string fifo = dir.path() + "/fifo", link = dir.path() + "/zero-link", sparse = dir.path() + "/sparse";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(symlink("/dev/zero", link.c_str()), 0);
  int fd = open(sparse.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, int64_t{1} << 40), 0);  // 1 TiB of holes: no disk used
  close(fd);
  LimitGuard limit(int64_t{256} << 20);
  const std::pair<std::string, const char*> rows[] = {
      {"read_file(\"/dev/zero\")", "E009"},
      {"read_file(\"" + fifo + "\")", "E009"},
      {"read_file(\"" + link + "\")", "E009"},
      {"read_file(\"" + dir.path() + "\")", "E009"},
      {"read_file(\"" + sparse + "\")", "E008"},
      {"load_npy(\"" + fifo + "\")", "E009"},
      {"load_npy(\"/dev/zero\")", "E009"},
      {"write_file(\"" + fifo + "\", \"x\")", "E009"},  // no reader: refused, not blocked
  };
  Sess s;
  for (auto& [call, code] : rows) {
    std::string src = "use std::io::*;\nprint(" + call + ");";
    ASSERT_TRUE(run_bounded(s, src)) << "still running: " << src;
    EXPECT_EQ(s.code(), code) << src << "\n" << s.last.rendered;
  }
  EXPECT_EQ(s.run("use std::io::*;\nprint(len(read_file(\"/proc/self/status\")) > 0);"), "true\n") << s.last.rendered;
}

TEST(Bounded, EverGrowingSpecialisationsStop) {
  const char* rows[] = {
      "fn f(x) { f((x, x)) } print(f(1));",  // doubles: a type-size limit
      "fn f(x) { f((x, 1)) } print(f(1));",  // grows by one: a nesting limit
      "fn f(x) { f([x]) } print(f(1));",
      "fn f(x, y) { f(y, (x, y)) } print(f(1, 2));",
  };
  for (const char* src : rows) {
    Sess s;
    ASSERT_TRUE(run_bounded(s, src)) << "still running: " << src;
    EXPECT_EQ(s.code(), "E002") << src << "\n" << s.last.rendered;
  }
}

TEST(Bounded, LoopsOverAnEmptyDomainCostNothing) {
  // 10^10 (i, j) pairs around an empty k: without the emptiness check each row runs for hours.
  const std::pair<const char*, const char*> rows[] = {
      {"let h[i in 0..100000, j in 0..100000, k in 0..0] = 1.0; print(h.shape);", "[100000, 100000, 0]\n"},
      {"let n = 0; let h[i in 0..100000, j in 0..100000, k in 0..n] = 1.0; print(len(h));", "100000\n"},
      {"print(sum[i in 0..100000, j in 0..100000, k in 0..0](1.0));", "0.0\n"},
      {"let s = sum[i in 0..100000, j in 0..100000, k in 0..0](1.0); print(s);", "0.0\n"},
      {"print(sum[i in 0..100000, j in 0..100000, k in 3..=2](1));", "0\n"},
      {"print(all[i in 0..100000, j in 0..100000, k in 0..0](false));", "true\n"},
      {"print(len([1 | i in 0..100000, j in 0..100000, k in 0..0]));", "0\n"},
  };
  for (const char* tier : kTiers) {
    Sess s(5000, tier);
    for (auto& [src, want] : rows) {
      std::string got;
      ASSERT_TRUE(run_bounded(s, src, &got)) << tier << " still running: " << src;
      EXPECT_EQ(got, want) << tier << ": " << src << "\n" << s.last.rendered;
    }
  }
}

// Points of lo..hi (or lo..=hi) counted exactly.
__int128 points(__int128 lo, __int128 hi, bool inclusive) {
  __int128 n = hi - lo + (inclusive ? 1 : 0);
  return n < 0 ? 0 : n;
}

TEST(Bounded, RangesAtTheI64ExtremesAreExact) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  // Every pair of bounds within 4 of either extreme whose range has at most 6 points: the count
  // by sum, by a comprehension, and membership of the last point, against __int128 arithmetic.
  std::vector<int64_t> edges;
  for (int d = 0; d <= 4; ++d) {
    edges.push_back(kMax - d);
    edges.push_back(kMin + d);
  }
  for (const char* tier : kTiers) {
    Sess s(5000, tier);
    int checked = 0;
    for (int64_t lo : edges)
      for (int64_t hi : edges)
        for (bool incl : {false, true}) {
          __int128 n = points(lo, hi, incl);
          if (n > 6) continue;
          // Written as differences from literals that fit: `a - 2`, `b + 1` never overflow here.
          std::string prog = "let a: i64 = " + std::to_string(lo / 2) + " * 2 + " + std::to_string(lo % 2) +
                             "; let b: i64 = " + std::to_string(hi / 2) + " * 2 + " + std::to_string(hi % 2) +
                             "; let r = a.." + (incl ? "=" : "") + "b;\nprint(sum[k in a.." + (incl ? "=" : "") +
                             "b](1), len([k | k in r]), b in r);";
          std::string want = std::to_string(static_cast<int64_t>(n)) + " " + std::to_string(static_cast<int64_t>(n)) +
                             " " + (incl && n > 0 ? "true" : "false") + "\n";
          std::string got;
          ASSERT_TRUE(run_bounded(s, prog, &got)) << prog;
          EXPECT_EQ(got, want) << tier << ": " << prog << "\n" << s.last.rendered;
          ++checked;
        }
    EXPECT_GT(checked, 40);
  }
}

TEST(Bounded, BoundArithmeticNeverWraps) {
  const Row rows[] = {
      // The example: 4 points, not the 0 a wrapped end gave.
      {"let n: i64 = 9223372036854775807; print(sum[k in n - 3..=n](1));", ""},
      // Bounds whose exact value is outside i64 (or the index type) are E006, not a wrap.
      {"let n: i64 = 9223372036854775807; print(sum[k in n..n + 2](1));", "E006"},
      {"let n: i64 = 9223372036854775807; print(sum[k in 0..n * 4](1));", "E006"},
      {"let m: i64 = -9223372036854775807 - 1; print(sum[k in m - 1..m](1));", "E006"},
      {"let k: i32 = 2147483647; print(sum[i in 0..k + 2](1));", "E006"},
      // An index computed past i64 and back is exact, so out of bounds (it used to wrap).
      {"let n: i64 = 9223372036854775807; let v = [1, 2, 3]; print(v[n + n - n]);", "E005"},
  };
  for (const char* tier : kTiers) {
    Sess s(5000, tier);
    for (const Row& r : rows) {
      ASSERT_TRUE(run_bounded(s, r.src)) << r.src;
      EXPECT_EQ(s.code(), r.code) << tier << ": " << r.src << "\n" << s.last.rendered;
    }
    EXPECT_EQ(s.run(rows[0].src), "4\n") << tier << s.last.rendered;
  }
}

TEST(Bounded, IndexArithmeticIsExactInEveryTier) {
  // Bounds computed inside a kernel (they depend on an outer index), offsets folded at compile
  // time and indices that pass 2^63 on the way: exact values, so the same answer or the same
  // error in both tiers (hand-derived: 2^62 * 2 is 2^63, one past i64::MAX).
  const std::pair<const char*, const char*> rows[] = {
      {"let n: i64 = 4611686018427387904; let y[i in 0..2] = sum[k in n * i..n * i + 2](1); print(y);",
       "[2, 2]\n"},
      {"let n: i64 = 4611686018427387904; let y[i in 0..3] = sum[k in n * i..n * i + 2](1); print(y);", "E006"},
      {"let v[i in 0..10] = i * 2; let off: i64 = 9223372036854775807;\n"
       "let w[i in 0..3] = v[i + off - off + 1]; print(w);",
       "[2, 4, 6]\n"},
      {"let v[i in 0..10] = i * 2; let off: i64 = 9223372036854775807; let w[i in 0..3] = v[i + off]; print(w);",
       "E005"},
      {"let c: i64 = 9223372036854775807; let v[i in 0..10] = i; let w[i in 0..3] = v[i + c]; print(w);", "E005"},
      {"let c: i64 = 9223372036854775807; let v[i in 0..10] = i; let w[i in 0..3] = v[i - c - 1]; print(w);", "E005"},
      {"let c: i64 = 9223372036854775807; let v[i in 0..10] = i; let w[i in 0..3] = v[i - c - 2]; print(w);", "E006"},
      {"let v[i in 0..10] = i; let m: i64 = -9223372036854775807 - 1; let w[i in 0..3] = v[i - m]; print(w);",
       "E006"},
      {"let n: i64 = 9223372036854775807; let x[k in n - 3..n] = k; print(len(x));", "E008"},
  };
  for (const char* tier : kTiers) {
    Sess s(5000, tier);
    for (auto& [src, want] : rows) {
      std::string got;
      ASSERT_TRUE(run_bounded(s, src, &got)) << tier << " still running: " << src;
      if (want[0] == 'E') {
        EXPECT_EQ(s.code(), want) << tier << ": " << src << "\n" << got << s.last.rendered;
      } else {
        EXPECT_EQ(got, want) << tier << ": " << src << "\n" << s.last.rendered;
      }
    }
  }
}

}  // namespace
}  // namespace ein::testing
