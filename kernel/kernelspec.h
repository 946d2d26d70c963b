// `xein install`: writes the Jupyter kernelspec (share/jupyter/kernels/einlang/) so that
// jupyter finds the kernel. Independent of xeus: installing needs no running kernel.
#pragma once
#include <string>
#include <vector>

namespace ein::kernel {

// Where a kernelspec goes for `--user`, `--prefix DIR`, `--sys-prefix` (Jupyter's own rules).
struct InstallTarget {
  std::string kernels_dir;  // .../share/jupyter/kernels or the user data dir's kernels/
  std::string error;        // bad arguments
  bool help = false;
};
InstallTarget parse_install_args(const std::vector<std::string>& args);

// The kernel.json text for the template with `xein` at `exe` (JSON-escaped into argv).
std::string render_kernel_json(const std::string& tmpl, const std::string& exe);

// Runs the install command; returns the process exit status. Messages go to stdout/stderr.
int install_command(const std::vector<std::string>& args);

extern const char* const kInstallUsage;

}  // namespace ein::kernel
