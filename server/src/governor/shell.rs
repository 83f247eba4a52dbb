//! The shell command classifier for foreign transcripts (governor.md §11.7): a POSIX-subset
//! lexer, then which paths a command writes, and whether it is one file read or one search.
//! Alisio's own `shell` and `run_process` are never classified.

/// A base directory (§11.3): known, empty or unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Known(String),
    Empty,
    Unknown,
}

impl Base {
    /// A stable text form for signatures.
    #[must_use]
    pub fn signature(&self) -> String {
        match self {
            Self::Known(b) => format!("K{b}"),
            Self::Empty => "E".into(),
            Self::Unknown => "U".into(),
        }
    }
}

/// Whether `p` is absolute (`/…`, or a drive letter followed by `:\` or `:/`).
#[must_use]
pub fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

/// The path key of `p` under `base` (§11.3); `None`: no key, matches nothing.
#[must_use]
pub fn key(base: &Base, p: &str) -> Option<String> {
    if p.is_empty() {
        return None;
    }
    if is_absolute(p) {
        return Some(p.to_owned());
    }
    match base {
        Base::Known(b) => Some(if b.ends_with('/') {
            format!("{b}{p}")
        } else {
            format!("{b}/{p}")
        }),
        Base::Empty => Some(p.to_owned()),
        Base::Unknown => None,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Word {
    text: String,
    dynamic: bool,
    /// Unquoted, unescaped (for `NAME=value`, `{`, keywords).
    plain: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(Word),
    Op(&'static str),
    /// A redirection: operator (digit stripped), target word (None for fd duplication / heredoc).
    Redir {
        op: &'static str,
        target: Option<Word>,
        dup: bool,
    },
    Heredoc {
        body: String,
    },
}

#[derive(Default)]
struct Lexed {
    toks: Vec<Tok>,
    opaque: bool,
}

fn lex(src: &str) -> Lexed {
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
                out.toks.push(Tok::Op("\n"));
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
                    if let Some(Tok::Heredoc { body: b }) = out.toks.get_mut(idx) {
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
                        out.toks.push(Tok::Redir {
                            op: if append { "&>>" } else { "&>" },
                            target,
                            dup: false,
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
                out.toks.push(Tok::Op(op));
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
                    out.toks.push(Tok::Word(w));
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
            out.toks.push(Tok::Heredoc {
                body: w.map(|w| w.text + "\n").unwrap_or_default(),
            });
            return;
        }
        let strip = at(*i + 2) == Some('-');
        *i += if strip { 3 } else { 2 };
        match read_word(c, i, &mut out.opaque) {
            Some(w) => {
                pending.push((out.toks.len(), w.text, strip));
                out.toks.push(Tok::Heredoc {
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
            let _ = read_word(c, i, &mut out.opaque);
            out.toks.push(Tok::Redir {
                op: if ch == '>' { ">&" } else { "<&" },
                target: None,
                dup: true,
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
    out.toks.push(Tok::Redir {
        op,
        target,
        dup: false,
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
struct Simple {
    words: Vec<Word>,
    redirs: Vec<(&'static str, Option<Word>, bool)>,
    stdin: Option<String>,
}

/// What the classifier found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A plain process.
    Process,
    /// A read of one file: `(key, path as written)`.
    Read { key: Option<String>, path: String },
    /// A search; `files` when every output line is a path.
    Search { files: bool },
}

/// The classification of one shell command (§11.7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shell {
    pub kind: Kind,
    /// Keyed written paths (an edit of each when the command succeeds).
    pub written: Vec<String>,
    /// Written paths as written (segment origin).
    pub written_raw: Vec<String>,
    /// The base in effect for the classified element (signature and usage keys).
    pub base: Base,
    /// The trimmed command text.
    pub text: String,
}

const READS: &[&str] = &["cat", "nl", "head", "tail", "sed", "awk"];
const OPAQUE_FIRST: &[&str] = &["if", "for", "while", "until", "case", "function"];

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

fn is_assignment(w: &Word) -> bool {
    let Some(eq) = w.text.find('=') else {
        return false;
    };
    let name = &w.text[..eq];
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Operands of a command after its options; value options take the next word (or are attached).
fn operands<'w>(args: &'w [Word], value_opts: &[&str]) -> (Vec<&'w Word>, Vec<String>) {
    let mut ops = Vec::new();
    let mut opts = Vec::new();
    let mut i = 0;
    let mut ended = false;
    while i < args.len() {
        let w = &args[i];
        if !ended && w.text == "--" {
            ended = true;
        } else if !ended && w.text.starts_with('-') && w.text.len() > 1 {
            opts.push(w.text.clone());
            if value_opts.contains(&w.text.as_str()) {
                if let Some(v) = args.get(i + 1) {
                    opts.push(format!("={}", v.text));
                }
                i += 1;
            }
        } else {
            ops.push(w);
        }
        i += 1;
    }
    (ops, opts)
}

fn has_opt(opts: &[String], names: &[&str]) -> bool {
    opts.iter().any(|o| {
        names
            .iter()
            .any(|n| o == n || (n.len() == 2 && o.starts_with(n) && !o.starts_with("--")))
    })
}

/// `sed`: (script given by -e/-f, in-place, files after the script).
fn sed_parts(args: &[Word]) -> (bool, bool, bool, Vec<&Word>) {
    let mut in_place = false;
    let mut script_opt = false;
    let mut file_script = false;
    let mut quiet = false;
    let mut ops = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "-e" || t == "--expression" {
            script_opt = true;
            i += 1;
        } else if t == "-f" || t == "--file" {
            script_opt = true;
            file_script = true;
            i += 1;
        } else if t.starts_with("--in-place") || (t.starts_with("-i") && !t.starts_with("--")) {
            in_place = true;
        } else if t.starts_with("--expression=") {
            script_opt = true;
        } else if t == "-n" || t == "--quiet" || t == "--silent" {
            quiet = true;
        } else if t.starts_with('-') && t.len() > 1 && !t.starts_with("--") {
            if t.contains('i') {
                in_place = true;
            }
            if t.contains('n') {
                quiet = true;
            }
            if t.ends_with('e') {
                script_opt = true;
                i += 1;
            }
        } else if t.starts_with("--") {
        } else {
            ops.push(&args[i]);
        }
        i += 1;
    }
    let files = if script_opt {
        ops
    } else {
        ops.into_iter().skip(1).collect()
    };
    (in_place, quiet, file_script, files)
}

fn python_writes(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lit = |s: &str| -> Option<(String, usize)> {
        let s2 = s.trim_start();
        let skipped = s.len() - s2.len();
        let q = s2.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let end = s2[1..].find(q)?;
        Some((s2[1..1 + end].to_owned(), skipped + end + 2))
    };
    let mut rest = code;
    while let Some(p) = rest.find("open(") {
        let after = &rest[p + 5..];
        if (p == 0 || !rest[..p].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
            && let Some((path, used)) = lit(after)
        {
            let tail = after[used..].trim_start();
            if let Some(t) = tail.strip_prefix(',') {
                let t = t
                    .trim_start()
                    .strip_prefix("mode=")
                    .unwrap_or(t.trim_start());
                if let Some((mode, _)) = lit(t)
                    && mode.contains(['w', 'a', 'x', '+'])
                {
                    out.push(path);
                }
            }
        }
        rest = after;
    }
    let mut rest = code;
    while let Some(p) = rest.find("Path(") {
        let after = &rest[p + 5..];
        if let Some((path, used)) = lit(after) {
            let tail = after[used..].trim_start();
            if let Some(t) = tail.strip_prefix(')')
                && (t.starts_with(".write_text(") || t.starts_with(".write_bytes("))
            {
                out.push(path);
            }
        }
        rest = after;
    }
    out
}

const NULL_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Written paths of one simple command (as written; dynamic ones are `None`).
fn written_of(cmd: &Simple, prog: &str, args: &[Word]) -> Vec<Option<String>> {
    let mut w: Vec<Option<String>> = Vec::new();
    let static_of = |x: &Word| (!x.dynamic).then(|| x.text.clone());
    for (op, target, dup) in &cmd.redirs {
        if *dup || *op == "<" {
            continue;
        }
        if let Some(t) = target
            && !NULL_TARGETS.contains(&t.text.as_str())
        {
            w.push(static_of(t));
        }
    }
    match prog {
        "sed" => {
            let (in_place, _, _, files) = sed_parts(args);
            if in_place {
                w.extend(files.into_iter().map(static_of));
            }
        }
        "tee" | "rm" | "touch" => w.extend(operands(args, &[]).0.into_iter().map(static_of)),
        "truncate" => w.extend(operands(args, &["-s", "-r"]).0.into_iter().map(static_of)),
        "cp" => w.extend(operands(args, &["-t", "-S"]).0.last().map(|x| static_of(x))),
        "mv" => w.extend(operands(args, &["-t", "-S"]).0.into_iter().map(static_of)),
        "patch" => w.extend(
            operands(
                args,
                &[
                    "-i", "-o", "-d", "-p", "-r", "-D", "-F", "-B", "-V", "-z", "-Y",
                ],
            )
            .0
            .first()
            .map(|x| static_of(x)),
        ),
        "git" => {
            let sub = args.first().map(|a| a.text.as_str());
            if sub == Some("checkout") {
                if let Some(p) = args.iter().position(|a| a.text == "--") {
                    w.extend(args[p + 1..].iter().map(static_of));
                }
            } else if sub == Some("restore") {
                w.extend(
                    operands(args.get(1..).unwrap_or_default(), &["-s", "--source"])
                        .0
                        .into_iter()
                        .map(static_of),
                );
            }
        }
        "python" | "python3" => {
            let code = args
                .iter()
                .position(|a| a.text == "-c")
                .and_then(|p| args.get(p + 1))
                .map(|a| a.text.clone())
                .or_else(|| cmd.stdin.clone());
            if let Some(code) = code {
                w.extend(python_writes(&code).into_iter().map(Some));
            }
        }
        _ => {}
    }
    w
}

/// A filter stage (§11.7).
fn is_filter(prog: &str, args: &[Word]) -> bool {
    match prog {
        "head" => operands(args, &["-n", "-c"]).0.is_empty(),
        "tail" => {
            let (ops, opts) = operands(args, &["-n", "-c"]);
            ops.is_empty() && !has_opt(&opts, &["-f", "-F", "--follow"])
        }
        "grep" | "egrep" | "fgrep" => {
            let (ops, opts) = operands(args, &["-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D"]);
            if has_opt(&opts, &["-e", "-f"]) {
                ops.is_empty()
            } else {
                ops.len() == 1
            }
        }
        "sed" => {
            let (in_place, _, _, files) = sed_parts(args);
            !in_place && files.is_empty()
        }
        "awk" => operands(args, &["-F", "-v"]).0.len() == 1,
        "tr" => true,
        "nl" => operands(
            args,
            &["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"],
        )
        .0
        .is_empty(),
        "wc" | "cat" => operands(args, &[]).0.is_empty(),
        "sort" => operands(args, &["-k", "-t", "-o", "-S", "-T"]).0.is_empty(),
        "uniq" => operands(args, &["-f", "-s", "-w"]).0.is_empty(),
        "cut" => operands(args, &["-d", "-f", "-c", "-b"]).0.is_empty(),
        _ => false,
    }
}

/// The single file operand of a read command, when it is one (§11.7).
fn read_operand<'w>(prog: &str, args: &'w [Word]) -> Option<&'w Word> {
    let ops = match prog {
        "cat" => operands(args, &[]).0,
        "nl" => {
            operands(
                args,
                &["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"],
            )
            .0
        }
        "head" | "tail" => {
            let (ops, opts) = operands(args, &["-n", "-c"]);
            if has_opt(&opts, &["-f", "-F", "--follow"]) {
                return None;
            }
            ops
        }
        "sed" => {
            let (in_place, quiet, file_script, files) = sed_parts(args);
            if in_place || !quiet || file_script {
                return None;
            }
            files
        }
        "awk" => {
            let (ops, opts) = operands(args, &["-F", "-v"]);
            if has_opt(&opts, &["-f"]) {
                return None;
            }
            ops.into_iter().skip(1).collect()
        }
        _ => return None,
    };
    match ops.as_slice() {
        [one] if !one.dynamic => Some(one),
        _ => None,
    }
}

fn search_of(prog: &str, args: &[Word]) -> Option<bool> {
    match prog {
        "grep" | "egrep" | "fgrep" | "rg" | "ag" => {
            let files = args.iter().any(|a| {
                let t = a.text.as_str();
                t == "--files-with-matches"
                    || t == "--files"
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('l'))
            });
            Some(files)
        }
        "git" if args.first().is_some_and(|a| a.text == "grep") => Some(args.iter().any(|a| {
            a.text == "-l" || a.text == "--files-with-matches" || a.text == "--name-only"
        })),
        "find" => {
            let mut i = 0;
            while i < args.len() {
                let t = args[i].text.as_str();
                if t == "-delete" || t.starts_with("-fprint") || t == "-fls" || t.starts_with("-ok")
                {
                    return None;
                }
                if t == "-exec" || t == "-execdir" {
                    let p = args
                        .get(i + 1)
                        .map(|a| basename(&a.text))
                        .unwrap_or_default();
                    if !matches!(p, "grep" | "egrep" | "fgrep" | "rg") {
                        return None;
                    }
                }
                i += 1;
            }
            Some(true)
        }
        _ => None,
    }
}

/// Splits tokens into elements of pipelines of simple commands.
fn structure(toks: Vec<Tok>) -> Vec<Vec<Simple>> {
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
            Tok::Redir { op, target, dup } => cur.redirs.push((op, target, dup)),
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

fn program(cmd: &Simple) -> Option<(String, &[Word])> {
    let skip = cmd.words.iter().take_while(|w| is_assignment(w)).count();
    let first = cmd.words.get(skip)?;
    Some((
        basename(&first.text).to_owned(),
        cmd.words.get(skip + 1..).unwrap_or_default(),
    ))
}

/// Classifies a shell command run with base directory `base`.
#[must_use]
pub fn classify(command: &str, base: &Base) -> Shell {
    let text = command.trim().to_owned();
    let process = |b: &Base| Shell {
        kind: Kind::Process,
        written: Vec::new(),
        written_raw: Vec::new(),
        base: b.clone(),
        text: text.clone(),
    };
    let lexed = lex(command);
    if lexed.opaque {
        return process(base);
    }
    let elements = structure(lexed.toks);
    for el in &elements {
        for cmd in el {
            if let Some(w) = cmd.words.iter().find(|w| w.plain)
                && cmd.words.first() == Some(w)
                && (OPAQUE_FIRST.contains(&w.text.as_str()) || w.text == "{" || w.text == "}")
            {
                return process(base);
            }
        }
    }
    let mut b = base.clone();
    let mut written = Vec::new();
    let mut written_raw = Vec::new();
    let mut remaining: Vec<(&Vec<Simple>, Base)> = Vec::new();
    let mut leading = true;
    for el in &elements {
        let is_cd = el.len() == 1
            && el[0].redirs.is_empty()
            && el[0].stdin.is_none()
            && el[0].words.first().is_some_and(|w| w.text == "cd");
        if is_cd {
            let words = &el[0].words;
            b = match words.as_slice() {
                [_, dir] if !dir.dynamic && dir.text != "-" => {
                    key(&b, &dir.text).map_or(Base::Unknown, Base::Known)
                }
                _ => Base::Unknown,
            };
            if leading {
                continue;
            }
        } else {
            leading = false;
        }
        for cmd in el {
            if let Some((prog, args)) = program(cmd) {
                for p in written_of(cmd, &prog, args).into_iter().flatten() {
                    if let Some(k) = key(&b, &p) {
                        written.push(k);
                    }
                    written_raw.push(p);
                }
            }
        }
        remaining.push((el, b.clone()));
    }
    let mut shell = Shell {
        kind: Kind::Process,
        written,
        written_raw,
        base: b.clone(),
        text: text.clone(),
    };
    let [(el, eb)] = remaining.as_slice() else {
        return shell;
    };
    shell.base = eb.clone();
    let redirs_ok = el.iter().all(|c| {
        c.redirs.iter().all(|(op, t, dup)| {
            *dup || (*op != "<" && t.as_ref().is_some_and(|t| t.text == "/dev/null"))
        })
    });
    let filters_ok = el
        .iter()
        .skip(1)
        .all(|c| c.stdin.is_none() && program(c).is_some_and(|(p, a)| is_filter(&p, a)));
    if !redirs_ok || !filters_ok || !shell.written.is_empty() {
        return shell;
    }
    let Some((prog, args)) = el.first().and_then(program) else {
        return shell;
    };
    if READS.contains(&prog.as_str())
        && let Some(w) = read_operand(&prog, args)
    {
        shell.kind = Kind::Read {
            key: key(eb, &w.text),
            path: w.text.clone(),
        };
        return shell;
    }
    if let Some(files) = search_of(&prog, args) {
        shell.kind = Kind::Search { files };
    }
    shell
}

/// Usage paths of a search's output (§11.7), keyed with the base.
#[must_use]
pub fn search_output_paths(output: &str, files: bool, base: &Base) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in output.lines().filter(|l| !l.is_empty()) {
        let p = if files {
            Some(line.to_owned())
        } else {
            line_path(line)
        };
        if let Some(k) = p.and_then(|p| key(base, &p))
            && !out.contains(&k)
        {
            out.push(k);
        }
    }
    out
}

/// `path` of a `path:NUM:` or `path-NUM-` line.
fn line_path(line: &str) -> Option<String> {
    for sep in [':', '-'] {
        let mut from = 0;
        while let Some(p) = line[from..].find(sep) {
            let s = from + p;
            let rest = &line[s + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && rest.as_bytes().get(digits) == Some(&(sep as u8)) && s > 0 {
                return Some(line[..s].to_owned());
            }
            from = s + 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Shell {
        classify(s, &Base::Empty)
    }

    #[test]
    fn reads_through_filters() {
        assert_eq!(
            c("cat a | head -5").kind,
            Kind::Read {
                key: Some("a".into()),
                path: "a".into()
            }
        );
        assert_eq!(
            c("nl -ba src/x.py | sed -n '1,20p'").kind,
            Kind::Read {
                key: Some("src/x.py".into()),
                path: "src/x.py".into()
            }
        );
        assert_eq!(
            c("sed -n '10,20p' f.py").kind,
            Kind::Read {
                key: Some("f.py".into()),
                path: "f.py".into()
            }
        );
        assert_eq!(
            c("head -n 5 f 2>/dev/null").kind,
            Kind::Read {
                key: Some("f".into()),
                path: "f".into()
            }
        );
        assert_eq!(
            c("awk -F: '{print $1}' /etc/passwd").kind,
            Kind::Read {
                key: Some("/etc/passwd".into()),
                path: "/etc/passwd".into()
            }
        );
        assert_eq!(c("tail -f log").kind, Kind::Process);
        assert_eq!(c("sed 's/a/b/' f").kind, Kind::Process);
    }

    #[test]
    fn processes_are_not_classified() {
        for s in [
            "cat a b",
            "cat $F",
            "echo X && cat p",
            "cat 'unterminated",
            "cat a > b",
            "(cat a)",
            "cat a &",
            "for f in a; do cat $f; done",
            "find . -name x -delete",
        ] {
            assert_eq!(c(s).kind, Kind::Process, "{s}");
        }
        assert_eq!(c("cat a > b").written, vec!["b".to_owned()]);
    }

    #[test]
    fn heredoc_writes_then_runs() {
        let s = c("cat > t.py <<'EOF'\nprint(1)\nEOF\n&& python t.py");
        assert_eq!(s.written, vec!["t.py".to_owned()]);
        let s = c("cat > t.py <<'EOF'\nprint(1)\nEOF");
        assert_eq!(s.written, vec!["t.py".to_owned()]);
        assert_eq!(c("cat > t.py <<'EOF'\nprint(1)\n").kind, Kind::Process);
        assert!(c("cat > t.py <<'EOF'\nprint(1)\n").written.is_empty());
    }

    #[test]
    fn cd_sets_the_base() {
        let s = classify("cd /testbed && cat x.py", &Base::Empty);
        assert_eq!(
            s.kind,
            Kind::Read {
                key: Some("/testbed/x.py".into()),
                path: "x.py".into()
            }
        );
        let s = classify("cd sub && cat x", &Base::Known("/r".into()));
        assert_eq!(
            s.kind,
            Kind::Read {
                key: Some("/r/sub/x".into()),
                path: "x".into()
            }
        );
        let s = classify("cd $D && cat x", &Base::Known("/r".into()));
        assert_eq!(
            s.kind,
            Kind::Read {
                key: None,
                path: "x".into()
            }
        );
    }

    #[test]
    fn written_paths_of_editing_commands() {
        assert_eq!(
            classify("sed -i 's/a/b/' /testbed/x.py", &Base::Empty).written,
            vec!["/testbed/x.py".to_owned()]
        );
        assert_eq!(
            c("sed -i.bak -e 's/a/b/' x y").written,
            vec!["x".to_owned(), "y".to_owned()]
        );
        assert_eq!(
            c("echo hi | tee -a out.txt").written,
            vec!["out.txt".to_owned()]
        );
        assert_eq!(c("rm -f a b").written, vec!["a".to_owned(), "b".to_owned()]);
        assert_eq!(c("cp a b").written, vec!["b".to_owned()]);
        assert_eq!(c("mv a b").written, vec!["a".to_owned(), "b".to_owned()]);
        assert_eq!(
            c("patch -p1 f.py < x.diff").written,
            vec!["f.py".to_owned()]
        );
        assert_eq!(
            c("git checkout -- a b").written,
            vec!["a".to_owned(), "b".to_owned()]
        );
        assert_eq!(c("git restore a").written, vec!["a".to_owned()]);
        assert_eq!(
            c("python3 -c \"open('o.txt', 'w').write('x')\"").written,
            vec!["o.txt".to_owned()]
        );
        assert_eq!(
            c("python - <<EOF\nfrom pathlib import Path\nPath('p.txt').write_text('x')\nEOF")
                .written,
            vec!["p.txt".to_owned()]
        );
        assert_eq!(c("echo x > /dev/null").written, Vec::<String>::new());
        assert_eq!(c("echo x 2>&1 > $OUT").written, Vec::<String>::new());
    }

    #[test]
    fn searches_and_their_output_paths() {
        assert_eq!(c("grep -rn foo .").kind, Kind::Search { files: false });
        assert_eq!(c("rg -l foo").kind, Kind::Search { files: true });
        assert_eq!(
            c("find . -name '*.py' | head -20").kind,
            Kind::Search { files: true }
        );
        assert_eq!(c("find . -exec rm {} ;").kind, Kind::Process);
        assert_eq!(c("git grep -n x").kind, Kind::Search { files: false });
        assert_eq!(
            search_output_paths(
                "a/b.py:10:x\nc-3-y\nnothing\n",
                false,
                &Base::Known("/r".into())
            ),
            vec!["/r/a/b.py".to_owned(), "/r/c".to_owned()]
        );
    }

    #[test]
    fn path_keys_follow_the_base() {
        assert_eq!(key(&Base::Known("/r/".into()), "a"), Some("/r/a".into()));
        assert_eq!(key(&Base::Unknown, "a"), None);
        assert_eq!(key(&Base::Unknown, "C:\\a"), Some("C:\\a".into()));
        assert_eq!(key(&Base::Known("/r".into()), "./a"), Some("/r/./a".into()));
    }
}
