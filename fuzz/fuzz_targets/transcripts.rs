//! Transcript readers on arbitrary bytes: format detection, then each reader forced (Claude
//! Code JSONL, Codex JSONL, mini-swe-agent, alisio), then the governor's report over every
//! session read. No panic, no hang.
#![no_main]

use alisio_ls::config::{GovernorMode, Settings};
use alisio_ls::governor::readers::{Format, read};
use alisio_ls::governor::{GovSettings, Ledger, Request, govern};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut settings = GovSettings::from_config(&Settings::default());
    settings.mode = GovernorMode::On;
    for format in [None, Some(Format::ClaudeCode), Some(Format::Codex), Some(Format::MiniSweAgent), Some(Format::Alisio)] {
        let Ok((_, sessions)) = read(data, format, "fuzz.jsonl") else { continue };
        for s in &sessions {
            let assistants = s.history.iter().filter(|m| m.is_assistant()).count() as u64;
            let g = govern(
                &settings,
                Request { session_id: &s.source.session, history: &s.history, parts: &s.parts, sources: &s.sources, request: Some(assistants + 1), ledger: Ledger::All },
            );
            let _ = serde_json::to_string(&g.report);
        }
    }
});
