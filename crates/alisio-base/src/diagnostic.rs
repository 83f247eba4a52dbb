//! Diagnostics as plain data: the stable [`Code`]s of spec/interfaces.md §2, severities, and a
//! [`Diagnostic`] located by [`Span`] in one file. Formatting for terminals lives in `cli`,
//! conversion to LSP in `lsp`; this module does neither.

use std::path::PathBuf;

use crate::text::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Information => "information",
            Self::Hint => "hint",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $s:literal),* $(,)?) => {
        /// A stable diagnostic code. The kebab-case string never changes meaning.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant),* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $s),* }
            }

            #[must_use]
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(Code::$variant),)* _ => None }
            }
        }
    };
}

codes! {
    SkillFrontmatterMissing => "skill-frontmatter-missing",
    SkillFrontmatterUnterminated => "skill-frontmatter-unterminated",
    SkillYamlSyntax => "skill-yaml-syntax",
    SkillDuplicateKey => "skill-duplicate-key",
    SkillNameMissing => "skill-name-missing",
    SkillNameFormat => "skill-name-format",
    SkillNameTooLong => "skill-name-too-long",
    SkillNameDirectoryMismatch => "skill-name-directory-mismatch",
    SkillDescriptionMissing => "skill-description-missing",
    SkillDescriptionTooLong => "skill-description-too-long",
    SkillUnknownKey => "skill-unknown-key",
    SkillFieldType => "skill-field-type",
    SkillCompatibilityTooLong => "skill-compatibility-too-long",
    SkillFileTooLarge => "skill-file-too-large",
    SkillBodyTooLong => "skill-body-too-long",
    SkillShadowed => "skill-shadowed",
    SkillSymlink => "skill-symlink",
    SkillResourceMissing => "skill-resource-missing",
    SkillReferenceDepth => "skill-reference-depth",
    SkillScanLimit => "skill-scan-limit",
    SkillUntrusted => "skill-untrusted",
    SkillNotDiscovered => "skill-not-discovered",
    SkillToolUnknown => "skill-tool-unknown",
    SkillValueInvalid => "skill-value-invalid",
    SkillAgentWithoutFork => "skill-agent-without-fork",
    SkillDescriptionShortened => "skill-description-shortened",
    SkillDescriptionDropped => "skill-description-dropped",
    SkillCollision => "skill-collision",
    SkillDescriptionNoWhen => "skill-description-no-when",
    SkillDescriptionPerson => "skill-description-person",
    SkillDescriptionGeneric => "skill-description-generic",
    SkillDescriptionRestatesName => "skill-description-restates-name",
    SkillArgumentsInCode => "skill-arguments-in-code",
    SkillUploadRejected => "skill-upload-rejected",
    SkillShellUnrestricted => "skill-shell-unrestricted",
    SkillSideEffectInvocable => "skill-side-effect-invocable",
    SkillSecret => "skill-secret",
    SkillCompatibilityEmpty => "skill-compatibility-empty",
    SkillUploadTooLarge => "skill-upload-too-large",
    SkillCommandNotRun => "skill-command-not-run",
    SkillHookEventUnknown => "skill-hook-event-unknown",
    SkillAgentUnknown => "skill-agent-unknown",
    InstructionsTruncated => "instructions-truncated",
    InstructionsDropped => "instructions-dropped",
    InstructionsHiddenByOverride => "instructions-hidden-by-override",
    InstructionsLegacyName => "instructions-legacy-name",
    InstructionsUnreadName => "instructions-unread-name",
    InstructionsClaudeIgnored => "instructions-claude-ignored",
    InstructionsSymlink => "instructions-symlink",
    InstructionsFileCut => "instructions-file-cut",
    InstructionsInvalidUtf8 => "instructions-invalid-utf8",
    InstructionsEmpty => "instructions-empty",
    InstructionsHidden => "instructions-hidden",
    InstructionsApplyToList => "instructions-apply-to-list",
    InstructionsGlobUnmatched => "instructions-glob-unmatched",
    InstructionsOutsideLocation => "instructions-outside-location",
    InstructionsRuleManualOnly => "instructions-rule-manual-only",
    InstructionsRuleIgnored => "instructions-rule-ignored",
    InstructionsImportFailed => "instructions-import-failed",
    InstructionsNameCase => "instructions-name-case",
    InstructionsFenceUnclosed => "instructions-fence-unclosed",
    InstructionsTooLong => "instructions-too-long",
    InstructionsImportUnresolved => "instructions-import-unresolved",
    InstructionsImportNotExpanded => "instructions-import-not-expanded",
    InstructionsImportLink => "instructions-import-link",
    InstructionsPointerEmpty => "instructions-pointer-empty",
    AuditNotPredicted => "audit-not-predicted",
    AuditNotReceived => "audit-not-received",
    AuditImportNotExpanded => "audit-import-not-expanded",
    AuditReferenceUnread => "audit-reference-unread",
    // The family files of spec/instructions.md §10 (agents, commands, MCP servers).
    AgentFrontmatterMissing => "agent-frontmatter-missing",
    AgentFieldMissing => "agent-field-missing",
    AgentShadowed => "agent-shadowed",
    CommandShadowed => "command-shadowed",
    McpConfigInvalid => "mcp-config-invalid",
    McpServerInvalid => "mcp-server-invalid",
    // Copilot in VS Code's agents and prompt files (spec/instructions.md §10.9).
    CopilotHeaderInvalid => "copilot-header-invalid",
    CopilotAttributeUnknown => "copilot-attribute-unknown",
    CopilotAttributeIgnored => "copilot-attribute-ignored",
    CopilotAttributeInvalid => "copilot-attribute-invalid",
    CopilotAttributeDeprecated => "copilot-attribute-deprecated",
    CopilotChatmodeRenamed => "copilot-chatmode-renamed",
    McpServerKeyUnknown => "mcp-server-key-unknown",
    CommandTomlInvalid => "command-toml-invalid",
    InstructionsLinkBroken => "instructions-link-broken",
    InstructionsXmlUnbalanced => "instructions-xml-unbalanced",
    InstructionsKeyIgnored => "instructions-key-ignored",
    InstructionsValueInvalid => "instructions-value-invalid",
    InstructionsFrontmatterInert => "instructions-frontmatter-inert",
    InstructionsSecret => "instructions-secret",
    InstructionsLocalNotIgnored => "instructions-local-not-ignored",
    InstructionsAlwaysLoadedLong => "instructions-always-loaded-long",
    InstructionsCommandsConflict => "instructions-commands-conflict",
    InstructionsImportTooDeep => "instructions-import-too-deep",
    ConfigInvalid => "config-invalid",
    SuppressionUnused => "suppression-unused",
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary location (LSP `relatedInformation`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub file: PathBuf,
    pub span: Span,
    pub message: String,
}

/// One finding in one file. `file` is absolute; output layers relativise it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: PathBuf,
    pub span: Span,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub related: Vec<Related>,
}

impl Diagnostic {
    #[must_use]
    pub fn new(
        file: impl Into<PathBuf>,
        span: Span,
        severity: Severity,
        code: Code,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: file.into(),
            span,
            severity,
            code,
            message: message.into(),
            related: vec![],
        }
    }

    #[must_use]
    pub fn with_related(mut self, related: Related) -> Self {
        self.related.push(related);
        self
    }
}

/// Sorts diagnostics by file, then position, then code (spec/interfaces.md §1.3).
pub fn sort(diags: &mut [Diagnostic]) {
    fn key(d: &Diagnostic) -> (&PathBuf, u32, u32, u32, u32, Code) {
        let (s, e) = (&d.span.start, &d.span.end);
        (&d.file, s.line, s.utf16, e.line, e.utf16, d.code)
    }
    diags.sort_by(|a, b| key(a).cmp(&key(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_string() {
        for &c in Code::ALL {
            assert_eq!(Code::parse(c.as_str()), Some(c));
        }
        assert_eq!(Code::ALL.len(), 96);
    }
}
