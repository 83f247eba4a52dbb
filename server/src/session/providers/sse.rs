//! An incremental Server-Sent Events parser (the WHATWG subset of sessions.md §5.2): `event:`
//! and `data:` fields, multi-line data joined with `\n`, dispatch on a blank line, comments,
//! LF or CRLF line ends, input split at any byte.

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Feed bytes, take events.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: String,
    data: Vec<String>,
    has_data: bool,
}

impl SseParser {
    /// Adds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(nl) = self.buf.iter().position(|&b| b == b'\n' || b == b'\r') {
            // A lone `\r` at the end may be the first half of `\r\n`: wait for more.
            if self.buf[nl] == b'\r' && nl + 1 == self.buf.len() {
                break;
            }
            let line: Vec<u8> = self.buf[..nl].to_vec();
            let skip = if self.buf[nl] == b'\r' && self.buf.get(nl + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            self.buf.drain(..nl + skip);
            let line = String::from_utf8_lossy(&line).into_owned();
            if line.is_empty() {
                if self.has_data {
                    out.push(SseEvent {
                        event: std::mem::take(&mut self.event),
                        data: self.data.join("\n"),
                    });
                }
                self.data.clear();
                self.has_data = false;
                self.event.clear();
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.find(':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(' ').unwrap_or(v))
                }
                None => (line.as_str(), ""),
            };
            match field {
                "event" => self.event = value.to_string(),
                "data" => {
                    self.data.push(value.to_string());
                    self.has_data = true;
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_survive_splits_at_every_byte_and_crlf() {
        let src = b"event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: comment\n\ndata: [DONE]\n\n";
        for cut in 0..src.len() {
            let mut p = SseParser::default();
            let mut ev = p.push(&src[..cut]);
            ev.extend(p.push(&src[cut..]));
            assert_eq!(
                ev,
                vec![
                    SseEvent {
                        event: "a".into(),
                        data: "{\"x\":\n1}".into()
                    },
                    SseEvent {
                        event: String::new(),
                        data: "[DONE]".into()
                    }
                ],
                "cut {cut}"
            );
        }
    }
}
