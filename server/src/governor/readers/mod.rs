//! Readers of transcripts into the governor's message model (governor.md §11).
