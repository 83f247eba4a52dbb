//! The shell lexer (spec/governor.md §11.7): a POSIX subset, words with their quoting, operators,
//! redirections and heredocs, then the split into elements of pipelines of simple commands.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) dynamic: bool,
    /// Unquoted, unescaped (for `NAME=value`, `{`, keywords).
    pub(super) plain: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Word(Word),
    Op(&'static str),
    /// A redirection: operator (digit stripped), target word (None for fd duplication / heredoc).
    Redir {
        operator: &'static str,
        target: Option<Word>,
        duplicates: bool,
    },
    Heredoc {
        body: String,
    },
}

#[derive(Default)]
pub(super) struct Lexed {
    pub(super) tokens: Vec<Tok>,
    pub(super) opaque: bool,
}

pub(super) fn lex(src: &str) -> Lexed {
    let c: Vec<char> = src.chars().collect();
    let mut out = Lexed::default();
    let mut i = 0;
    // Heredocs whose bodies start after the current line: (token index, delimiter, strip tabs).
    let mut pending: Vec<(usize, String, bool)> = Vec::new();
    let at = |k: usize| c.get(k).copied();
    while i < c.len() {
        let ch = c[i];
        match ch {
            ' ' | '\t' | '\r' => i += 1,
            '\\' if at(i + 1) == Some('\n') => i += 2,
            '#' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '\n' => {
                i += 1;
                out.tokens.push(Tok::Op("\n"));
                for (idx, delim, strip) in std::mem::take(&mut pending) {
                    let mut body = String::new();
                    let mut found = false;
                    while i < c.len() {
                        let start = i;
                        while i < c.len() && c[i] != '\n' {
                            i += 1;
                        }
                        let mut line: String = c[start..i].iter().collect();
                        if i < c.len() {
                            i += 1;
                        }
                        if strip {
                            line = line.trim_start_matches('\t').to_owned();
                        }
                        if line == delim {
                            found = true;
                            break;
                        }
                        body.push_str(&line);
                        body.push('\n');
                    }
                    if !found {
                        out.opaque = true;
                    }
                    if let Some(Tok::Heredoc { body: b }) = out.tokens.get_mut(idx) {
                        *b = body;
                    }
                }
            }
            '(' | ')' => {
                out.opaque = true;
                i += 1;
            }
            '&' | '|' | ';' => {
                let two: String = c[i..(i + 2).min(c.len())].iter().collect();
                let op: &'static str = match two.as_str() {
                    "&&" => "&&",
                    "||" => "||",
                    "&>" => {
                        let append = at(i + 2) == Some('>');
                        i += if append { 3 } else { 2 };
                        let target = read_word(&c, &mut i, &mut out.opaque);
                        out.tokens.push(Tok::Redir {
                            operator: if append { "&>>" } else { "&>" },
                            target,
                            duplicates: false,
                        });
                        continue;
                    }
                    _ => match ch {
                        '&' => "&",
                        '|' => "|",
                        _ => ";",
                    },
                };
                i += op.len();
                if op == "&" {
                    out.opaque = true;
                }
                out.tokens.push(Tok::Op(op));
            }
            '<' | '>' => lex_redir(&c, &mut i, &mut out, &mut pending),
            d if d.is_ascii_digit()
                && matches!(at(i + 1), Some('<' | '>'))
                && word_boundary_before(&c, i) =>
            {
                i += 1;
                lex_redir(&c, &mut i, &mut out, &mut pending);
            }
            _ => {
                if let Some(w) = read_word(&c, &mut i, &mut out.opaque) {
                    out.tokens.push(Tok::Word(w));
                }
            }
        }
    }
    if !pending.is_empty() {
        out.opaque = true;
    }
    out
}

fn word_boundary_before(c: &[char], i: usize) -> bool {
    i == 0
        || c.get(i - 1)
            .is_some_and(|p| p.is_whitespace() || matches!(p, ';' | '&' | '|'))
}

fn lex_redir(c: &[char], i: &mut usize, out: &mut Lexed, pending: &mut Vec<(usize, String, bool)>) {
    let at = |k: usize| c.get(k).copied();
    let ch = c[*i];
    if ch == '<' && at(*i + 1) == Some('<') {
        if at(*i + 2) == Some('<') {
            *i += 3;
            let w = read_word(c, i, &mut out.opaque);
            out.tokens.push(Tok::Heredoc {
                body: w.map(|w| w.text + "\n").unwrap_or_default(),
            });
            return;
        }
        let strip = at(*i + 2) == Some('-');
        *i += if strip { 3 } else { 2 };
        match read_word(c, i, &mut out.opaque) {
            Some(w) => {
                pending.push((out.tokens.len(), w.text, strip));
                out.tokens.push(Tok::Heredoc {
                    body: String::new(),
                });
            }
            None => out.opaque = true,
        }
        return;
    }
    let (op, len): (&'static str, usize) = match (ch, at(*i + 1)) {
        ('>', Some('>')) => (">>", 2),
        ('>', Some('&')) | ('<', Some('&')) => {
            *i += 2;
            let w = read_word(c, i, &mut out.opaque);
            // `>&2`, `2>&-`: a duplication. `>&out.txt` is bash's `&>out.txt`: a file.
            let dup = w
                .as_ref()
                .is_some_and(|w| w.text == "-" || w.text.chars().all(|d| d.is_ascii_digit()));
            if !dup {
                out.tokens.push(Tok::Redir {
                    operator: if ch == '>' { "&>" } else { "<" },
                    target: w,
                    duplicates: false,
                });
                return;
            }
            out.tokens.push(Tok::Redir {
                operator: if ch == '>' { ">&" } else { "<&" },
                target: None,
                duplicates: true,
            });
            return;
        }
        ('>', Some('|')) => (">", 2),
        ('>', _) => (">", 1),
        _ => ("<", 1),
    };
    *i += len;
    let target = read_word(c, i, &mut out.opaque);
    if target.is_none() {
        out.opaque = true;
    }
    out.tokens.push(Tok::Redir {
        operator: op,
        target,
        duplicates: false,
    });
}

/// Reads one word at `i` (skipping leading blanks); `None` when none starts there.
fn read_word(c: &[char], i: &mut usize, opaque: &mut bool) -> Option<Word> {
    while *i < c.len() && matches!(c[*i], ' ' | '\t') {
        *i += 1;
    }
    let mut text = String::new();
    let mut dynamic = false;
    let mut plain = true;
    let start = *i;
    while *i < c.len() {
        let ch = c[*i];
        match ch {
            ' ' | '\t' | '\n' | '\r' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
            '\'' => {
                plain = false;
                *i += 1;
                match c[*i..].iter().position(|x| *x == '\'') {
                    Some(p) => {
                        text.extend(&c[*i..*i + p]);
                        *i += p + 1;
                    }
                    None => {
                        *opaque = true;
                        text.extend(&c[*i..]);
                        *i = c.len();
                    }
                }
            }
            '"' => {
                plain = false;
                *i += 1;
                let mut closed = false;
                while *i < c.len() {
                    let d = c[*i];
                    if d == '"' {
                        closed = true;
                        *i += 1;
                        break;
                    }
                    if d == '\\' && matches!(c.get(*i + 1), Some('"' | '\\' | '$' | '`' | '\n')) {
                        if c[*i + 1] != '\n' {
                            text.push(c[*i + 1]);
                        }
                        *i += 2;
                        continue;
                    }
                    if d == '$' || d == '`' {
                        dynamic = true;
                    }
                    text.push(d);
                    *i += 1;
                }
                if !closed {
                    *opaque = true;
                }
            }
            '\\' => {
                plain = false;
                if let Some(n) = c.get(*i + 1)
                    && *n != '\n'
                {
                    text.push(*n);
                }
                *i += 2;
            }
            _ => {
                if matches!(ch, '$' | '`' | '*' | '?' | '[' | '{') || (ch == '~' && *i == start) {
                    dynamic = true;
                }
                text.push(ch);
                *i += 1;
            }
        }
    }
    (*i > start).then_some(Word {
        text,
        dynamic,
        plain,
    })
}

#[derive(Clone, Debug, Default)]
pub(super) struct Simple {
    pub(super) words: Vec<Word>,
    pub(super) redirs: Vec<(&'static str, Option<Word>, bool)>,
    pub(super) stdin: Option<String>,
}

/// Splits tokens into elements of pipelines of simple commands.
pub(super) fn structure(toks: Vec<Tok>) -> Vec<Vec<Simple>> {
    let mut elements: Vec<Vec<Simple>> = Vec::new();
    let mut pipeline: Vec<Simple> = Vec::new();
    let mut cur = Simple::default();
    let flush_cmd = |cur: &mut Simple, pipeline: &mut Vec<Simple>| {
        let c = std::mem::take(cur);
        if !c.words.is_empty() || !c.redirs.is_empty() || c.stdin.is_some() {
            pipeline.push(c);
        }
    };
    for t in toks {
        match t {
            Tok::Word(w) => cur.words.push(w),
            Tok::Redir {
                operator,
                target,
                duplicates,
            } => cur.redirs.push((operator, target, duplicates)),
            Tok::Heredoc { body } => cur.stdin = Some(body),
            Tok::Op("|") => flush_cmd(&mut cur, &mut pipeline),
            Tok::Op(_) => {
                flush_cmd(&mut cur, &mut pipeline);
                if !pipeline.is_empty() {
                    elements.push(std::mem::take(&mut pipeline));
                }
            }
        }
    }
    flush_cmd(&mut cur, &mut pipeline);
    if !pipeline.is_empty() {
        elements.push(pipeline);
    }
    elements
}
