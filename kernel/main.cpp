// xein: the Jupyter kernel. Placeholder until the kernel issue lands: it only reports that the
// kernel is not available, so the build produces the binary the design card names.
#include <cstdio>

int main() {
  std::fputs("xein: the Jupyter kernel is not implemented yet\n", stderr);
  return 1;
}
