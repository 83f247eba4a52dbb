#!/usr/bin/env python3
"""Generates the benchmark workspace: >= 20,000 files, 500 skills, nested AGENTS.md files.
Usage: gen.py DIR"""
import os
import sys

root = sys.argv[1]
os.makedirs(os.path.join(root, ".git"), exist_ok=True)
n = 0
def write(path, text):
    global n
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    n += 1

write(os.path.join(root, "AGENTS.md"), "# Root\n" + "Use the monorepo conventions.\n" * 400)
for s in range(500):
    d = os.path.join(root, "skills-root", ".agents", "skills", f"skill-{s}")
    write(os.path.join(d, "SKILL.md"), f"---\nname: skill-{s}\ndescription: Skill number {s}. Use it when task {s} comes up.\n---\n# Skill {s}\n\nSee [ref](reference.md).\n" + "Step.\n" * 40)
    write(os.path.join(d, "reference.md"), "reference\n" * 20)
for pkg in range(100):
    base = os.path.join(root, "packages", f"pkg-{pkg}")
    write(os.path.join(base, "AGENTS.md"), f"# Package {pkg}\n" + "Run the package tests.\n" * 50)
    for sub in range(10):
        sd = os.path.join(base, "src", f"mod{sub}")
        if sub % 3 == 0:
            write(os.path.join(sd, "AGENTS.md"), f"# Module {sub}\n" + "Module rule.\n" * 30)
        for i in range(19):
            write(os.path.join(sd, f"file{i}.ts"), f"export const x{i} = {i};\n")
print(f"{n} files", file=sys.stderr)
