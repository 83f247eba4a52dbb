#!/usr/bin/env python3
"""Rewrite spec citations as `spec/<file>.md §N` (issue 12 §6).

A citation names a section of one of the documents in docs/spec/. Three forms are rewritten:

  §2.5                  bare: the spec is inferred (see below)
  skills.md §2.5        a spec file without its folder
  (already spec/skills.md §2.5 or docs/spec/skills.md §2.5: left alone)

Which spec a bare `§N` cites, in order:
  1. the spec file last named earlier in the same comment paragraph (Markdown: paragraph), so
     "skills.md §2.5 and §2.6" gives spec/skills.md §2.6;
  2. a citation of another document in that paragraph (`docs/security.md §5b`,
     `research/alisio.md §2`) makes the bare ones after it belong to that document: left alone;
  3. the file's own module doc (the leading `//!` block of a .rs file, the leading comment of
     other sources, the text before the first heading's body of a Markdown file): the first spec
     file it names;
  4. for a .rs file, the module doc of its parent modules (mod.rs up to lib.rs);
  5. otherwise the citation is left as it is and listed as unresolved.

Only comments are rewritten in source files (`//`, `///`, `//!`, `#`, `--`, `/* */` lines);
string literals, which may be asserted output, are never touched. Markdown is rewritten outside
code fences and inline code. docs/spec/ itself is never rewritten (its bare §N cite itself).

Usage:
  scripts/spec-citations.py [--root DIR]            dry run: what would change, and unresolved
  scripts/spec-citations.py --write [--root DIR]    rewrite the files in place
  scripts/spec-citations.py --verify [--root DIR]   every spec citation names an existing section
Exit status: 0 when nothing is left to do (dry run) or all is well (--verify); 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

SOURCE_EXT = {".rs", ".ts", ".mjs", ".js", ".lua", ".py", ".sh", ".toml"}
MARKDOWN_EXT = {".md"}
SKIP_DIRS = {"target", "node_modules", ".git", "out", "dist", ".vscode-test"}
# This script and its tests describe citations; they are not rewritten.
OWN_FILES = {"spec-citations.py", "test_spec_citations.py"}

# `name.md §N` with an optional folder before it; or a bare `§N`.
CITE = re.compile(
    r"(?P<path>(?:[\w.\-]+/)*)(?P<stem>[\w\-]+)\.md §(?P<num>\d+(?:\.\d+)*)"
    r"|\b(?P<word>governor|instructions|interfaces|sessions|skills) §(?P<wnum>\d+(?:\.\d+)*)"
    r"|(?P<bare>§)(?P<bnum>\d+(?:\.\d+)*)"
)
# What may stand between a citation and a bare §N that continues it ("§2.5–§2.8", "§3, §4").
CONTINUES = re.compile(r"\s*(?:–|-|,|and|or|&|/)\s*")
# A document named without a section (module docs: "(skills.md)", "see sessions.md").
NAMED = re.compile(r"(?P<path>(?:[\w.\-]+/)*)(?P<stem>[\w\-]+)\.md\b")


def spec_sections(root: Path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for p in sorted((root / "docs" / "spec").glob("*.md")):
        secs = set()
        for line in p.read_text(encoding="utf-8").splitlines():
            m = re.match(r"#+ +(\d+(?:\.\d+)*)\.?(?: |$)", line)
            if m:
                secs.add(m.group(1))
        out[p.stem] = secs
    return out


def comment_text(line: str, ext: str) -> tuple[int, int] | None:
    """The (start, end) of the comment part of a source line, or None."""
    stripped = line.lstrip()
    lead = len(line) - len(stripped)
    if ext in {".rs", ".ts", ".mjs", ".js"}:
        if stripped.startswith("//"):
            return (lead, len(line))
        if ext != ".rs" and (stripped.startswith("*") or stripped.startswith("/*")):
            return (lead, len(line))
        # A trailing `// comment` after code, outside a string (no quote after it).
        i = line.find(" // ")
        if i >= 0 and line[:i].count('"') % 2 == 0:
            return (i, len(line))
        return None
    if ext in {".py", ".sh", ".toml"}:
        if stripped.startswith("#"):
            return (lead, len(line))
        return None
    if ext == ".lua":
        if stripped.startswith("--"):
            return (lead, len(line))
        return None
    return None


def module_doc(text: str, ext: str) -> str:
    lines = text.splitlines()
    out = []
    if ext in MARKDOWN_EXT:
        for line in lines[:40]:
            if out and line.startswith("## "):
                break
            out.append(line)
        return "\n".join(out)
    for line in lines:
        s = line.strip()
        if ext == ".rs":
            if s.startswith("//!") or s.startswith("#![") or not s:
                out.append(s)
                continue
            break
        if comment_text(line, ext) is not None or not s or s.startswith("#!"):
            out.append(s)
            continue
        break
    return "\n".join(out)


def first_spec(doc: str, specs: dict[str, set[str]]) -> str | None:
    for m in NAMED.finditer(doc):
        path = m.group("path")
        if m.group("stem") in specs and (not path or path.endswith("spec/")):
            return m.group("stem")
    return None


def parents_default(path: Path, root: Path, specs, cache) -> str | None:
    """The spec named by the module docs of a .rs file's parent modules."""
    src = None
    for parent in path.parents:
        if (parent / "lib.rs").exists() or (parent / "main.rs").exists():
            src = parent
            break
    if src is None:
        return None
    d = path.parent
    candidates = []
    if path.name == "mod.rs":
        d = d.parent
    while True:
        for name in ("mod.rs",) if d != src else ("lib.rs", "main.rs"):
            candidates.append(d / name)
        # `a/b.rs` is declared by `a.rs` too (non-mod.rs layout).
        candidates.append(d.with_suffix(".rs"))
        if d == src or src not in d.parents:
            break
        d = d.parent
    for c in candidates:
        if c == path or not c.exists():
            continue
        if c not in cache:
            cache[c] = first_spec(module_doc(c.read_text(encoding="utf-8"), ".rs"), specs)
        if cache[c]:
            return cache[c]
    return None


# A Markdown file with numbered headings of its own: its bare §N cite itself.
SELF = "\0self"


class Result:
    def __init__(self) -> None:
        self.changed: dict[Path, int] = {}
        self.unresolved: list[str] = []
        self.dangling: list[str] = []


def rewrite_segment(
    seg: str, ctx: list, specs, default, where, res: Result, prefix: str = "spec/"
) -> str:
    """Rewrites the citations of one comment/prose segment; ctx[0] carries the paragraph's
    current document (a spec stem, '' for another document, None for none yet)."""
    out = []
    last = 0
    prev_end = -1  # end of the last spec citation written, for "§2.5–§2.8"
    cites = list(CITE.finditer(seg))
    # A document named without a section ("see skills.md") sets the context too.
    mentions = [
        m for m in NAMED.finditer(seg) if not any(c.start() <= m.start() < c.end() for c in cites)
    ]
    for m in sorted(cites + mentions, key=lambda m: m.start()):
        if m.re is NAMED:
            path, stem = m.group("path"), m.group("stem")
            ctx[0] = stem if stem in specs and (not path or path.endswith("spec/")) else ""
            continue
        out.append(seg[last : m.start()])
        last = m.end()
        if m.group("word"):
            stem, num = m.group("word"), m.group("wnum")
            if stem in specs and num in specs[stem]:
                ctx[0] = stem
                out.append(f"{prefix}{stem}.md §{num}")
                prev_end = m.end()
            else:
                out.append(m.group(0))
                prev_end = -1
            continue
        if m.group("bare"):
            num = m.group("bnum")
            cur = ctx[0]
            if cur == "" or re.search(r"\bissues? \d+ $", seg[: m.start()]):
                # Another document's section, or an issue's ("issue 12 §6").
                out.append(m.group(0))
                continue
            if cur is None and default and default[0] == SELF:
                out.append(m.group(0))
                continue
            # The paragraph's spec, else the file's, else its parent modules': the first that
            # has this section.
            target = next(
                (t for t in (cur, *default) if t and t != SELF and num in specs.get(t, ())),
                None,
            )
            if target is None:
                res.unresolved.append(f"{where}: §{num}")
                out.append(m.group(0))
            elif target == cur and prev_end >= 0 and CONTINUES.fullmatch(seg[prev_end : m.start()]):
                # Continues the citation just written: "spec/x.md §2.5–§2.8".
                out.append(m.group(0))
                prev_end = m.end()
            else:
                out.append(f"{prefix}{target}.md §{num}")
                ctx[0] = target
                prev_end = m.end()
            continue
        path, stem, num = m.group("path"), m.group("stem"), m.group("num")
        if stem in specs and (not path or path.endswith("spec/")):
            ctx[0] = stem
            prev_end = m.end()
            if not path:
                out.append(f"{prefix}{stem}.md §{num}")
            else:
                out.append(m.group(0))
        else:
            prev_end = -1
            ctx[0] = ""
            out.append(m.group(0))
    out.append(seg[last:])
    return "".join(out)


def process_source(path: Path, text: str, ext: str, specs, default, rel, res) -> str:
    lines = text.split("\n")
    ctx: list = [None]
    for i, line in enumerate(lines):
        span = comment_text(line, ext)
        if span is None:
            ctx[0] = None
            continue
        s, e = span
        body = line[s:e]
        if line[:s].strip():
            # A comment after code is a paragraph of its own.
            ctx[0] = None
        # A blank comment line ends the paragraph.
        if not body.strip().lstrip("/!*#-").strip():
            ctx[0] = None
            continue
        new = rewrite_segment(body, ctx, specs, default, f"{rel}:{i + 1}", res)
        if new != body:
            lines[i] = line[:s] + new + line[e:]
            res.changed[path] = res.changed.get(path, 0) + 1
    return "\n".join(lines)


def process_markdown(path: Path, text: str, specs, default, rel, res, root: Path) -> str:
    lines = text.split("\n")
    if any(re.match(r"#+ +\d", line) for line in lines):
        default = [SELF]
    # Markdown links resolve relative to the file: docs/x.md cites spec/…, README.md docs/spec/….
    prefix = os.path.relpath(root / "docs" / "spec", path.parent).replace(os.sep, "/") + "/"
    ctx: list = [None]
    fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        if not line.strip() or line.startswith("#"):
            ctx[0] = None
            continue
        # Outside inline code only.
        parts = line.split("`")
        for k in range(0, len(parts), 2):
            parts[k] = rewrite_segment(
                parts[k], ctx, specs, default, f"{rel}:{i + 1}", res, prefix
            )
        new = "`".join(parts)
        if new != line:
            lines[i] = new
            res.changed[path] = res.changed.get(path, 0) + 1
    return "\n".join(lines)


def files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")
        )
        for f in sorted(filenames):
            p = Path(dirpath) / f
            if p.suffix in SOURCE_EXT | MARKDOWN_EXT and not p.is_symlink():
                yield p


def run(root: Path, write: bool) -> Result:
    specs = spec_sections(root)
    res = Result()
    cache: dict = {}
    spec_dir = (root / "docs" / "spec").resolve()
    for p in files(root):
        if spec_dir in p.resolve().parents or p.name in OWN_FILES:
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "§" not in text:
            continue
        ext = p.suffix
        rel = p.relative_to(root).as_posix()
        default = [first_spec(module_doc(text, ext), specs)]
        if ext == ".rs":
            default.append(parents_default(p, root, specs, cache))
        default = [d for d in default if d]
        if ext in MARKDOWN_EXT:
            new = process_markdown(p, text, specs, default, rel, res, root)
        else:
            new = process_source(p, text, ext, specs, default, rel, res)
        if new != text and write:
            p.write_text(new, encoding="utf-8")
    return res


def verify(root: Path) -> list[str]:
    specs = spec_sections(root)
    bad = []
    for p in files(root):
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for i, line in enumerate(text.split("\n")):
            for m in CITE.finditer(line):
                if m.group("bare") or m.group("word"):
                    continue
                path, stem, num = m.group("path"), m.group("stem"), m.group("num")
                if stem in specs and (not path or path.endswith("spec/")):
                    if num not in specs[stem]:
                        bad.append(f"{p.relative_to(root).as_posix()}:{i + 1}: {stem}.md §{num}")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="rewrite the files in place")
    g.add_argument("--verify", action="store_true", help="check every spec citation resolves")
    a = ap.parse_args()
    root = a.root.resolve()
    if not (root / "docs" / "spec").is_dir():
        print(f"error: {root}/docs/spec is not a directory", file=sys.stderr)
        return 2
    if a.verify:
        bad = verify(root)
        for b in bad:
            print(f"dangling: {b}")
        print(f"{len(bad)} dangling spec citations")
        return 1 if bad else 0
    res = run(root, a.write)
    lines = sum(res.changed.values())
    for p, n in sorted(res.changed.items()):
        print(f"{'rewrote' if a.write else 'would rewrite'} {n} line(s): {p.relative_to(root).as_posix()}")
    for u in res.unresolved:
        print(f"unresolved (no spec known for this file): {u}")
    print(f"{lines} line(s) in {len(res.changed)} file(s); {len(res.unresolved)} unresolved")
    if a.write:
        bad = verify(root)
        for b in bad:
            print(f"dangling after rewrite: {b}")
        return 1 if bad else 0
    return 1 if res.changed else 0


if __name__ == "__main__":
    sys.exit(main())
