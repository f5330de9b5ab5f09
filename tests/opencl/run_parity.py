#!/usr/bin/python3
"""run_parity.py PARITY_EXE MAKE_MODEL T [KNOB=VALUE ...] -- [make_model.py options]

Generates a random model with tests/reference/make_model.py into a temporary folder and
runs test_opencl_parity on it (OpenCL against OpenBLAS, every hook). Exit status is the
parity program's (77: skipped, no OpenCL platform)."""
import subprocess
import sys
import tempfile


def main() -> int:
    args = sys.argv[1:]
    sep = args.index('--')
    exe, make_model, T, knobs = args[0], args[1], args[2], args[3:sep]
    model_args = args[sep + 1:]
    with tempfile.TemporaryDirectory(prefix='ttrace-parity-') as tmp:
        subprocess.run([sys.executable, make_model, tmp + '/model'] + model_args, check=True)
        return subprocess.run([exe, tmp + '/model', T] + knobs).returncode


if __name__ == '__main__':
    sys.exit(main())
