"""Generates N skill directories with a realistic mix: valid skills, references, a few broken
ones (bad names, unknown keys, missing descriptions), bodies of a few kilobytes."""
import os
import sys

root, n = sys.argv[1], int(sys.argv[2])
body = "\n".join(f"## Step {i}\n\nRun `tool --flag {i}` and check the output against [the reference](references/guide.md).\n" for i in range(40))
for i in range(n):
    name = f"skill-{i:05d}"
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "references"), exist_ok=True)
    kind = i % 10
    fm = [f"name: {name if kind != 7 else 'Bad--' + name}"]
    if kind != 8:
        fm.append(f"description: Handles task {i} end to end. Use when the user asks for task {i} or mentions its files.")
    fm.append("license: MIT")
    if kind == 9:
        fm.append("source: generated")
    fm.append("metadata:\n  author: bench\n  version: \"1.0\"")
    with open(os.path.join(d, "SKILL.md"), "w") as f:
        f.write("---\n" + "\n".join(fm) + "\n---\n\n# " + name + "\n\n" + body)
    with open(os.path.join(d, "references", "guide.md"), "w") as f:
        f.write("# Guide\n")
