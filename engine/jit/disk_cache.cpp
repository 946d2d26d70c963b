#include "engine/jit/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>

#include "engine/config/env.h"
#include "engine/jit/sha256.h"

namespace ein::jit {

namespace {

constexpr char kMagic[8] = {'E', 'I', 'N', 'K', 'S', 'O', '0', '2'};
constexpr size_t kTrailer = 8 + 8 + 32;
constexpr const char* kKeyFile = "ein-cache.key";
constexpr size_t kKeyBytes = 32;
// Build directories and temporaries of a process killed mid-compile are swept after this long.
constexpr time_t kStaleSeconds = 3600;

bool is_entry(const std::string& name) {
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0 && name.rfind("ein-", 0) != 0;
}

// The entry MAC covers a domain tag and the object, so no other authenticated record (a
// compiler memo) can pass for an object.
std::string object_mac(const std::string& key, std::string_view object) {
  std::string msg = "ein-kernel-object\n";
  msg.append(object.data(), object.size());
  return hmac_sha256(key, msg);
}

std::string record_mac(const std::string& key, const std::string& name, std::string_view text) {
  std::string msg = "ein-cache-record\n" + name + "\n";
  msg.append(text.data(), text.size());
  return hmac_sha256(key, msg);
}

// The user's secret key: read when valid, else made (or replaced) now. "" = unusable.
std::string load_or_make_key(const TrustedDir& d, bool writable) {
  auto valid = [&]() -> std::string {
    struct stat st {};
    auto k = d.read(kKeyFile, 64, &st);
    // A key others can read is no secret: it is replaced like a missing one.
    return k && k->size() == kKeyBytes && (st.st_mode & 077) == 0 ? *k : "";
  };
  if (std::string k = valid(); !k.empty()) return k;
  if (!writable) return "";
  std::string fresh = random_bytes(kKeyBytes);
  if (fresh.empty()) return "";
  if (d.write(kKeyFile, fresh, false)) return fresh;
  if (std::string k = valid(); !k.empty()) return k;  // another process made one first
  // Something unusable holds the name (wrong mode or owner, a symlink, a FIFO): replace it.
  // Entries authenticated under an older key then fail and are rebuilt.
  if (!d.write(kKeyFile, fresh, true)) return "";
  std::string k = valid();
  return k.empty() ? fresh : k;
}

}  // namespace

int64_t cache_cap_from_env() {
  auto v = config::bytes(config::Env::CacheMax);
  return v && *v > 0 ? *v : int64_t{256} << 20;
}

DiskCache DiskCache::from_env() {
  DiskCache c;
  c.cap = cache_cap_from_env();
  std::string dir;
  if (auto e = config::value(config::Env::CacheDir)) {
    dir = *e;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = std::string(x) + "/ein/kernels";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = std::string(h) + "/.cache/ein/kernels";
  }
  if (dir.empty()) return c;
  std::string why;
  auto d = TrustedDir::open(dir, &why);
  if (!d) {
    c.refused = why;
    c.refused_path = dir;
    return c;
  }
  c.writable = faccessat(d->fd(), ".", W_OK | X_OK, AT_EACCESS) == 0;
  c.mac_key = load_or_make_key(*d, c.writable);
  if (c.mac_key.empty()) {
    c.refused = "no secret key could be read or made in it (" + std::string(kKeyFile) + ")";
    c.refused_path = dir;
    return c;
  }
  c.dir = std::move(d);
  return c;
}

std::optional<std::pair<dev_t, ino_t>> DiskCache::inode_of(const std::string& key) const {
  struct stat st {};
  if (!dir || !dir->stat_of(entry_name(key), &st)) return std::nullopt;
  if (!untrusted_file(st).empty()) {
    remove(key);
    return std::nullopt;
  }
  return std::make_pair(st.st_dev, st.st_ino);
}

std::optional<DiskCache::Object> DiskCache::load(const std::string& key) const {
  if (!dir) return std::nullopt;
  struct stat st {};
  auto data = dir->read(entry_name(key), kMaxObjectBytes + static_cast<int64_t>(kTrailer), &st);
  bool ok = data && data->size() > kTrailer && std::memcmp(data->data() + data->size() - kTrailer, kMagic, 8) == 0;
  if (ok) {
    uint64_t len = 0;
    std::memcpy(&len, data->data() + data->size() - kTrailer + 8, 8);
    ok = len == data->size() - kTrailer &&
         same_bytes(object_mac(mac_key, std::string_view(data->data(), len)), std::string_view(data->data() + len + 16, 32));
  }
  if (!ok) {
    struct stat any {};
    if (dir->stat_of(entry_name(key), &any)) remove(key);  // planted, foreign or damaged: rebuild
    return std::nullopt;
  }
  data->resize(data->size() - kTrailer);
  return Object{std::move(*data), st.st_dev, st.st_ino};
}

void DiskCache::touch(const std::string& key) const {
  if (writable) utimensat(dir->fd(), entry_name(key).c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

void DiskCache::remove(const std::string& key) const {
  if (writable) dir->remove(entry_name(key));
}

std::string DiskCache::seal(const std::string& object) const {
  std::string out = object;
  out.append(kMagic, 8);
  uint64_t len = object.size();
  out.append(reinterpret_cast<const char*>(&len), 8);
  out += object_mac(mac_key, object);
  return out;
}

void DiskCache::publish(const TrustedDir& from, const std::string& name, const std::vector<std::string>& keys) const {
  if (!writable) return;
  for (auto& k : keys) {
    // linkat() fails with EEXIST when another process published the same kernel first: theirs
    // stays (it may be loaded somewhere), ours is dropped.
    linkat(from.fd(), name.c_str(), dir->fd(), entry_name(k).c_str(), 0);
  }
}

std::optional<std::string> DiskCache::read_record(const std::string& name) const {
  if (!dir) return std::nullopt;
  auto text = dir->read(name, 1 << 20);
  if (!text || text->size() < 32) return std::nullopt;
  std::string body = text->substr(32);
  if (!same_bytes(text->substr(0, 32), record_mac(mac_key, name, body))) return std::nullopt;
  return body;
}

void DiskCache::write_record(const std::string& name, const std::string& text) const {
  if (writable) dir->write(name, record_mac(mac_key, name, text) + text, true);
}

namespace {

struct Entry {
  std::string name;
  int64_t mtime_ns = 0;
  ino_t ino = 0;
  int64_t size = 0;
  bool regular = false;
};

std::vector<Entry> scan(const TrustedDir& d, std::vector<Entry>* others = nullptr) {
  std::vector<Entry> out;
  DIR* dp = fdopendir(dup(d.fd()));
  if (!dp) return out;
  rewinddir(dp);
  while (dirent* e = readdir(dp)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    struct stat st {};
    if (!d.stat_of(n, &st)) continue;
    Entry en{n, int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, st.st_ino,
             static_cast<int64_t>(st.st_size), untrusted_file(st).empty()};
    if (is_entry(n)) out.push_back(en);
    else if (others) others->push_back(en);
  }
  closedir(dp);
  return out;
}

}  // namespace

DiskCache::Usage DiskCache::usage() const {
  Usage u;
  if (!dir) return u;
  std::map<ino_t, int64_t> inodes;
  for (auto& e : scan(*dir)) {
    if (!e.regular) continue;
    ++u.entries;
    inodes[e.ino] = e.size;
  }
  for (auto& [i, s] : inodes) u.bytes += s;
  return u;
}

void DiskCache::evict() const {
  if (!writable) return;
  std::vector<Entry> others;
  std::vector<Entry> es = scan(*dir, &others);
  const int64_t stale = (int64_t(time(nullptr)) - kStaleSeconds) * 1000000000;
  for (auto& o : others)
    if (o.mtime_ns < stale && o.name.rfind("ein-build-", 0) == 0) dir->remove_subdir(o.name);
    else if (o.mtime_ns < stale && o.name.rfind("ein-tmp-", 0) == 0) dir->remove(o.name);
  std::map<ino_t, std::pair<int, int64_t>> inodes;  // links, size
  for (auto& e : es) {
    if (!e.regular) {
      dir->remove(e.name);  // a FIFO, symlink or foreign file under an entry's name
      continue;
    }
    inodes[e.ino].first++;
    inodes[e.ino].second = e.size;
  }
  int64_t total = 0;
  for (auto& [i, ls] : inodes) total += ls.second;
  if (total <= cap) return;
  std::sort(es.begin(), es.end(), [](const Entry& a, const Entry& b) { return a.mtime_ns < b.mtime_ns; });
  for (auto& e : es) {
    if (total <= cap) break;
    if (!e.regular) continue;
    // Unlinking a loaded object is safe: its mapping keeps the inode alive.
    if (unlinkat(dir->fd(), e.name.c_str(), 0) != 0) continue;
    if (--inodes[e.ino].first == 0) total -= inodes[e.ino].second;
  }
}

void DiskCache::clear() const {
  if (!dir || !writable) return;
  std::vector<Entry> others;
  std::vector<Entry> es = scan(*dir, &others);
  for (auto& e : es) dir->remove(e.name);
  // Temporary files of compilations in progress (maybe in another process) are left alone.
  for (auto& o : others)
    if (o.name.rfind("compiler-", 0) == 0) dir->remove(o.name);
}

}  // namespace ein::jit
