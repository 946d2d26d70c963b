// Kernelspec installation (see kernelspec.h).
#include "kernel/kernelspec.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/config/env.h"

namespace fs = std::filesystem;

namespace ein::kernel {

const char* const kInstallUsage = R"(usage: xein install [--user | --prefix DIR | --sys-prefix]
  --user        the per-user Jupyter data dir: $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter,
                else ~/.local/share/jupyter (the default)
  --prefix DIR  DIR/share/jupyter (add DIR/share/jupyter to JUPYTER_PATH to use it)
  --sys-prefix  the Python environment's prefix: $VIRTUAL_ENV, else $CONDA_PREFIX, else /usr
                (Debian's sys.prefix)
Writes kernels/einlang/{kernel.json, logo-32x32.png, logo-64x64.png}; kernel.json runs this
xein binary by its absolute path.
)";

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

std::string user_data_dir() {
  if (auto d = env("JUPYTER_DATA_DIR"); !d.empty()) return d;
  if (auto d = env("XDG_DATA_HOME"); !d.empty()) return d + "/jupyter";
  return env("HOME") + "/.local/share/jupyter";
}

// The directory holding kernel.json.in and the logos: beside an installed share/ first, then
// the source tree baked in at build time.
std::string template_dir() {
  std::vector<fs::path> cands;
  if (auto d = config::value(config::Env::ShareDir)) cands.push_back(fs::path(*d) / "jupyter");
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    cands.push_back(exe.parent_path().parent_path() / "share" / "ein" / "jupyter");
    cands.push_back(exe.parent_path().parent_path() / "share" / "jupyter");
  }
#ifdef EIN_SHARE_DIR
  cands.push_back(fs::path(EIN_SHARE_DIR) / "jupyter");
#endif
  for (auto& c : cands)
    if (fs::is_regular_file(c / "kernel.json.in", ec)) return c.string();
  return "";
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
      continue;
    }
    o += c;
  }
  return o;
}

}  // namespace

InstallTarget parse_install_args(const std::vector<std::string>& args) {
  InstallTarget t;
  std::string where = "user", prefix;
  int chosen = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      t.help = true;
      return t;
    } else if (a == "--user") {
      where = "user", ++chosen;
    } else if (a == "--sys-prefix") {
      where = "sys", ++chosen;
    } else if (a == "--prefix" && i + 1 < args.size()) {
      where = "prefix", prefix = args[++i], ++chosen;
    } else if (a.rfind("--prefix=", 0) == 0) {
      where = "prefix", prefix = a.substr(9), ++chosen;
    } else {
      t.error = "xein install: unexpected argument `" + a + "`";
      return t;
    }
  }
  if (chosen > 1) {
    t.error = "xein install: choose one of --user, --prefix DIR, --sys-prefix";
    return t;
  }
  if (where == "prefix" && prefix.empty()) {
    t.error = "xein install: --prefix needs a directory";
    return t;
  }
  fs::path base;
  if (where == "user") {
    base = user_data_dir();
  } else if (where == "prefix") {
    base = fs::path(prefix) / "share" / "jupyter";
  } else {
    std::string sys = env("VIRTUAL_ENV");
    if (sys.empty()) sys = env("CONDA_PREFIX");
    if (sys.empty()) sys = "/usr";
    base = fs::path(sys) / "share" / "jupyter";
  }
  t.kernels_dir = (base / "kernels").string();
  return t;
}

std::string render_kernel_json(const std::string& tmpl, const std::string& exe) {
  std::string out = tmpl;
  const std::string key = "@XEIN_EXECUTABLE@";
  for (size_t p; (p = out.find(key)) != std::string::npos;) out.replace(p, key.size(), json_escape(exe));
  return out;
}

int install_command(const std::vector<std::string>& args) {
  InstallTarget t = parse_install_args(args);
  if (t.help) {
    std::fputs(kInstallUsage, stdout);
    return 0;
  }
  if (!t.error.empty()) {
    std::fprintf(stderr, "%s\n%s", t.error.c_str(), kInstallUsage);
    return 2;
  }
  std::string src = template_dir();
  if (src.empty()) {
    std::fprintf(stderr, "xein install: cannot find jupyter/kernel.json.in (set EIN_SHARE_DIR)\n");
    return 1;
  }
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) {
    std::fprintf(stderr, "xein install: cannot find the xein executable: %s\n", ec.message().c_str());
    return 1;
  }
  std::ifstream in(fs::path(src) / "kernel.json.in");
  std::stringstream tmpl;
  tmpl << in.rdbuf();
  fs::path dest = fs::path(t.kernels_dir) / "einlang";
  fs::create_directories(dest, ec);
  if (ec) {
    std::fprintf(stderr, "xein install: cannot create %s: %s\n", dest.c_str(), ec.message().c_str());
    return 1;
  }
  {
    std::ofstream out(dest / "kernel.json", std::ios::trunc);
    out << render_kernel_json(tmpl.str(), exe.string());
    if (!out) {
      std::fprintf(stderr, "xein install: cannot write %s/kernel.json\n", dest.c_str());
      return 1;
    }
  }
  for (const char* logo : {"logo-32x32.png", "logo-64x64.png"}) {
    fs::copy_file(fs::path(src) / logo, dest / logo, fs::copy_options::overwrite_existing, ec);
    if (ec) std::fprintf(stderr, "xein install: warning: %s not copied: %s\n", logo, ec.message().c_str());
  }
  std::printf("Installed the Einlang kernelspec in %s\n", dest.c_str());
  return 0;
}

}  // namespace ein::kernel
