//! An incremental Server-Sent Events parser (the WHATWG subset of spec/sessions.md §5.2): `event:`
//! and `data:` fields, multi-line data joined with `\n`, dispatch on a blank line, comments,
//! LF, CRLF or lone CR line ends, input split at any byte.
//!
//! Linear in the input however it is split: an unfinished line is scanned once (the scan
//! resumes where the previous chunk ended) and consumed lines are dropped once per chunk.

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Feed bytes, take events.
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    /// Bytes of `buffer` before this index hold no line end (scan resumes here).
    scanned: usize,
    event: String,
    data: String,
    has_data: bool,
    /// The last byte seen was a `\r` ending a line: skip a `\n` that follows.
    skip_lf: bool,
}

impl SseParser {
    /// Adds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut start = 0;
        loop {
            // The `\n` of a `\r\n` split across two pushes.
            if self.skip_lf {
                let Some(&b) = self.buffer.get(start) else {
                    break;
                };
                if b == b'\n' {
                    start += 1;
                }
                self.skip_lf = false;
            }
            let from = self.scanned.max(start);
            let Some(rel) = self.buffer[from..]
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
            else {
                self.scanned = self.buffer.len();
                break;
            };
            let nl = from + rel;
            // A `\r` ends the line at once (a server using bare CRs must not wait for the next
            // chunk to have its last event dispatched); a `\n` right after it is skipped, now or
            // at the next push.
            let skip = match (self.buffer[nl], self.buffer.get(nl + 1)) {
                (b'\r', Some(b'\n')) => 2,
                (b'\r', None) => {
                    self.skip_lf = true;
                    1
                }
                _ => 1,
            };
            let line = String::from_utf8_lossy(&self.buffer[start..nl]).into_owned();
            start = nl + skip;
            self.line(&line, &mut out);
        }
        self.buffer.drain(..start);
        self.scanned -= start.min(self.scanned);
        out
    }

    /// Bytes held for an unfinished line.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.buffer.len()
    }

    /// Bytes held for the event in progress: its unfinished line, data and name so far.
    #[must_use]
    pub fn held(&self) -> usize {
        self.buffer.len() + self.data.len() + self.event.len()
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.data.clear();
            self.has_data = false;
            self.event.clear();
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &[u8] = b"event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: comment\n\ndata: [DONE]\n\nid: 7\rdata:x\r\r\n";

    fn expected() -> Vec<SseEvent> {
        vec![
            SseEvent {
                event: "a".into(),
                data: "{\"x\":\n1}".into(),
            },
            SseEvent {
                event: String::new(),
                data: "[DONE]".into(),
            },
            SseEvent {
                event: String::new(),
                data: "x".into(),
            },
        ]
    }

    #[test]
    fn events_survive_splits_at_every_byte_and_crlf() {
        for cut in 0..SRC.len() {
            let mut p = SseParser::default();
            let mut ev = p.push(&SRC[..cut]);
            ev.extend(p.push(&SRC[cut..]));
            assert_eq!(ev, expected(), "cut {cut}");
            assert_eq!(p.pending(), 0);
        }
    }

    #[test]
    fn one_byte_at_a_time_gives_the_same_events() {
        let mut p = SseParser::default();
        let ev: Vec<SseEvent> = SRC
            .iter()
            .flat_map(|b| p.push(std::slice::from_ref(b)))
            .collect();
        assert_eq!(ev, expected());
    }

    #[test]
    fn an_unfinished_line_is_held_and_a_cr_ends_a_line_at_once() {
        let mut p = SseParser::default();
        assert!(p.push(b"data: abc").is_empty());
        assert_eq!(p.pending(), 9);
        assert!(p.push(b"\r").is_empty());
        assert_eq!(p.pending(), 0);
        // The LF of a CRLF split across pushes is not a second (blank) line.
        assert!(p.push(b"\n").is_empty());
        // A bare CR as the blank line dispatches now, without waiting for more input.
        assert_eq!(
            p.push(b"\r"),
            vec![SseEvent {
                event: String::new(),
                data: "abc".into()
            }]
        );
        assert_eq!(
            p.push(b"data: x\r\r"),
            vec![SseEvent {
                event: String::new(),
                data: "x".into()
            }]
        );
        assert_eq!(p.held(), 0);
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily_and_empty_data_still_dispatches() {
        let mut p = SseParser::default();
        assert_eq!(
            p.push(b"data: \xff\n\ndata\n\nevent: e\n\n"),
            vec![
                SseEvent {
                    event: String::new(),
                    data: "\u{fffd}".into()
                },
                SseEvent {
                    event: String::new(),
                    data: String::new()
                }
            ]
        );
    }
}
