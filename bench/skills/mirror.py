"""Generates a tree shaped like the public agent-skills mirrors from the real SKILL.md files of
the corpus (read at run time from ../shared/corpus/skills, never copied into the repository):
N skills in repositories of 25, `repos/<owner>@<repo>/skills/<name>/SKILL.md`, each the bytes of
one real SKILL.md (taken in turn, sorted by path) with its `name:` line set to its directory's
name so that the N skills are distinct. Everything else of the real file is kept: its size, its
frontmatter (unknown keys, long descriptions, odd YAML), its body and links. Issue 25 §4 asks for
"a 1,500-skill set shaped like real mirrors"; the generated set of bench/skills/generate.py is
uniform (one body, one frontmatter shape) and is kept beside it.
Usage: python3 bench/skills/mirror.py CORPUS_SKILLS OUT N"""
import os
import re
import sys

corpus, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sources = []
for d, _, files in os.walk(corpus):
    if "SKILL.md" in files:
        sources.append(os.path.join(d, "SKILL.md"))
sources.sort()
if not sources:
    sys.exit(f"mirror.py: no SKILL.md under {corpus}")
name_line = re.compile(rb"^name:.*$", re.M)
for i in range(n):
    src = sources[i % len(sources)]
    data = open(src, "rb").read()
    base = os.path.basename(os.path.dirname(src)).lower()
    base = re.sub(r"[^a-z0-9]+", "-", base).strip("-")[:40] or "skill"
    name = f"{base}-{i:04d}"
    if data.startswith(b"---") and name_line.search(data):
        data = name_line.sub(b"name: " + name.encode(), data, count=1)
    repo = f"owner{i // 25 % 7}@repo-{i // 25:03d}"
    d = os.path.join(out, "repos", repo, "skills", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "SKILL.md"), "wb") as f:
        f.write(data)
print(f"mirror.py: {n} skills from {len(sources)} real SKILL.md files in {out}")
