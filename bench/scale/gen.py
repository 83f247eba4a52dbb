#!/usr/bin/env python3
"""Generates the scale tree of issue 14: 15,000 skills in 500 repositories with 1,500
instruction files (three per repository: AGENTS.md, CLAUDE.md, a nested AGENTS.md), plus a few
source files per repository, about 19,500 directories (below the 20,000-directory bound of the
workspace walk, instructions.md §5.1). Each repository has a `.git` marker below one workspace root, like
a mirror of many repositories checked out side by side.

Per repository: 12 skills in `.claude/skills`, 12 in `.agents/skills`, 6 in `skills/` (plugin
style, found only by the workspace walk). One skill in ten has a defect (bad name, missing
description, unknown key); one `.agents` skill per repository shares its name with a `.claude`
one (shadowing); one `.agents` skill per repository carries nested `metadata` values.

Usage: gen.py DIR [REPOS] [SKILLS_PER_REPO]   (defaults 500 and 30). Prints the counts to stderr.
"""
import os
import sys

root = sys.argv[1]
repos = int(sys.argv[2]) if len(sys.argv) > 2 else 500
per = int(sys.argv[3]) if len(sys.argv) > 3 else 30
os.makedirs(os.path.join(root, ".git"), exist_ok=True)
body = "\n".join(
    f"## Step {i}\n\nRun `tool --flag {i}` and compare the output with [the guide](guide.md).\n"
    for i in range(25)
)
counts = {"skills": 0, "instructions": 0, "files": 0}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    counts["files"] += 1


def skill(d, name, i, nested_meta=False):
    kind = i % 10
    fm = [f"name: {name if kind != 7 else 'Bad--' + name}"]
    if kind != 8:
        fm.append(f"description: Handles task {i} end to end. Use when the user asks for task {i} or mentions its files.")
    fm.append("license: MIT")
    if kind == 9:
        fm.append("source: generated")
    if nested_meta:
        fm.append("metadata:\n  author: bench\n  tags:\n    - scale\n    - bench")
    else:
        fm.append("metadata:\n  author: bench\n  version: \"1.0\"")
    write(os.path.join(d, "SKILL.md"), "---\n" + "\n".join(fm) + "\n---\n\n# " + name + "\n\n" + body)
    write(os.path.join(d, "guide.md"), "# Guide\n\nDetails.\n")
    counts["skills"] += 1


n = 0
for r in range(repos):
    repo = os.path.join(root, "repos", f"owner{r:03d}@repo{r:03d}")
    os.makedirs(os.path.join(repo, ".git"), exist_ok=True)
    write(os.path.join(repo, "AGENTS.md"), f"# Repository {r}\n\n" + "Run the tests before committing.\n" * 60)
    write(os.path.join(repo, "CLAUDE.md"), f"# Claude notes {r}\n\n@AGENTS.md\n\n" + "Prefer small commits.\n" * 20)
    write(os.path.join(repo, "packages", "core", "AGENTS.md"), "# Core\n\n" + "Core rule.\n" * 30)
    counts["instructions"] += 3
    for i in range(5):
        write(os.path.join(repo, "packages", "core", f"f{i}.ts"), f"export const x{i} = {i};\n")
    write(os.path.join(repo, "README.md"), f"# repo {r}\n")
    for k in range(per):
        where = ".claude/skills" if k < per * 2 // 5 else ".agents/skills" if k < per * 4 // 5 else "skills"
        name = f"r{r:03d}-s{k:02d}"
        if where == ".agents/skills" and k == per * 2 // 5:
            name = f"r{r:03d}-s00"  # the same name as the first .claude skill: shadowing
        skill(os.path.join(repo, *where.split("/"), name), name, n, nested_meta=(k == per * 2 // 5 + 1))
        n += 1
print(f"{counts['skills']} skills, {counts['instructions']} instruction files, {counts['files']} files in {repos} repositories", file=sys.stderr)
