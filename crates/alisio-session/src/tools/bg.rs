//! Background tasks (spec/sessions.md §3.4): `bg_run`, `bg_output`, `bg_list`, `bg_stop`. Output of
//! each task is copied into `<state dir>/tasks/<sessionId>/<id>.log` with the log limit and
//! tail; every task is killed with its process group when its owner ends.

use super::error::{ToolError, ToolReturn};
use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::ToolCtx;
use super::args::tool_args;
use super::process::kill_group;
use crate::util::{floor_char, now_rfc3339};
use alisio_sandbox::SpawnError;

const NOTE: &str = "Poll with bg_output using next_offset; stop with bg_stop.";
const TAIL: usize = 32_768;

#[derive(Debug)]
struct Shared {
    status: String,
    exit_code: Option<i32>,
    ended_at: Option<String>,
}

/// One background task.
#[derive(Debug)]
pub struct BackgroundTask {
    pub id: String,
    pub label: String,
    pub command: String,
    pub cwd: String,
    pub log_path: PathBuf,
    pub created_at: String,
    pgid: u32,
    shared: Arc<Mutex<Shared>>,
    bytes: Arc<AtomicU64>,
    log_truncated: Arc<AtomicBool>,
    stop: Arc<Mutex<Option<&'static str>>>,
    copier_done: Arc<AtomicBool>,
}

/// The tasks of one session (or of an LSP server process).
#[derive(Debug)]
pub struct Tasks {
    next: u32,
    pub list: Vec<BackgroundTask>,
    pub max_running: usize,
    pub max_run_ms: u64,
    pub max_output: u64,
}

impl Default for Tasks {
    fn default() -> Self {
        Self {
            next: 1,
            list: Vec::new(),
            max_running: 8,
            max_run_ms: 3_600_000,
            max_output: 2_097_152,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl BackgroundTask {
    fn status(&self) -> (String, Option<i32>, Option<String>) {
        let s = lock(&self.shared);
        (s.status.clone(), s.exit_code, s.ended_at.clone())
    }

    /// The brief of spec/sessions.md §3.4.
    #[must_use]
    pub fn brief(&self) -> Value {
        let (status, code, ended) = self.status();
        json!({"id":self.id,"label":self.label,"status":status,"exit_code":code,"cwd":self.cwd,"created_at":self.created_at,
            "ended_at":ended,"output_bytes":self.bytes.load(Ordering::Relaxed),"output_truncated":self.log_truncated.load(Ordering::Relaxed)})
    }

    fn running(&self) -> bool {
        lock(&self.shared).status == "running"
    }

    fn end(&self, how: &'static str) {
        if self.running() {
            *lock(&self.stop) = Some(how);
            kill_group(self.pgid, Duration::from_secs(3));
        }
    }
}

impl Tasks {
    /// The task `id`.
    ///
    /// # Errors
    /// `Unknown background task: <id>`.
    pub fn get(&self, id: &str) -> ToolReturn<&BackgroundTask> {
        self.list
            .iter()
            .find(|t| t.id == id)
            .ok_or_else(|| ToolError::UnknownTask(id.to_string()))
    }

    /// Kills every running task (`killed`): end of a CLI run, LSP exit, cancelled run.
    pub fn kill_all(&self) {
        for t in &self.list {
            t.end("killed");
        }
        let end = Instant::now() + Duration::from_secs(4);
        while self.list.iter().any(BackgroundTask::running) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Rows for the `tasks` table: `(id, label, command, cwd, status, exit_code, log_path,
    /// output_bytes, created_at, ended_at)`.
    #[must_use]
    pub fn rows(&self) -> Vec<Value> {
        self.list
            .iter()
            .map(|t| {
                let (status, code, ended) = t.status();
                json!({"id":t.id,"label":t.label,"command":t.command,"cwd":t.cwd,"status":status,"exit_code":code,
                    "log_path":t.log_path.to_string_lossy(),"output_bytes":t.bytes.load(Ordering::Relaxed),"created_at":t.created_at,"ended_at":ended})
            })
            .collect()
    }
}

/// Writes the notice that the log limit `max` is reached, once, and counts its bytes.
fn note_truncated(
    log: &mut std::fs::File,
    written: &mut u64,
    bytes: &AtomicU64,
    truncated: &AtomicBool,
    max: u64,
) {
    let line = format!(
        "\n[output truncated: log limit of {max} bytes reached; the last 32768 bytes follow when the task ends]\n"
    );
    let _ = log.write_all(line.as_bytes());
    *written += line.len() as u64;
    bytes.store(*written, Ordering::Relaxed);
    truncated.store(true, Ordering::Relaxed);
}

fn copier(
    mut pipe: std::io::PipeReader,
    path: PathBuf,
    max: u64,
    bytes: Arc<AtomicU64>,
    truncated: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
) {
    let Ok(mut log) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        done.store(true, Ordering::Relaxed);
        return;
    };
    let mut written: u64 = 0;
    let mut tail: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut omitted: u64 = 0;
    let mut buf = [0u8; 8192];
    loop {
        let n = match pipe.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut chunk = &buf[..n];
        if written < max {
            let take = (max - written).min(chunk.len() as u64) as usize;
            let _ = log.write_all(&chunk[..take]);
            written += take as u64;
            bytes.store(written, Ordering::Relaxed);
            chunk = &chunk[take..];
            if written >= max && !chunk.is_empty() && !truncated.load(Ordering::Relaxed) {
                note_truncated(&mut log, &mut written, &bytes, &truncated, max);
            }
        }
        if !chunk.is_empty() {
            if !truncated.load(Ordering::Relaxed) {
                note_truncated(&mut log, &mut written, &bytes, &truncated, max);
            }
            tail.extend(chunk);
            while tail.len() > TAIL {
                tail.pop_front();
                omitted += 1;
            }
        }
    }
    if truncated.load(Ordering::Relaxed) {
        let head = format!("[... {omitted} bytes omitted ...]\n");
        let _ = log.write_all(head.as_bytes());
        let t: Vec<u8> = tail.into_iter().collect();
        let _ = log.write_all(&t);
        written += (head.len() + t.len()) as u64;
        bytes.store(written, Ordering::Relaxed);
    }
    let _ = log.flush();
    done.store(true, Ordering::Relaxed);
}

tool_args! {
    /// `bg_run` arguments (spec/sessions.md §3.4), after [`super::Spec::validate`].
    BgRunArgs {
        command: String,
        cwd: Option<String>,
        label: Option<String>,
        timeout_ms: Option<u64>,
    }
}

tool_args! {
    /// `bg_output` arguments.
    BgOutputArgs {
        id: String,
        offset: Option<u64>,
        limit: Option<u64>,
        wait_ms: Option<u64>,
    }
}

tool_args! {
    /// `bg_list` arguments.
    BgListArgs {
        status: Option<String>,
        limit: Option<u64>,
    }
}

tool_args! {
    /// `bg_stop` arguments.
    BgStopArgs {
        id: String,
    }
}

/// `bg_run`.
///
/// # Errors
/// The tool's error text.
pub fn bg_run(
    ctx: &ToolCtx,
    command: &str,
    cwd: Option<&str>,
    label: Option<&str>,
    timeout: Option<u64>,
) -> ToolReturn {
    let dir = super::process::resolve_cwd(ctx, cwd)?;
    let mut tasks = lock(&ctx.background_tasks);
    let running = tasks.list.iter().filter(|t| t.running()).count();
    if running >= tasks.max_running {
        return Err(format!(
            "Too many background tasks running ({running}); stop one with bg_stop"
        )
        .into());
    }
    let id = format!("bg-{}", tasks.next);
    let logdir = ctx.state_dir.join("tasks").join(&ctx.session_id);
    std::fs::create_dir_all(&logdir)
        .map_err(|e| format!("Cannot create the task log directory: {e}"))?;
    let log_path = logdir.join(format!("{id}.log"));
    let _ = std::fs::remove_file(&log_path);
    let (reader, writer) = std::io::pipe().map_err(|e| format!("Cannot start the task: {e}"))?;
    let w2 = writer
        .try_clone()
        .map_err(|e| format!("Cannot start the task: {e}"))?;
    let mut c = super::process::command(ctx, "/bin/sh", &["-c".into(), command.into()])?;
    c.current_dir(&dir).stdout(writer).stderr(w2);
    let mut child = super::process::spawn(ctx, c).map_err(|e| match e {
        SpawnError::Sandbox(e) => format!("Cannot start the task: the sandbox failed: {e}"),
        SpawnError::Io(e) => format!("Cannot start the task: {e}"),
    })?;
    tasks.next += 1;
    let timeout_ms = timeout.unwrap_or(tasks.max_run_ms).min(tasks.max_run_ms);
    let shared = Arc::new(Mutex::new(Shared {
        status: "running".into(),
        exit_code: None,
        ended_at: None,
    }));
    let bytes = Arc::new(AtomicU64::new(0));
    let trunc = Arc::new(AtomicBool::new(false));
    let stop: Arc<Mutex<Option<&'static str>>> = Arc::new(Mutex::new(None));
    let done = Arc::new(AtomicBool::new(false));
    {
        let (p, b, t, d, max) = (
            log_path.clone(),
            Arc::clone(&bytes),
            Arc::clone(&trunc),
            Arc::clone(&done),
            tasks.max_output,
        );
        std::thread::spawn(move || copier(reader, p, max, b, t, d));
    }
    let pgid = child.id();
    {
        let (shared, stop, done) = (Arc::clone(&shared), Arc::clone(&stop), Arc::clone(&done));
        std::thread::spawn(move || {
            let _live = super::process::LiveGroup::new(pgid);
            let start = Instant::now();
            let mut timed_out = false;
            let status = loop {
                match child.try_wait() {
                    Ok(Some(s)) => break Some(s),
                    Ok(None) => {}
                    Err(_) => break None,
                }
                if !timed_out && start.elapsed() >= Duration::from_millis(timeout_ms) {
                    timed_out = true;
                    kill_group(pgid, Duration::from_secs(3));
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            let end = Instant::now() + Duration::from_secs(2);
            while !done.load(Ordering::Relaxed) && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(10));
            }
            let code = status.and_then(|s| s.code());
            let st = match (*lock(&stop), timed_out, code) {
                (Some(how), _, _) => how,
                (None, true, _) => "timed_out",
                (None, false, Some(0)) => "exited",
                _ => "failed",
            };
            let mut s = lock(&shared);
            s.status = st.into();
            s.exit_code = code;
            s.ended_at = Some(now_rfc3339());
        });
    }
    let task = BackgroundTask {
        id: id.clone(),
        label: label.unwrap_or_default().to_string(),
        command: command.to_string(),
        cwd: ctx.roots.show(&dir),
        log_path,
        created_at: now_rfc3339(),
        pgid,
        shared,
        bytes,
        log_truncated: trunc,
        stop,
        copier_done: done,
    };
    let out = json!({"id":id,"label":task.label,"status":"running","cwd":task.cwd,"timeout_ms":timeout_ms,"note":NOTE,"sandbox":ctx.sandbox.json()});
    tasks.list.push(task);
    Ok(out.to_string())
}

/// `bg_output`.
///
/// # Errors
/// `Unknown background task: <id>`.
pub fn bg_output(
    ctx: &ToolCtx,
    id: &str,
    offset: Option<u64>,
    limit: Option<u64>,
    wait: Option<u64>,
) -> ToolReturn {
    let (path, bytes, trunc, shared, done) = {
        let tasks = lock(&ctx.background_tasks);
        let t = tasks.get(id)?;
        (
            t.log_path.clone(),
            Arc::clone(&t.bytes),
            Arc::clone(&t.log_truncated),
            Arc::clone(&t.shared),
            Arc::clone(&t.copier_done),
        )
    };
    let offset = offset.unwrap_or(0);
    let limit = limit.unwrap_or(16_384) as usize;
    let deadline = Instant::now() + Duration::from_millis(wait.unwrap_or(0));
    loop {
        let running = lock(&shared).status == "running" || !done.load(Ordering::Relaxed);
        if bytes.load(Ordering::Relaxed) > offset
            || !running
            || Instant::now() >= deadline
            || ctx.cancelled()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, code, _) = {
        let s = lock(&shared);
        (s.status.clone(), s.exit_code, s.ended_at.clone())
    };
    let data = std::fs::read(&path).unwrap_or_default();
    let start = (offset as usize).min(data.len());
    let end = (start + limit).min(data.len());
    let slice = &data[start..end];
    let text = match std::str::from_utf8(slice) {
        Ok(s) => s.to_string(),
        Err(e) if e.error_len().is_none() => {
            String::from_utf8_lossy(&slice[..e.valid_up_to()]).into_owned()
        }
        Err(_) => {
            let lossy = String::from_utf8_lossy(slice).into_owned();
            let cut = floor_char(&lossy, lossy.len());
            lossy[..cut].to_string()
        }
    };
    let consumed = match std::str::from_utf8(slice) {
        Ok(_) => slice.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => slice.len(),
    };
    let next = start + consumed;
    let finished = status != "running" && done.load(Ordering::Relaxed);
    let eof = next >= data.len() && finished;
    Ok(json!({"id":id,"status":status,"exit_code":code,"text":text,"next_offset":next,"eof":eof,"output_truncated":trunc.load(Ordering::Relaxed)}).to_string())
}

/// `bg_list`.
///
/// # Errors
/// Never; a result for symmetry.
pub fn bg_list(ctx: &ToolCtx, status: Option<&str>, limit: Option<u64>) -> ToolReturn {
    let tasks = lock(&ctx.background_tasks);
    let lim = limit.unwrap_or(20) as usize;
    let briefs: Vec<Value> = tasks
        .list
        .iter()
        .rev()
        .map(BackgroundTask::brief)
        .filter(|b| status.is_none_or(|s| b["status"] == s))
        .take(lim)
        .collect();
    Ok(json!({"tasks":briefs}).to_string())
}

/// `bg_stop`.
///
/// # Errors
/// `Unknown background task: <id>`.
pub fn bg_stop(ctx: &ToolCtx, id: &str) -> ToolReturn {
    let tasks = lock(&ctx.background_tasks);
    let t = tasks.get(id)?;
    if t.running() {
        t.end("stopped");
        let end = Instant::now() + Duration::from_secs(5);
        while t.running() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    Ok(t.brief().to_string())
}
