// engine/jit: the kernel cache — hits from memory and disk, corrupt entries rebuilt, concurrent
// writers from two processes, an unusable cache directory, a missing compiler, LRU eviction.
// These tests run the system C++ compiler (a few hundred milliseconds per compile).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>

#include "tests/unit/jit/jit_fixture.h"

extern char** environ;

namespace ein {
namespace {

using testing::answer_kernel;
using testing::call_answer;
using testing::entries;
using testing::ScopedEnv;
using testing::TempDir;

TEST(JitCache, MissThenHitFromMemoryThenFromDisk) {
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  jit::BatchResult a = jit::load_kernels({answer_kernel(41), answer_kernel(42)}, nullptr);
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.misses, 2);
  EXPECT_EQ(a.hits, 0);
  EXPECT_EQ(call_answer(a.fns[0]), 41);
  EXPECT_EQ(call_answer(a.fns[1]), 42);
  EXPECT_EQ(entries(dir.path()).size(), 2u);  // one object, linked under both keys

  jit::BatchResult b = jit::load_kernels({answer_kernel(42)}, nullptr);
  EXPECT_EQ(b.hits, 1);
  EXPECT_EQ(b.misses, 0);

  jit::reset_for_tests();  // a new process, as far as the cache can tell
  jit::BatchResult c = jit::load_kernels({answer_kernel(41)}, nullptr);
  EXPECT_EQ(c.hits, 1);
  EXPECT_EQ(c.misses, 0);
  EXPECT_EQ(call_answer(c.fns[0]), 41);
  jit::CacheInfo info = jit::cache_info();
  EXPECT_EQ(info.dir, dir.path());
  EXPECT_EQ(info.entries, 2);
  EXPECT_GT(info.bytes, 0);
}

TEST(JitCache, KeyCoversSourceAndFlags) {
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  std::string k1 = jit::kernel_key(answer_kernel(1));
  EXPECT_EQ(k1.size(), 64u);
  EXPECT_EQ(k1, jit::kernel_key(answer_kernel(1)));
  EXPECT_NE(k1, jit::kernel_key(answer_kernel(2)));
  env.set("EIN_CXXFLAGS", "-O2 -march=native -fopenmp");
  EXPECT_NE(k1, jit::kernel_key(answer_kernel(1)));
}

TEST(JitCache, KeysOfSourcesSeenBeforeAreNotHashedAgain) {
  // A repeated call or a re-run cell plans the same kernel text again: its key comes from the
  // memo (no SHA-256), and is the key hashing would give; another text, or other flags (the
  // compiler identity), are hashed afresh.
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  jit::reset_for_tests();
  std::string k1 = jit::kernel_key(answer_kernel(7));
  int64_t before = jit::cache_info().key_memo_hits;
  EXPECT_EQ(jit::kernel_key(answer_kernel(7)), k1);
  EXPECT_EQ(jit::cache_info().key_memo_hits, before + 1);
  std::string k2 = jit::kernel_key(answer_kernel(8));
  EXPECT_NE(k2, k1);
  EXPECT_EQ(jit::cache_info().key_memo_hits, before + 1);
  jit::BatchResult a = jit::load_kernels({answer_kernel(7)}, nullptr);
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(call_answer(a.fns[0]), 7);
  EXPECT_EQ(jit::cache_info().key_memo_hits, before + 2);
  // (ScopedEnv::set resets the jit's state, as a new process would start: the memo with it.)
  env.set("EIN_CXXFLAGS", "-O2 -march=native -fopenmp");
  std::string k3 = jit::kernel_key(answer_kernel(7));
  EXPECT_NE(k3, k1);
  EXPECT_EQ(jit::cache_info().key_memo_hits, 0);
}

TEST(JitCache, CorruptAndTruncatedEntriesAreRebuilt) {
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  ASSERT_EQ(jit::load_kernels({answer_kernel(7)}, nullptr).misses, 1);
  auto files = entries(dir.path());
  ASSERT_EQ(files.size(), 1u);
  for (int round = 0; round < 2; ++round) {
    // Round 0 truncates the object, round 1 flips a byte in the middle.
    std::string data;
    {
      std::ifstream in(files[0], std::ios::binary);
      data.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(data.size(), 100u);
    std::filesystem::remove(files[0]);  // the loaded inode stays intact
    if (round == 0) data.resize(data.size() / 2);
    else data[data.size() / 2] ^= 0x5a;
    std::ofstream(files[0], std::ios::binary) << data;
    jit::reset_for_tests();
    jit::BatchResult r = jit::load_kernels({answer_kernel(7)}, nullptr);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.misses, 1) << "round " << round;
    EXPECT_EQ(call_answer(r.fns[0]), 7);
    jit::reset_for_tests();
    EXPECT_EQ(jit::load_kernels({answer_kernel(7)}, nullptr).hits, 1);  // valid again
  }
}

TEST(JitCache, UnusableCacheDirectoryMeansMemoryOnly) {
  TempDir dir;
  ScopedEnv env;
  std::string blocker = dir.path() + "/a-file";
  std::ofstream(blocker) << "not a directory";
  env.set("EIN_CACHE_DIR", blocker + "/kernels");
  jit::BatchResult r = jit::load_kernels({answer_kernel(9)}, nullptr);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(call_answer(r.fns[0]), 9);
  EXPECT_EQ(jit::cache_info().dir, "");
  EXPECT_EQ(jit::load_kernels({answer_kernel(9)}, nullptr).hits, 1);  // from memory
  if (geteuid() != 0) {
    // A read-only directory (root ignores permissions, so only checked for other users).
    std::string ro = dir.path() + "/ro";
    std::filesystem::create_directory(ro);
    std::filesystem::permissions(ro, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    env.set("EIN_CACHE_DIR", ro);
    jit::BatchResult q = jit::load_kernels({answer_kernel(10)}, nullptr);
    ASSERT_TRUE(q.error.empty()) << q.error;
    EXPECT_EQ(call_answer(q.fns[0]), 10);
    EXPECT_TRUE(entries(ro).empty());
  }
}

TEST(JitCache, MissingCompilerIsAnErrorNotACrash) {
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  env.set("EIN_CXX", dir.path() + "/no-such-compiler");
  jit::BatchResult r = jit::load_kernels({answer_kernel(11)}, nullptr);
  EXPECT_FALSE(r.error.empty());
  ASSERT_EQ(r.fns.size(), 1u);
  EXPECT_EQ(r.fns[0], nullptr);
}

TEST(JitCache, CompileErrorsAreReported) {
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  jit::BatchResult r = jit::load_kernels({"EIN_EXPORT int EIN_KERNEL(ein_args* A) { return nope; }\n"}, nullptr);
  EXPECT_NE(r.error.find("nope"), std::string::npos) << r.error;
  EXPECT_EQ(r.fns[0], nullptr);
  EXPECT_TRUE(entries(dir.path()).empty());
}

TEST(JitCache, LeastRecentlyUsedEntriesAreEvictedAboveTheCap) {
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  ASSERT_EQ(jit::load_kernels({answer_kernel(21)}, nullptr).misses, 1);
  auto files = entries(dir.path());
  ASSERT_EQ(files.size(), 1u);
  // Room for one object, not two: the next compile evicts the older entry.
  env.set("EIN_CACHE_MAX", std::to_string(std::filesystem::file_size(files[0]) + 512));
  ASSERT_EQ(jit::load_kernels({answer_kernel(22)}, nullptr).misses, 1);
  files = entries(dir.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].find(jit::kernel_key(answer_kernel(22))), std::string::npos);
  jit::cache_clear();
  EXPECT_TRUE(entries(dir.path()).empty());
  EXPECT_EQ(jit::cache_info().entries, 0);
}

TEST(JitCache, TwoProcessesCompilingTheSameCellConcurrently) {
  std::string ein = testing::ein_binary();
  if (ein.empty()) GTEST_SKIP() << "ein binary not found next to the test binary";
  TempDir dir;
  std::string prog = dir.path() + "/p.ein";
  std::ofstream(prog) << "let y[i in 0..100] = i * 3 + 7;\nlet s = sum[i](y[i]);\nprint(y[5], s);\n";
  std::string cache = dir.path() + "/cache";
  std::vector<std::string> envs = {"EIN_CACHE_DIR=" + cache, "EIN_JIT=always"};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("EIN_CACHE_DIR=", 0) != 0 && std::string(*e).rfind("EIN_JIT=", 0) != 0) envs.push_back(*e);
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  auto start = [&](const std::string& out) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, (out + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {ein, "--timings", prog};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, ein.c_str(), &fa, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
  };
  auto read = [](const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string o1 = dir.path() + "/o1", o2 = dir.path() + "/o2", o3 = dir.path() + "/o3";
  pid_t a = start(o1), b = start(o2);
  int sa = 0, sb = 0;
  waitpid(a, &sa, 0);
  waitpid(b, &sb, 0);
  EXPECT_TRUE(WIFEXITED(sa) && WEXITSTATUS(sa) == 0) << read(o1 + ".err");
  EXPECT_TRUE(WIFEXITED(sb) && WEXITSTATUS(sb) == 0) << read(o2 + ".err");
  EXPECT_EQ(read(o1), "22 15550\n");
  EXPECT_EQ(read(o2), "22 15550\n");
  EXPECT_EQ(read(o1 + ".err").find("warning"), std::string::npos) << read(o1 + ".err");
  // Whoever linked first won; the entries are complete and a third run compiles nothing.
  pid_t c = start(o3);
  int sc = 0;
  waitpid(c, &sc, 0);
  EXPECT_EQ(read(o3), "22 15550\n");
  EXPECT_NE(read(o3 + ".err").find(" 0 misses"), std::string::npos) << read(o3 + ".err");
}

}  // namespace
}  // namespace ein
