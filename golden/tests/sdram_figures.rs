//! The committed SDRAM throughput table (between the `sdram-bench` markers of
//! `docs/measurements.md`, written by `cargo bench -p tilerast-golden --bench sdram --
//! --update-docs`) against the cycle model, rerun now: a figure that no longer holds goes red.
//! Every column is a cycle or command count or a ratio of them: deterministic on any machine.

#[test]
fn the_committed_sdram_figures_are_the_cycle_models() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/measurements.md");
    let text = std::fs::read_to_string(&path).expect("docs/measurements.md");
    let begin = "<!-- sdram-bench:begin -->\n";
    let a = text.find(begin).expect("the sdram-bench markers") + begin.len();
    let b = text
        .find("<!-- sdram-bench:end -->")
        .expect("the sdram-bench end marker");
    let now = tilerast_golden::sdram_controller::throughput_table().unwrap();
    assert_eq!(
        &text[a..b],
        now,
        "docs/measurements.md: the SDRAM throughput table is stale; rerun \
         `cargo bench -p tilerast-golden --bench sdram -- --update-docs`"
    );
    // Activity: sequential traffic hits open rows, random traffic opens a row per word.
    let rows: Vec<&str> = now.lines().skip(2).collect();
    assert_eq!(rows.len(), 4);
    let words_per_cycle = |l: &str| l.split('|').nth(6).unwrap().trim().parse::<f64>().unwrap();
    assert!(
        words_per_cycle(rows[0]) > 0.45 && words_per_cycle(rows[0]) <= 0.5,
        "{}",
        rows[0]
    );
    assert!(words_per_cycle(rows[3]) < words_per_cycle(rows[0]) / 2.0, "{}", rows[3]);
}
