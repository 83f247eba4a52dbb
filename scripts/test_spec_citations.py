#!/usr/bin/env python3
"""Tests of scripts/spec-citations.py on a small tree: `python3 scripts/test_spec_citations.py`."""

import importlib.util
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("spec_citations", HERE / "spec-citations.py")
sc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sc)

SKILLS = "# Skills\n## 1. Discovery\n### 1.1 Roots\n## 2. Parsing\n### 2.5 Fields\n### 2.6 Unicode\n"
SESSIONS = "# Sessions\n## 3. Tools\n### 3.4 Files\n## 11. Checklist\n"


class SpecCitations(unittest.TestCase):
    def tree(self, files):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        root = Path(d.name)
        (root / "docs/spec").mkdir(parents=True)
        (root / "docs/spec/skills.md").write_text(SKILLS)
        (root / "docs/spec/sessions.md").write_text(SESSIONS)
        for rel, text in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        return root

    def test_rewrites_by_module_doc_paragraph_and_parent(self):
        root = self.tree(
            {
                "server/src/lib.rs": "//! The crate.\n",
                "server/src/skills/mod.rs": "//! Skills (skills.md).\n",
                "server/src/skills/a.rs": (
                    "//! Fields (§2.5) and sessions.md §3.4, then §11 case 3.\n"
                    "\n"
                    "/// See §1.1 and §2.5–§2.6, issue 12 §6, docs/security.md §5 then §5b.\n"
                    "const S: &str = \"§2.5\"; // §2.6\n"
                    "/// interfaces §9 is not a spec here; sessions §3.4 is.\n"
                ),
                "server/src/skills/b.rs": "//! No spec named.\n/// §2.6 and §7.\n",
            }
        )
        res = sc.run(root, write=True)
        a = (root / "server/src/skills/a.rs").read_text()
        self.assertEqual(
            a,
            "//! Fields (spec/skills.md §2.5) and spec/sessions.md §3.4, then spec/sessions.md §11 case 3.\n"
            "\n"
            "/// See spec/skills.md §1.1 and §2.5–§2.6, issue 12 §6, docs/security.md §5 then §5b.\n"
            "const S: &str = \"§2.5\"; // spec/skills.md §2.6\n"
            "/// interfaces §9 is not a spec here; spec/sessions.md §3.4 is.\n",
        )
        # b.rs: no spec in its doc, the parent module's (skills) applies; §7 exists nowhere.
        b = (root / "server/src/skills/b.rs").read_text()
        self.assertEqual(b, "//! No spec named.\n/// spec/skills.md §2.6 and §7.\n")
        self.assertEqual(res.unresolved, ["server/src/skills/b.rs:2: §7"])
        self.assertEqual(sc.verify(root), [])

    def test_markdown_prefix_self_references_code_and_spec_untouched(self):
        root = self.tree(
            {
                "docs/skills.md": "# Skills\n\nSee skills.md §2.5 and §2.6; `§1.1` in code.\n```\n§1.1\n```\n",
                "README.md": "# R\n\nThe skills (skills.md §1.1).\n",
                "docs/security.md": "# Security\n## 5. Providers\n\nAs in §5, and sessions.md §3.4.\n",
            }
        )
        sc.run(root, write=True)
        self.assertEqual(
            (root / "docs/skills.md").read_text(),
            "# Skills\n\nSee spec/skills.md §2.5 and §2.6; `§1.1` in code.\n```\n§1.1\n```\n",
        )
        self.assertEqual(
            (root / "README.md").read_text(), "# R\n\nThe skills (docs/spec/skills.md §1.1).\n"
        )
        self.assertEqual(
            (root / "docs/security.md").read_text(),
            "# Security\n## 5. Providers\n\nAs in §5, and spec/sessions.md §3.4.\n",
        )
        self.assertEqual((root / "docs/spec/skills.md").read_text(), SKILLS)

    def test_verify_finds_a_dangling_citation(self):
        root = self.tree({"x.rs": "// skills.md §9 and spec/sessions.md §3.4\n"})
        self.assertEqual(sc.verify(root), ["x.rs:1: skills.md §9"])

    def test_dry_run_changes_nothing(self):
        root = self.tree({"x.rs": "//! skills.md\n// §2.5\n"})
        res = sc.run(root, write=False)
        self.assertEqual(sum(res.changed.values()), 1)
        self.assertEqual((root / "x.rs").read_text(), "//! skills.md\n// §2.5\n")


if __name__ == "__main__":
    unittest.main()
