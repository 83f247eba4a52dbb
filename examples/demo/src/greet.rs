//! Greetings.

/// The greeting for `name`.
pub fn greeting(name: &str) -> String {
    format!("Hello, {name}!")
}
