//! Progress on stderr for the long commands (`render`, `raster`, `import`, `explore`,
//! `regress`): one [`Progress`] type, a bar with the rate and the time left, drawn only when
//! stderr is a terminal, only once the work has run [`SHOW_AFTER`] (2 s;
//! `TILERAST_PROGRESS_AFTER_MS` overrides it, for tests), never with `--quiet`, and cleared
//! when done. On a pipe or a file nothing is written. Its methods take `&self`, so the
//! threads of a rayon pool (`explore`) can advance one bar.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the work runs before the bar appears.
pub const SHOW_AFTER: Duration = Duration::from_secs(2);

/// Whether a bar may be drawn at all: not with `--quiet`, and only on a terminal.
pub fn shown(quiet: bool, stderr_is_terminal: bool) -> bool {
    !quiet && stderr_is_terminal
}

/// A progress bar that appears only after [`SHOW_AFTER`] on a terminal.
pub struct Progress {
    len: u64,
    /// What is counted (`tiles`, `paths`, `bytes`, `combinations`, `prims`); `bytes` are shown
    /// in KiB / MiB.
    unit: &'static str,
    what: String,
    start: Instant,
    after: Duration,
    /// Drawing allowed: [`shown`], and not yet finished.
    enabled: AtomicBool,
    pos: AtomicU64,
    /// The extra message after the rate ([`Progress::set_message`]).
    msg: Mutex<String>,
    bar: OnceLock<ProgressBar>,
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
            enabled: AtomicBool::new(shown(quiet, std::io::stderr().is_terminal())),
            pos: AtomicU64::new(0),
            msg: Mutex::new(String::new()),
            bar: OnceLock::new(),
        }
    }

    /// Whether a bar may still be drawn (false with `--quiet`, off a terminal, once finished).
    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// `pos` of the `len` units are done.
    pub fn set(&self, pos: u64) {
        if !self.enabled() {
            return;
        }
        self.pos.store(pos, Ordering::Relaxed);
        self.draw();
    }

    /// `n` more units are done.
    pub fn inc(&self, n: u64) {
        if !self.enabled() {
            return;
        }
        self.pos.fetch_add(n, Ordering::Relaxed);
        self.draw();
    }

    /// Show `msg` after the rate and time left (the combination in hand, cycles so far).
    pub fn set_message(&self, msg: impl Into<String>) {
        if !self.enabled() {
            return;
        }
        let msg = msg.into();
        match self.bar.get() {
            Some(pb) => pb.set_message(msg),
            None => *self.msg.lock().unwrap_or_else(|e| e.into_inner()) = msg,
        }
    }

    /// Draw (or create, once [`Progress::after`] has passed) the bar at the current position.
    fn draw(&self) {
        let pb = match self.bar.get() {
            Some(pb) => pb,
            None => {
                if self.start.elapsed() < self.after {
                    return;
                }
                self.bar.get_or_init(|| self.make_bar())
            }
        };
        pb.set_position(self.pos.load(Ordering::Relaxed).min(self.len));
    }

    fn make_bar(&self) -> ProgressBar {
        // The elapsed time counts from the start of the work, not from now.
        let pb = ProgressBar::with_draw_target(Some(self.len), ProgressDrawTarget::stderr())
            .with_position(self.pos.load(Ordering::Relaxed).min(self.len))
            .with_elapsed(self.start.elapsed());
        let unit = self.unit;
        let t = if unit == "bytes" {
            "{prefix} [{bar:30}] {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, {eta} left) {msg}"
                .to_string()
        } else {
            format!("{{prefix}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} ({{rate}}, {{eta}} left) {{msg}}")
        };
        if let Ok(st) = ProgressStyle::with_template(&t) {
            pb.set_style(st.progress_chars("=> ").with_key(
                "rate",
                move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} {unit}/s", s.per_sec());
                },
            ));
        }
        pb.set_prefix(self.what.clone());
        pb.set_message(std::mem::take(&mut *self.msg.lock().unwrap_or_else(|e| e.into_inner())));
        pb
    }

    /// Clear the bar (if it was drawn); nothing is drawn after this.
    pub fn finish(&self) {
        self.enabled.store(false, Ordering::Relaxed);
        if let Some(pb) = self.bar.get() {
            pb.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_only_on_a_terminal_and_never_with_quiet() {
        assert!(shown(false, true));
        assert!(!shown(true, true));
        assert!(!shown(false, false));
        assert!(!shown(true, false));
        // --quiet: disabled whatever stderr is, so nothing is ever drawn.
        let p = Progress::new(10, "prims", "regress", true);
        assert!(!p.enabled());
        p.inc(5);
        p.set_message("x");
        assert!(p.bar.get().is_none());
    }

    #[test]
    fn finish_stops_drawing() {
        let p = Progress::new(10, "prims", "regress", false);
        p.finish();
        assert!(!p.enabled());
        p.inc(10);
        assert!(p.bar.get().is_none());
    }

    #[test]
    fn progress_is_shared_by_threads() {
        fn sync<T: Sync + Send>() {}
        sync::<Progress>();
    }
}
