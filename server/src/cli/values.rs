//! The command line's parsing of core value types (`--host`, `--profile`): the core stays free
//! of clap (ARCHITECTURE.md; since the crate split, `alisio-base` does not depend on it, so the
//! orphan rule rules out `impl ValueEnum for Host` here), and the names on the command line are
//! the configuration's names (`as_str`), so `--host claude-code` and `"host": "claude-code"`
//! agree. [`Names`] is a clap value parser over such an enum: the error messages and the
//! completions are clap's own for a list of possible values.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;

use alisio_base::config::{Host, Profile};

/// Parses one of `values` by its name.
#[derive(Clone, Copy)]
pub struct Names<T: 'static> {
    values: &'static [T],
    name: fn(T) -> &'static str,
}

/// `--host`.
pub const HOSTS: Names<Host> = Names {
    values: &Host::ALL,
    name: Host::as_str,
};

/// `--profile`.
pub const PROFILES: Names<Profile> = Names {
    values: &Profile::ALL,
    name: Profile::as_str,
};

impl<T: Copy + Send + Sync + 'static> Names<T> {
    fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.values.iter().map(|v| (self.name)(*v))
    }
}

impl<T: Copy + Send + Sync + 'static> TypedValueParser for Names<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let name = PossibleValuesParser::new(self.names()).parse_ref(cmd, arg, value)?;
        self.values
            .iter()
            .copied()
            .find(|v| (self.name)(*v) == name)
            .ok_or_else(|| clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.names().map(PossibleValue::new)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<T: Copy + Send + Sync + 'static>(p: &Names<T>) -> Vec<String> {
        p.possible_values()
            .into_iter()
            .flatten()
            .map(|v| v.get_name().to_string())
            .collect()
    }

    /// Every value the configuration accepts is a command-line value, by the same name.
    #[test]
    fn command_line_names_are_the_configuration_names() {
        assert_eq!(
            names(&HOSTS),
            [
                "alisio",
                "codex",
                "claude-code",
                "copilot",
                "gemini",
                "cursor"
            ]
        );
        let cmd = clap::Command::new("t");
        for h in Host::ALL {
            let json: Host = serde_json::from_value(serde_json::json!(h.as_str())).unwrap();
            assert_eq!((json, Host::parse(h.as_str())), (h, Some(h)));
            let parsed = HOSTS.parse_ref(&cmd, None, OsStr::new(h.as_str())).unwrap();
            assert_eq!(parsed, h);
        }
        assert_eq!(names(&PROFILES), ["alisio", "spec", "codex", "claude-code"]);
        for p in Profile::ALL {
            let json: Profile = serde_json::from_value(serde_json::json!(p.as_str())).unwrap();
            assert_eq!(json, p);
            let parsed = PROFILES
                .parse_ref(&cmd, None, OsStr::new(p.as_str()))
                .unwrap();
            assert_eq!(parsed, p);
        }
        assert_eq!(Host::parse("copilot-x"), None);
        let err = HOSTS
            .parse_ref(&cmd, None, OsStr::new("copilot-x"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidValue);
    }
}
