// engine/jit: the kernel cache trusts nothing it did not write (issue 19, docs/jit.md "Trust
// model"). Each test builds a hostile cache — a FIFO or a symlink where an entry or the compiler
// memo should be, a directory writable by others or owned by another user, entries with foreign
// owners or loose modes, a planted object sealed with a valid SHA-256 trailer — and checks that
// the kernel is rebuilt (or the cache refused) and the planted code never runs.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "engine/jit/sha256.h"
#include "tests/unit/jit/jit_fixture.h"

namespace ein {
namespace {

using testing::answer_kernel;
using testing::call_answer;
using testing::entries;
using testing::ScopedEnv;
using testing::TempDir;

// load_kernels on another thread; fails the test instead of hanging when it blocks.
jit::BatchResult load_or_fail(const std::vector<std::string>& sources) {
  jit::BatchResult r;
  std::atomic<bool> done{false};
  std::thread t([&] {
    r = jit::load_kernels(sources, nullptr);
    done = true;
  });
  for (int i = 0; i < 1200 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!done) {
    ADD_FAILURE() << "load_kernels blocked for 2 minutes";
    t.detach();  // the process is failing anyway
    return r;
  }
  t.join();
  return r;
}

std::string entry_path(const std::string& dir, int64_t answer) {
  return dir + "/" + jit::kernel_key(answer_kernel(answer)) + ".so";
}

bool is_regular(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class JitTrust : public ::testing::Test {
 protected:
  void SetUp() override { env.set("EIN_CACHE_DIR", dir.path()); }
  // Compiles `answer` into the cache and forgets everything in memory (a new process).
  void warm(int64_t answer) {
    jit::BatchResult r = jit::load_kernels({answer_kernel(answer)}, nullptr);
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(r.misses, 1);
    jit::reset_for_tests();
  }
  // The cache must rebuild `answer` (a miss), answer correctly, and leave a regular entry.
  void expect_rebuilt(int64_t answer) {
    jit::reset_for_tests();  // nothing from memory
    jit::BatchResult r = load_or_fail({answer_kernel(answer)});
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.misses, 1);
    ASSERT_EQ(r.fns.size(), 1u);
    EXPECT_EQ(call_answer(r.fns[0]), answer);
    EXPECT_TRUE(is_regular(entry_path(dir.path(), answer)));
    jit::reset_for_tests();
    EXPECT_EQ(load_or_fail({answer_kernel(answer)}).hits, 1);  // and it is trusted afterwards
  }
  TempDir dir;
  ScopedEnv env;
};

TEST_F(JitTrust, FifoInPlaceOfAnEntryIsIgnoredAndRebuilt) {
  warm(31);
  std::string e = entry_path(dir.path(), 31);
  ASSERT_EQ(unlink(e.c_str()), 0);
  ASSERT_EQ(mkfifo(e.c_str(), 0600), 0);
  expect_rebuilt(31);
}

TEST_F(JitTrust, SymlinkInPlaceOfAnEntryIsNotFollowed) {
  warm(32);
  std::string e = entry_path(dir.path(), 32);
  // A symlink to an endless device, then one to a copy of the genuine entry elsewhere: neither
  // is followed.
  for (std::string target : {std::string("/dev/zero"), dir.path() + "/../elsewhere.so"}) {
    std::string genuine = read_all(e);
    if (target != "/dev/zero") std::ofstream(target, std::ios::binary) << genuine;
    ASSERT_EQ(unlink(e.c_str()), 0);
    ASSERT_EQ(symlink(target.c_str(), e.c_str()), 0);
    expect_rebuilt(32);
    if (target != "/dev/zero") unlink(target.c_str());
  }
}

TEST_F(JitTrust, FifoOrSymlinkInPlaceOfTheCompilerMemoIsIgnored) {
  warm(33);
  std::string memo;
  for (auto& f : std::filesystem::directory_iterator(dir.path()))
    if (f.path().filename().string().rfind("compiler-", 0) == 0) memo = f.path().string();
  ASSERT_FALSE(memo.empty());
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(unlink(memo.c_str()), 0);
    if (round == 0) {
      ASSERT_EQ(mkfifo(memo.c_str(), 0600), 0);
    }
    else ASSERT_EQ(symlink("/dev/zero", memo.c_str()), 0);
    jit::BatchResult r = load_or_fail({answer_kernel(33)});
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(call_answer(r.fns[0]), 33);
    EXPECT_EQ(r.hits, 1);  // the identity was probed again and is the same
    EXPECT_TRUE(is_regular(memo)) << "the memo is rewritten";
    jit::reset_for_tests();
  }
}

TEST_F(JitTrust, PlantedObjectWithAValidSha256TrailerIsNeverLoaded) {
  // An attacker who can write the cache directory compiles their own object under the symbol
  // and name of a kernel and seals it the way the old cache did (magic, length, SHA-256), and
  // also with the current magic but a SHA-256 or an HMAC under a key of their own. Its
  // constructor leaves a marker file: the cache must rebuild the kernel and never load it.
  std::string cxx = std::getenv("EIN_CXX") ? std::getenv("EIN_CXX") : "c++";
  std::string key = jit::kernel_key(answer_kernel(42));
  std::string marker = dir.path() + "/../planted-ran-" + key.substr(0, 8);
  std::string src = dir.path() + "/../planted.cpp", obj = dir.path() + "/../planted.so";
  std::ofstream(src) << "#include <fcntl.h>\n#include <unistd.h>\n"
                     << "__attribute__((constructor)) static void planted() { close(creat(\"" << marker
                     << "\", 0600)); }\n"
                     << "extern \"C\" __attribute__((visibility(\"default\"))) int " << jit::kernel_symbol(key)
                     << "(void*) { return 7; }\n";
  std::string cmd = cxx + " -shared -fPIC -o " + obj + " " + src;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string planted = read_all(obj);
  ASSERT_GT(planted.size(), 100u);
  auto trailer = [&](const char* magic, const std::string& digest) {
    std::string t(magic, 8);
    uint64_t len = planted.size();
    t.append(reinterpret_cast<const char*>(&len), 8);
    return planted + t + digest;
  };
  jit::Sha256 h;
  h.update(planted);
  std::string sha = h.digest();
  std::string variants[] = {
      trailer("EINKSO01", sha),
      trailer("EINKSO02", sha),
      trailer("EINKSO02", jit::hmac_sha256(std::string(32, 'k'), "ein-kernel-object\n" + planted)),
  };
  for (auto& v : variants) {
    jit::reset_for_tests();
    std::string e = dir.path() + "/" + key + ".so";
    unlink(e.c_str());
    { std::ofstream(e, std::ios::binary) << v; }
    chmod(e.c_str(), 0600);
    jit::BatchResult r = load_or_fail({answer_kernel(42)});
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.misses, 1);
    EXPECT_EQ(call_answer(r.fns[0]), 42);
    EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the planted object was loaded";
  }
  unlink(src.c_str());
  unlink(obj.c_str());
  unlink(marker.c_str());
}

TEST_F(JitTrust, DirectoryWritableByOthersIsRefused) {
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  jit::reset_for_tests();
  jit::BatchResult r = load_or_fail({answer_kernel(51)});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(call_answer(r.fns[0]), 51);
  EXPECT_EQ(jit::cache_info().dir, "");      // memory only
  EXPECT_TRUE(entries(dir.path()).empty());  // nothing written there
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/ein-cache.key"));
  ASSERT_EQ(chmod(dir.path().c_str(), 0770), 0);  // group-writable is refused too
  jit::reset_for_tests();
  EXPECT_EQ(jit::cache_info().dir, "");
  chmod(dir.path().c_str(), 0700);
  jit::reset_for_tests();
  EXPECT_EQ(jit::cache_info().dir, dir.path());
}

TEST_F(JitTrust, DirectoryOrEntriesOfAnotherOwnerAreRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "changing owners needs root (the mode checks above cover the rest)";
  const uid_t nobody = 65534;
  // An entry owned by somebody else is rebuilt.
  warm(52);
  std::string e = entry_path(dir.path(), 52);
  ASSERT_EQ(chown(e.c_str(), nobody, nobody), 0);
  expect_rebuilt(52);
  // A whole directory owned by somebody else is not used at all.
  std::string foreign = dir.path() + "/foreign";
  ASSERT_EQ(mkdir(foreign.c_str(), 0755), 0);
  ASSERT_EQ(chown(foreign.c_str(), nobody, nobody), 0);
  env.set("EIN_CACHE_DIR", foreign);
  jit::BatchResult r = load_or_fail({answer_kernel(53)});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(call_answer(r.fns[0]), 53);
  EXPECT_EQ(jit::cache_info().dir, "");
  EXPECT_TRUE(entries(foreign).empty());
}

TEST_F(JitTrust, EntriesWritableByOthersAreRebuilt) {
  warm(54);
  std::string e = entry_path(dir.path(), 54);
  ASSERT_EQ(chmod(e.c_str(), 0666), 0);
  expect_rebuilt(54);
}

TEST_F(JitTrust, AnUnusableKeyIsReplacedAndItsEntriesRebuilt) {
  warm(55);
  std::string k = dir.path() + "/ein-cache.key";
  ASSERT_TRUE(is_regular(k));
  EXPECT_EQ(mode_of(k), 0600u);
  for (int round = 0; round < 3; ++round) {
    std::string old = read_all(k);
    if (round == 0) chmod(k.c_str(), 0644);  // readable by others: no longer secret
    if (round == 1) {
      unlink(k.c_str());
      mkfifo(k.c_str(), 0600);
    }
    if (round == 2) {
      unlink(k.c_str());
      symlink("/dev/zero", k.c_str());
    }
    expect_rebuilt(55);
    EXPECT_TRUE(is_regular(k));
    EXPECT_EQ(mode_of(k), 0600u);
    if (round == 0) {
      EXPECT_NE(read_all(k), old);
    }
    jit::reset_for_tests();
  }
}

TEST_F(JitTrust, FilesHaveExplicitModesWhateverTheUmask) {
  std::string sub = dir.path() + "/made/by/ein";
  env.set("EIN_CACHE_DIR", sub);
  mode_t saved = umask(0);  // the loosest umask
  jit::BatchResult r = load_or_fail({answer_kernel(56), answer_kernel(57)});
  umask(saved);
  ASSERT_TRUE(r.error.empty()) << r.error;
  for (std::string d : {dir.path() + "/made", dir.path() + "/made/by", sub}) EXPECT_EQ(mode_of(d), 0700u) << d;
  int files = 0;
  for (auto& f : std::filesystem::directory_iterator(sub)) {
    std::string n = f.path().filename().string();
    EXPECT_TRUE(is_regular(f.path().string())) << n;
    EXPECT_EQ(mode_of(f.path().string()), 0600u) << n;
    for (const char* tmp : {"ein-tmp-", "ein-build-", "ein-io-"})
      EXPECT_NE(n.rfind(tmp, 0), 0u) << "a temporary was left behind: " << n;
    ++files;
  }
  EXPECT_EQ(files, 4);  // two entries, the key, the compiler memo
}

}  // namespace
}  // namespace ein
