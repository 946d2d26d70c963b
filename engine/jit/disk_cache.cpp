#include "engine/jit/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "engine/jit/sha256.h"

namespace ein::jit {

namespace {

constexpr char kMagic[8] = {'E', 'I', 'N', 'K', 'S', 'O', '0', '1'};
constexpr size_t kTrailer = 8 + 8 + 32;

bool mkdirs(const std::string& path) {
  std::string cur;
  std::istringstream in(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "";
  while (std::getline(in, part, '/')) {
    if (part.empty()) continue;
    cur += "/" + part;
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool read_all(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool is_entry(const std::string& name) {
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0 && name.rfind("ein-", 0) != 0;
}

}  // namespace

int64_t cache_cap_from_env() {
  const char* v = std::getenv("EIN_CACHE_MAX");
  if (!v || !*v) return int64_t{256} << 20;
  char* end = nullptr;
  double x = std::strtod(v, &end);
  if (end && (*end == 'k' || *end == 'K')) x *= 1024;
  if (end && (*end == 'm' || *end == 'M')) x *= 1024 * 1024;
  if (end && (*end == 'g' || *end == 'G')) x *= 1024.0 * 1024 * 1024;
  return x > 0 ? static_cast<int64_t>(x) : int64_t{256} << 20;
}

DiskCache DiskCache::from_env() {
  DiskCache c;
  c.cap = cache_cap_from_env();
  std::string dir;
  if (const char* e = std::getenv("EIN_CACHE_DIR"); e && *e) {
    dir = e;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = std::string(x) + "/ein/kernels";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = std::string(h) + "/.cache/ein/kernels";
  }
  if (dir.empty()) return c;
  if (!mkdirs(dir)) return c;  // memory only
  c.dir = dir;
  c.writable = access(dir.c_str(), W_OK | X_OK) == 0;
  return c;
}

bool DiskCache::verify(const std::string& key) const {
  if (dir.empty()) return false;
  // One object is often linked under several keys (all kernels of a cell): check each file
  // once per process. Published files are never rewritten in place.
  struct stat st {};
  if (stat(path_of(key).c_str(), &st) != 0) return false;
  std::string id = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size);
  static std::mutex mu;
  static std::set<std::string> verified;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (verified.count(id)) return true;
  }
  std::string data;
  if (!read_all(path_of(key), &data)) return false;
  bool ok = data.size() > kTrailer && std::memcmp(data.data() + data.size() - kTrailer, kMagic, 8) == 0;
  if (ok) {
    uint64_t len = 0;
    std::memcpy(&len, data.data() + data.size() - kTrailer + 8, 8);
    ok = len == data.size() - kTrailer;
    if (ok) {
      Sha256 h;
      h.update(data.data(), static_cast<size_t>(len));
      ok = h.digest() == data.substr(data.size() - 32);
    }
  }
  if (!ok) {
    remove(key);
    return false;
  }
  std::lock_guard<std::mutex> lock(mu);
  verified.insert(id);
  return true;
}

void DiskCache::touch(const std::string& key) const {
  if (writable) utimensat(AT_FDCWD, path_of(key).c_str(), nullptr, 0);
}

void DiskCache::remove(const std::string& key) const {
  if (writable) unlink(path_of(key).c_str());
}

bool DiskCache::seal(const std::string& so_path) {
  std::string data;
  if (!read_all(so_path, &data) || data.empty()) return false;
  Sha256 h;
  h.update(data);
  std::string trailer(kMagic, 8);
  uint64_t len = data.size();
  trailer.append(reinterpret_cast<const char*>(&len), 8);
  trailer += h.digest();
  std::ofstream out(so_path, std::ios::binary | std::ios::app);
  out.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
  return static_cast<bool>(out);
}

void DiskCache::publish(const std::string& so_path, const std::vector<std::string>& keys) const {
  if (!writable) return;
  for (auto& k : keys) {
    // link() fails with EEXIST when another process published the same kernel first: theirs
    // stays (it may be loaded somewhere), ours is dropped.
    if (link(so_path.c_str(), path_of(k).c_str()) != 0 && errno != EEXIST) {
      // Different filesystem or no hard links: copy, then rename into place if still absent.
      std::string data, tmp = path_of(k) + ".tmp" + std::to_string(getpid());
      if (!read_all(so_path, &data)) continue;
      std::ofstream(tmp, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
      if (link(tmp.c_str(), path_of(k).c_str()) != 0) {
        // fall through: keep whatever exists
      }
      unlink(tmp.c_str());
    }
  }
}

namespace {

struct Entry {
  std::string name;
  int64_t mtime_ns = 0;
  ino_t ino = 0;
  int64_t size = 0;
};

std::vector<Entry> scan(const std::string& dir) {
  std::vector<Entry> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (!is_entry(n)) continue;
    struct stat st {};
    if (stat((dir + "/" + n).c_str(), &st) != 0) continue;
    out.push_back(Entry{n, int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, st.st_ino,
                        static_cast<int64_t>(st.st_size)});
  }
  closedir(d);
  return out;
}

}  // namespace

DiskCache::Usage DiskCache::usage() const {
  Usage u;
  if (dir.empty()) return u;
  std::map<ino_t, int64_t> inodes;
  for (auto& e : scan(dir)) {
    ++u.entries;
    inodes[e.ino] = e.size;
  }
  for (auto& [i, s] : inodes) u.bytes += s;
  return u;
}

void DiskCache::evict() const {
  if (!writable) return;
  std::vector<Entry> es = scan(dir);
  std::map<ino_t, std::pair<int, int64_t>> inodes;  // links, size
  for (auto& e : es) {
    inodes[e.ino].first++;
    inodes[e.ino].second = e.size;
  }
  int64_t total = 0;
  for (auto& [i, ls] : inodes) total += ls.second;
  if (total <= cap) return;
  std::sort(es.begin(), es.end(), [](const Entry& a, const Entry& b) { return a.mtime_ns < b.mtime_ns; });
  for (auto& e : es) {
    if (total <= cap) break;
    // Unlinking a loaded object is safe: its mapping keeps the inode alive.
    if (unlink((dir + "/" + e.name).c_str()) != 0) continue;
    if (--inodes[e.ino].first == 0) total -= inodes[e.ino].second;
  }
}

void DiskCache::clear() const {
  if (dir.empty() || !writable) return;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    // Temporary files of compilations in progress (maybe in another process) are left alone.
    if (is_entry(n) || n.rfind("compiler-", 0) == 0) names.push_back(n);
  }
  closedir(d);
  for (auto& n : names) unlink((dir + "/" + n).c_str());
}

}  // namespace ein::jit
