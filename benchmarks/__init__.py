"""kaartlab's benchmark suite: `python -m benchmarks` or `kaartlab bench` (see docs/benchmarks.md).

suite.py measures, calibration.py holds the calibration kernel, compare.py is the CI regression
check, pure_python_knutten.py is the plain-Python Knutten the kernels are compared against, and
baseline.json is this repository's committed baseline. wizard_kernel.py is a standalone Wizard
kernel timer.
"""
