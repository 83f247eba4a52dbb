//! One problem found by a rule, before the profile's severities are applied (`finish`).

use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

/// A located problem: its code, range and message, the related places, and for
/// `skill-field-type` the key it concerns (whether it blocks loading depends on the key).
#[derive(Clone, Debug)]
pub(super) struct RuleProblem {
    pub code: Code,
    pub range: TextRange,
    pub message: String,
    pub related: Vec<(TextRange, String)>,
    pub key: Option<&'static str>,
}

impl RuleProblem {
    pub fn new(code: Code, range: TextRange, message: impl Into<String>) -> Self {
        Self {
            code,
            range,
            message: message.into(),
            related: Vec::new(),
            key: None,
        }
    }

    /// `skill-field-type` for `key`, at `range` (the value, or the offending part of it).
    pub fn field_type(key: &'static str, range: TextRange, message: impl Into<String>) -> Self {
        Self::new(Code::SkillFieldType, range, message).with_key(key)
    }

    #[must_use]
    pub fn with_key(mut self, key: &'static str) -> Self {
        self.key = Some(key);
        self
    }

    #[must_use]
    pub fn with_related(mut self, related: Vec<(TextRange, String)>) -> Self {
        self.related = related;
        self
    }
}
