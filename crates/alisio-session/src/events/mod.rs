//! The event envelope and its stream (spec/sessions.md §8): per-run `seq` without gaps, durable
//! events stored in the same transaction as the state they report and emitted only after it
//! commits; `text_delta` emitted but never stored.

use serde_json::{Map, Value, json};

use super::store::{DbResult, Store, StoreError, Tx};
use super::util::{compact, now_rfc3339};

mod kinds;

pub use kinds::*;

/// An event waiting for its transaction.
#[derive(Clone, Debug)]
pub struct Pending {
    pub session_id: String,
    pub parent: Option<String>,
    pub event: Event,
}

impl Pending {
    #[must_use]
    pub fn new(session_id: &str, parent: Option<&str>, event: Event) -> Self {
        Self {
            session_id: session_id.to_string(),
            parent: parent.map(String::from),
            event,
        }
    }
}

/// One emitted event as a consumer receives it: the envelope as it is sent (spec/sessions.md
/// §8.1) and the typed event it carries, so a consumer matches on [`Event`] instead of reading
/// fields of the JSON.
#[derive(Clone, Copy, Debug)]
pub struct Emitted<'a> {
    /// The envelope, exactly as sent.
    pub json: &'a Value,
    pub session_id: &'a str,
    pub event: &'a Event,
}

/// A consumer of a run's events.
pub type Sink<'s> = &'s mut dyn FnMut(&Emitted<'_>);

/// The run's event stream.
pub struct Emitter<'s> {
    pub run_id: String,
    seq: u64,
    sink: Sink<'s>,
    /// Every envelope emitted, in order (the runner keeps them for results and tests).
    pub emitted_types: Vec<&'static str>,
    /// A child session's emitter: `parentSessionId` of every event without its own.
    pub parent: Option<String>,
}

fn envelope(
    run_id: &str,
    p: &Pending,
    seq: u64,
    event_id: Option<i64>,
    parent: Option<&str>,
) -> Value {
    let mut m = Map::new();
    m.insert("schemaVersion".into(), json!(1));
    m.insert("runId".into(), json!(run_id));
    m.insert("sessionId".into(), json!(p.session_id));
    m.insert("seq".into(), json!(seq));
    m.insert("type".into(), json!(p.event.type_name()));
    m.insert("timestamp".into(), json!(now_rfc3339()));
    m.insert("data".into(), p.event.data());
    if let Some(id) = event_id {
        m.insert("eventId".into(), json!(id.to_string()));
    }
    if let Some(parent) = p.parent.as_deref().or(parent) {
        m.insert("parentSessionId".into(), json!(parent));
    }
    Value::Object(m)
}

impl<'s> Emitter<'s> {
    pub fn new(run_id: &str, sink: Sink<'s>) -> Self {
        Self {
            run_id: run_id.to_string(),
            seq: 0,
            sink,
            emitted_types: Vec::new(),
            parent: None,
        }
    }

    /// The last `seq` used.
    #[must_use]
    pub const fn seq(&self) -> u64 {
        self.seq
    }

    /// Continues numbering after `seq` (a child's events share the run's sequence).
    pub fn set_seq(&mut self, seq: u64) {
        self.seq = seq;
    }

    /// The consumer (a child run forwards its events to its parent's consumer).
    pub fn sink(&mut self) -> &mut dyn FnMut(&Emitted<'_>) {
        &mut *self.sink
    }

    /// Runs `f` and stores `events` in one transaction, then emits them.
    ///
    /// # Errors
    /// Store errors (nothing is emitted then and `seq` does not advance).
    pub fn commit<T>(
        &mut self,
        store: &mut Store,
        events: Vec<Pending>,
        f: impl FnOnce(&Tx<'_>) -> DbResult<T>,
    ) -> Result<T, StoreError> {
        let run_id = self.run_id.clone();
        let parent = self.parent.clone();
        let base = self.seq;
        let (out, envs) = store.tx(|tx| {
            let out = f(tx)?;
            let mut envs = Vec::with_capacity(events.len());
            for (i, p) in events.iter().enumerate() {
                let seq = base + 1 + i as u64;
                let ts = now_rfc3339();
                let id = tx.insert_event(
                    &p.session_id,
                    &run_id,
                    seq,
                    p.event.type_name(),
                    &ts,
                    &compact(&p.event.data()),
                )?;
                let mut env = envelope(&run_id, p, seq, Some(id), parent.as_deref());
                if let Some(o) = env.as_object_mut() {
                    o.insert("timestamp".into(), json!(ts));
                }
                envs.push(env);
            }
            Ok((out, envs))
        })?;
        self.seq = base + envs.len() as u64;
        for (e, p) in envs.iter().zip(&events) {
            self.emitted_types.push(p.event.type_name());
            (self.sink)(&Emitted {
                json: e,
                session_id: &p.session_id,
                event: &p.event,
            });
        }
        Ok(out)
    }

    /// Stores and emits events alone.
    ///
    /// # Errors
    /// Store errors.
    pub fn durable(&mut self, store: &mut Store, events: Vec<Pending>) -> Result<(), StoreError> {
        self.commit(store, events, |_| Ok(()))
    }

    /// Emits an event that is never stored (`text_delta`).
    pub fn transient(&mut self, p: &Pending) {
        self.seq += 1;
        let e = envelope(&self.run_id, p, self.seq, None, self.parent.as_deref());
        self.emitted_types.push(p.event.type_name());
        (self.sink)(&Emitted {
            json: &e,
            session_id: &p.session_id,
            event: &p.event,
        });
    }
}
