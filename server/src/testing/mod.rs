//! Helpers shared by the unit tests, and the tests of the crate's own structure (compiled only
//! under `cfg(test)`): a lexer of the crate's sources
//! (`source`), the architecture rules of ARCHITECTURE.md (`architecture`) and the spec
//! citations (`spec_citations`).

mod architecture;
mod naming;
mod source;
mod spec_citations;
