#!/usr/bin/env python3
"""Checks every cross-module #include in src/ against the module table of
docs/ARCHITECTURE.md (its "may include" column). Exits 1 and names each include that the
table does not allow, or each module the table does not list.

  /usr/bin/python3 tools/check_layers.py [REPO]
"""
import os
import re
import sys

ROW = re.compile(r"^\|\s*`src/([a-z_]+)/`\s*\|(?P<rest>.*)\|\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def allowed_table(doc):
    """{module: set of modules it may include}, from the table whose header has 'may include'."""
    table, in_table, col = {}, False, None
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells and any(c.lower() == "may include" for c in cells):
            in_table, col = True, [c.lower() for c in cells].index("may include")
            continue
        if not in_table:
            continue
        if not cells:
            break
        m = ROW.match(line)
        if not m:
            continue
        deps = cells[col] if col < len(cells) else ""
        names = set(re.findall(r"[a-z_]+", deps)) - {"libc", "nothing", "only"}
        table[m.group(1)] = names
    return table


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(repo, "docs", "ARCHITECTURE.md"), encoding="utf-8") as f:
        table = allowed_table(f.read())
    if not table:
        print("check_layers: no module table with a 'may include' column in docs/ARCHITECTURE.md")
        return 1
    src = os.path.join(repo, "src")
    bad = []
    for module in sorted(os.listdir(src)):
        if not os.path.isdir(os.path.join(src, module)):
            continue
        if module not in table:
            bad.append(f"src/{module}/: not in the module table of docs/ARCHITECTURE.md")
            continue
        for root, _, files in os.walk(os.path.join(src, module)):
            for name in files:
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    for dep in INCLUDE.findall(f.read()):
                        if dep != module and dep not in table[module]:
                            bad.append(f"{os.path.relpath(path, repo)}: includes {dep}/, "
                                       f"which src/{module}/ may not use")
    for line in bad:
        print(line)
    n_files = sum(len(fs) for _, _, fs in os.walk(src))
    print(f"check_layers: {len(table)} modules, {n_files} files, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
