#!/usr/bin/env python3
"""embed_cl.py IN.cl OUT.h: turns an OpenCL C file into a C header.

The header defines tt_opencl_kernel_lines, one string literal per source line (so no
literal exceeds what ISO C compilers must accept), and tt_opencl_kernel_n_lines.
clCreateProgramWithSource takes the array as it is.
"""
import sys


def c_literal(line: str) -> str:
    out = []
    for ch in line:
        if ch == '\\':
            out.append('\\\\')
        elif ch == '"':
            out.append('\\"')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\t':
            out.append('\\t')
        elif ' ' <= ch <= '~':
            out.append(ch)
        else:
            out.extend('\\%03o' % b for b in ch.encode('utf-8'))
    return '"' + ''.join(out) + '"'


def main() -> int:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding='utf-8') as f:
        lines = f.read().splitlines(keepends=True)
    body = ',\n'.join('  ' + c_literal(line) for line in lines)
    with open(dst, 'w', encoding='utf-8') as f:
        f.write('// Generated from kernels.cl by embed_cl.py; do not edit.\n')
        # const char *[] (not *const[]): clCreateProgramWithSource takes const char **.
        f.write('static const char *tt_opencl_kernel_lines[] = {\n%s\n};\n' % body)
        f.write('static const unsigned tt_opencl_kernel_n_lines = %d;\n' % len(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main())
