//! Code lenses, hovers and headings (§6).
