//! Agent Skills: discovery, parsing, validation, catalog and skill tools.
