//! Benchmark: the SDRAM controller's throughput (`SdramControllerCycle`, which the RTL equals
//! every cycle, with the chip model behind its pins) on four request patterns, for every board
//! with a frame row: 32-bit words per controller clock, MB/s at the board's SDRAM clock, row
//! hits, ACTIVE and AUTO REFRESH commands.
//!
//! `cargo bench -p tilerast-golden --bench sdram` prints the table; `-- --update-docs` also
//! rewrites it between the `sdram-bench` markers of `docs/measurements.md`, which
//! `golden/tests/sdram_figures.rs` holds to the model.

const DOC: &str = "docs/measurements.md";

fn main() {
    let table = tilerast_golden::sdram_controller::throughput_table().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    print!("{table}");
    if std::env::args().any(|a| a == "--update-docs") {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(DOC);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("error: {DOC}: {e}");
            std::process::exit(1)
        });
        let (begin, end) = ("<!-- sdram-bench:begin -->\n", "<!-- sdram-bench:end -->");
        let (Some(a), Some(b)) = (text.find(begin), text.find(end)) else {
            eprintln!("error: {DOC}: no `sdram-bench` markers");
            std::process::exit(1)
        };
        let new = format!("{}{begin}{table}{}", &text[..a], &text[b..]);
        std::fs::write(&path, new).unwrap_or_else(|e| {
            eprintln!("error: {DOC}: {e}");
            std::process::exit(1)
        });
        println!("wrote {DOC}");
    }
}
