//! Instruction files (AGENTS.md and friends): resolution per host, the budget, diagnostics.
