//! Progress on stderr for the long commands (`render`, `raster`, `import`): a bar with the
//! rate and the time left, drawn only when stderr is a terminal, only once the work has run
//! [`SHOW_AFTER`] (2 s; `TILERAST_PROGRESS_AFTER_MS` overrides it, for tests), never with
//! `--quiet`, and cleared when done. On a pipe or a file nothing is written.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How long the work runs before the bar appears.
pub const SHOW_AFTER: Duration = Duration::from_secs(2);

/// A progress bar that appears only after [`SHOW_AFTER`] on a terminal.
pub struct Progress {
    len: u64,
    unit: &'static str,
    what: String,
    start: Instant,
    after: Duration,
    enabled: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Progress over `len` `unit`s (`tiles`, `paths`) of `what` (`render scene.json`).
    pub fn new(len: u64, unit: &'static str, what: impl Into<String>, quiet: bool) -> Self {
        let after = std::env::var("TILERAST_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(SHOW_AFTER, Duration::from_millis);
        Progress {
            len,
            unit,
            what: what.into(),
            start: Instant::now(),
            after,
            enabled: !quiet && std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    /// `pos` of the `len` units are done.
    pub fn set(&mut self, pos: u64) {
        if !self.enabled {
            return;
        }
        if self.bar.is_none() {
            if self.start.elapsed() < self.after {
                return;
            }
            // The elapsed time counts from the start of the work, not from now.
            let pb = ProgressBar::with_draw_target(Some(self.len), ProgressDrawTarget::stderr())
                .with_position(pos.min(self.len))
                .with_elapsed(self.start.elapsed());
            let t = format!(
                "{{msg}} [{{bar:30}}] {{human_pos}}/{{human_len}} {} ({{rate}}, {{eta}} left)",
                self.unit
            );
            if let Ok(st) = ProgressStyle::with_template(&t) {
                let unit = self.unit;
                pb.set_style(st.progress_chars("=> ").with_key(
                    "rate",
                    move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.0} {unit}/s", s.per_sec());
                    },
                ));
            }
            pb.set_message(self.what.clone());
            self.bar = Some(pb);
        }
        if let Some(pb) = &self.bar {
            pb.set_position(pos.min(self.len));
        }
    }

    /// Clear the bar (if it was drawn).
    pub fn finish(&mut self) {
        if let Some(pb) = self.bar.take() {
            pb.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
