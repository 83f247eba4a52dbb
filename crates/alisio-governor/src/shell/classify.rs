//! The shell classifier (spec/governor.md §11.7): which paths a command writes, and whether it is
//! one file read or one search.

use super::lex::{Simple, Word, lex, structure};
use super::{Base, CommandKind, Shell, key};

const READS: &[&str] = &["cat", "nl", "head", "tail", "sed", "awk"];
pub(super) const OPAQUE_FIRST: &[&str] = &["if", "for", "while", "until", "case", "function"];

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

/// A filter stage (spec/governor.md §11.7).
pub(super) fn is_filter(prog: &str, args: &[Word]) -> bool {
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

/// The single file operand of a read command, when it is one (spec/governor.md §11.7).
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

pub(super) fn program(cmd: &Simple) -> Option<(String, &[Word])> {
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
        kind: CommandKind::Process,
        written: Vec::new(),
        written_raw: Vec::new(),
        base: b.clone(),
        text: text.clone(),
    };
    let lexed = lex(command);
    if lexed.opaque {
        return process(base);
    }
    let elements = structure(lexed.tokens);
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
        kind: CommandKind::Process,
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
        shell.kind = CommandKind::Read {
            key: key(eb, &w.text),
            path: w.text.clone(),
        };
        return shell;
    }
    if let Some(files) = search_of(&prog, args) {
        shell.kind = CommandKind::Search { files };
    }
    shell
}

/// Usage paths of a search's output (spec/governor.md §11.7), keyed with the base.
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
