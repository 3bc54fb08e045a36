//! The CLI's one error type: a single line `file: where: what` (or `--option: value: what`),
//! printed by `main` as `error: <line>` with exit code 1.

use std::fmt;

/// A user-facing failure, already formatted as one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(pub String);

impl CliError {
    /// `file: at: msg`.
    pub fn at(file: impl fmt::Display, at: impl fmt::Display, msg: impl fmt::Display) -> Self {
        CliError(format!("{file}: {at}: {msg}"))
    }

    /// The message with any line breaks folded, so that it stays one line on stderr.
    pub fn one_line(&self) -> String {
        let mut s: String = self
            .0
            .split(['\n', '\r'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if s.is_empty() {
            s = "unknown error".into();
        }
        s
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

impl From<tilerast_golden::SceneError> for CliError {
    fn from(e: tilerast_golden::SceneError) -> Self {
        CliError(e.to_string())
    }
}

/// Result alias of the CLI.
pub type Res<T> = Result<T, CliError>;

/// Map an I/O error on `path` during `what` (`read`, `write`, …) to a one-line error.
pub fn io_err(path: &std::path::Path, what: &str, e: std::io::Error) -> CliError {
    CliError::at(path.display(), what, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_to_one_line() {
        let e = CliError("a.json: line 1: bad\n  thing\r\n".into());
        assert_eq!(e.one_line(), "a.json: line 1: bad thing");
        assert_eq!(CliError(String::new()).one_line(), "unknown error");
        assert_eq!(CliError::at("f", "x.y", "m").0, "f: x.y: m");
    }
}
