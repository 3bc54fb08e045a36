//! Output files, checked before any work: an output that is one of the command's inputs, whose
//! extension disagrees with the format written, or whose directory does not exist is refused
//! with one line naming the flag (and the input), before a scene is read or a byte written.
//!
//! ```text
//!   -o FILE ─► same file as an input? (canonical paths; the output may not exist yet:
//!              canonical parent + file name; on unix also device + inode, for hard links)
//!          ─► extension one of the format's? ─► parent directory exists? ─► go
//! ```

use crate::error::{CliError, Res};
use std::path::{Path, PathBuf};

/// The canonical path of `p`, which need not exist: its canonical parent joined with its file
/// name. `None` when even the parent does not resolve.
fn canonical_out(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = p.canonicalize() {
        return Some(c);
    }
    let name = p.file_name()?;
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(parent.canonicalize().ok()?.join(name))
}

/// Whether `a` and `b` are the same existing file (hard links included).
#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}

/// Whether writing `out` would write over `input`.
pub fn is_same_file(out: &Path, input: &Path) -> bool {
    let (Some(o), Ok(i)) = (canonical_out(out), input.canonicalize()) else {
        return false;
    };
    o == i || same_inode(out, input)
}

/// What a command writes to one output file.
pub struct OutSpec<'a> {
    /// The flag that names the file (`-o`, `--csv`, `--plot`).
    pub flag: &'a str,
    pub path: &'a Path,
    /// Accepted extensions, lower case, without the dot; the first is the one suggested.
    pub exts: &'a [&'a str],
    /// What is written, for the message (`a PNG image`, `JSON lines`, `a JSON scene`).
    pub what: &'a str,
}

/// Refuse `o` before any work: it is one of `inputs`, its extension is not one of `o.exts`
/// (a device or pipe, such as `/dev/null`, is exempt), or its directory does not exist.
pub fn check(o: &OutSpec, inputs: &[&Path]) -> Res<()> {
    let flag = o.flag;
    for i in inputs {
        if is_same_file(o.path, i) {
            return Err(CliError(format!(
                "{flag} {}: is the input {} (the same file); refusing to write over an input, choose another output",
                o.path.display(),
                i.display()
            )));
        }
    }
    let special = std::fs::metadata(o.path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if !special {
        let ext = o.path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        if !ext.as_deref().is_some_and(|e| o.exts.contains(&e)) {
            let want: Vec<String> = o.exts.iter().map(|e| format!(".{e}")).collect();
            let got = match &ext {
                Some(e) => format!("`.{e}`"),
                None => "no extension".into(),
            };
            return Err(CliError(format!(
                "{flag} {}: this command writes {} here, but the file has {got}; use a {} file name",
                o.path.display(),
                o.what,
                want.join(" or ")
            )));
        }
    }
    if std::fs::metadata(o.path).is_ok_and(|m| m.is_dir()) {
        return Err(CliError::at(
            o.path.display(),
            "write",
            format!("{flag} names a directory, not a file"),
        ));
    }
    let parent = match o.path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(CliError::at(
            o.path.display(),
            "write",
            format!("the directory {} of {flag} does not exist", parent.display()),
        ));
    }
    Ok(())
}

/// `n` with its digits in groups of three separated by spaces: `2 097 152`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// A byte count for messages: `13.6 GB (13 600 000 000 bytes)` style, in binary units.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_and_bytes() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(2_097_152), "2 097 152");
        assert_eq!(grouped(2_200_001), "2 200 001");
        assert_eq!(bytes(100), "100 bytes");
        assert_eq!(bytes(64 << 20), "64.0 MiB");
        assert_eq!(bytes(3 << 29), "1.5 GiB");
    }

    #[test]
    fn a_new_output_next_to_its_input_is_the_input_only_by_name() {
        let d = std::env::temp_dir().join(format!("tilerast-output-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let input = d.join("a.svg");
        std::fs::write(&input, "x").unwrap();
        assert!(is_same_file(&input, &input));
        // The same file through `..` and a file that does not exist yet.
        let sub = d.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        assert!(is_same_file(&sub.join("../a.svg"), &input));
        assert!(!is_same_file(&d.join("b.svg"), &input));
        #[cfg(unix)]
        {
            let link = d.join("hard.svg");
            let _ = std::fs::remove_file(&link);
            std::fs::hard_link(&input, &link).unwrap();
            assert!(is_same_file(&link, &input), "a hard link is the same file");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
