#include "engine/jit/trusted_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ein::jit {

namespace {

std::string hex(const std::string& bytes) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

// A name no other process can predict (so none can plant a file or link under it first).
std::string fresh_name(const std::string& prefix) {
  std::string r = random_bytes(12);
  if (r.empty()) {  // no randomness at all: still unique within this machine
    static unsigned counter = 0;
    r = std::to_string(getpid()) + "-" + std::to_string(++counter) + "-" + std::to_string(time(nullptr));
    return prefix + r;
  }
  return prefix + hex(r);
}

std::string untrusted_dir(const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return "it is not a directory";
  if (st.st_uid != geteuid()) return "it is owned by another user (uid " + std::to_string(st.st_uid) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "it is writable by group or others";
  return "";
}

bool write_fd(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

std::string untrusted_file(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_uid != geteuid()) return "owned by another user";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
  return "";
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  if (got == n) return out;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, out.data() + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  close(fd);
  return got == n ? out : "";
}

std::unique_ptr<TrustedDir> TrustedDir::open(const std::string& path, std::string* why) {
  // Missing components are created private (0700 whatever the umask); existing ones are left
  // as they are and only the final directory is judged.
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    if (path[i - 1] == '/') continue;  // "a//b" or a trailing slash
    std::string prefix = path.substr(0, i);
    if (::mkdir(prefix.c_str(), 0700) == 0) {
      ::chmod(prefix.c_str(), 0700);
    } else if (errno != EEXIST) {
      *why = "cannot create " + prefix + ": " + std::strerror(errno);
      return nullptr;
    }
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *why = std::string("cannot open it: ") + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !(*why = untrusted_dir(st)).empty()) {
    if (why->empty()) *why = std::string("cannot examine it: ") + std::strerror(errno);
    close(fd);
    return nullptr;
  }
  return std::unique_ptr<TrustedDir>(new TrustedDir(fd, path, path));
}

TrustedDir::~TrustedDir() {
  if (fd_ >= 0) close(fd_);
}

std::optional<std::string> TrustedDir::read(const std::string& name, int64_t max, struct stat* out_st) const {
  int fd = openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::nullopt;  // absent, or a symlink (ELOOP)
  struct stat st {};
  if (fstat(fd, &st) != 0 || !untrusted_file(st).empty() || st.st_size > max) {
    close(fd);
    return std::nullopt;
  }
  std::string data(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    ssize_t r = ::read(fd, data.data() + got, data.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  close(fd);
  if (got != data.size()) return std::nullopt;  // shrank while being read
  if (out_st) *out_st = st;
  return data;
}

bool TrustedDir::write(const std::string& name, const std::string& data, bool replace) const {
  std::string tmp = fresh_name("ein-tmp-");
  int fd = openat(fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  fchmod(fd, 0600);  // the umask may have taken bits away; nobody else gets any
  bool ok = write_fd(fd, data);
  ok = close(fd) == 0 && ok;
  if (ok) ok = replace ? renameat(fd_, tmp.c_str(), fd_, name.c_str()) == 0 : linkat(fd_, tmp.c_str(), fd_, name.c_str(), 0) == 0;
  if (!ok || !replace) unlinkat(fd_, tmp.c_str(), 0);
  return ok;
}

bool TrustedDir::link(const std::string& from, const std::string& to) const {
  return linkat(fd_, from.c_str(), fd_, to.c_str(), 0) == 0;
}

void TrustedDir::remove(const std::string& name) const { unlinkat(fd_, name.c_str(), 0); }

bool TrustedDir::stat_of(const std::string& name, struct stat* st) const {
  return fstatat(fd_, name.c_str(), st, AT_SYMLINK_NOFOLLOW) == 0;
}

std::unique_ptr<TrustedDir> TrustedDir::make_private_subdir(const std::string& prefix) const {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string name = fresh_name(prefix);
    if (mkdirat(fd_, name.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      return nullptr;
    }
    int fd = openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0 || !untrusted_dir(st).empty()) {
      if (fd >= 0) close(fd);
      return nullptr;
    }
    fchmod(fd, 0700);
    return std::unique_ptr<TrustedDir>(new TrustedDir(fd, path_ + "/" + name, name));
  }
  return nullptr;
}

void TrustedDir::remove_subdir(const std::string& name) const {
  int fd = openat(fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    std::vector<std::string> names;
    if (DIR* d = fdopendir(dup(fd))) {
      while (dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n != "." && n != "..") names.push_back(n);
      }
      closedir(d);
    }
    for (auto& n : names) unlinkat(fd, n.c_str(), 0);
    close(fd);
  }
  unlinkat(fd_, name.c_str(), AT_REMOVEDIR);
}

}  // namespace ein::jit
