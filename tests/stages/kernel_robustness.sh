#!/usr/bin/env bash
# Jupyter kernel robustness (issues 19 and 20): tests/kernel/test_robustness.py in the kernel
# stage's setup (tests/stages/kernel.sh), as a stage of its own so that it has its own time limit.
exec env EIN_KERNEL_ROBUSTNESS=1 "$(dirname "${BASH_SOURCE[0]}")/kernel.sh"
