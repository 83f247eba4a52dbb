//! Shell command classifier (governor.md §11.7).
