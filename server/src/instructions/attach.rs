//! Lazily attached nested files (§2.8 steps 2–3).
