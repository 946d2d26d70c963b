// Internal to engine/jit: a directory the kernel cache may trust, and the file operations it
// allows inside it.
//
// The cache loads native code, so it must not read what somebody else could have written
// (docs/jit.md, "Trust model"). A directory is trusted when it is owned by the effective user and
// not writable by group or others (the rule ssh applies to ~/.ssh). It is opened once and every
// later access is relative to that descriptor, so renaming or replacing a parent directory
// cannot redirect the cache afterwards. Files are opened with O_NOFOLLOW | O_NONBLOCK (a symlink
// or a FIFO planted under an entry's name never blocks or redirects a read), accepted only when
// fstat shows a regular file owned by us and not writable by others, and read up to a bound.
// Everything is created with explicit modes (0700 directories, 0600 files, whatever the umask)
// under unpredictable names.
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ein::jit {

class TrustedDir {
 public:
  // Opens `path` (creating missing components with mode 0700) and checks it. nullptr, with the
  // reason in *why, when it cannot be created or is not trustworthy.
  static std::unique_ptr<TrustedDir> open(const std::string& path, std::string* why);
  ~TrustedDir();
  TrustedDir(const TrustedDir&) = delete;
  TrustedDir& operator=(const TrustedDir&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  // The bytes of `name` if it is a regular file we own, not writable by group or others, of at
  // most `max` bytes; nullopt otherwise (the caller treats it as absent and rebuilds it).
  // `st` receives its metadata when given.
  std::optional<std::string> read(const std::string& name, int64_t max, struct stat* st = nullptr) const;
  // Writes `data` to a new 0600 file under a temporary name, then gives it the name `name`:
  // by link() when `replace` is false (an existing file is kept: false is returned), by
  // rename() when true.
  bool write(const std::string& name, const std::string& data, bool replace) const;
  // Links an existing file of this directory under another name (existing names are kept).
  bool link(const std::string& from, const std::string& to) const;
  void remove(const std::string& name) const;
  // Metadata without following a symlink; false when absent.
  bool stat_of(const std::string& name, struct stat* st) const;
  // A new private subdirectory (0700, unpredictable name) for one compilation.
  std::unique_ptr<TrustedDir> make_private_subdir(const std::string& prefix) const;
  // Removes a subdirectory made by make_private_subdir and the files in it.
  void remove_subdir(const std::string& name) const;

  // The directory's own name relative to its parent (subdirectories) or its full path.
  const std::string& name() const { return name_; }

 private:
  TrustedDir(int fd, std::string path, std::string name) : fd_(fd), path_(std::move(path)), name_(std::move(name)) {}
  int fd_;
  std::string path_;
  std::string name_;
};

// Why the file behind `fd` may not be trusted ("" = it may): not a regular file, another owner,
// writable by group or others.
std::string untrusted_file(const struct stat& st);

// `n` random bytes from the kernel (getrandom, else /dev/urandom); "" if neither works.
std::string random_bytes(size_t n);

}  // namespace ein::jit
