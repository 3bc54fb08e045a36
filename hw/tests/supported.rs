//! `tilerast_hw::supported` is the RTL's one gate for a config: every config it accepts emits
//! (no block constructor panics on it), and every config it refuses gets one line that starts
//! with `config.<field>:` naming a real field. Random configs from the whole valid space, drawn
//! with the shared `tilerast_verif::Rng`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use tilerast_golden::config::{Config, CoverageTest, CullMode};
use tilerast_verif::Rng;

/// A random valid config (validate() passes): every knob the raster core reads.
fn random_config(r: &mut Rng) -> Config {
    loop {
        let mut c = Config::preset("default").unwrap();
        c.name = "sweep".into();
        let p2 = |r: &mut Rng, lo: u32, hi: u32| 1u32 << r.range(lo as i64, hi as i64);
        c.tile = [p2(r, 1, 8), p2(r, 1, 8)];
        c.subtile = [p2(r, 1, 8).min(c.tile[0]), p2(r, 1, 8).min(c.tile[1])];
        c.msaa = *r.pick(&[1, 2, 4, 8, 16]);
        c.quads_per_clock = *r.pick(&[1, 2, 4]);
        c.colours_per_pixel = *r.pick(&[1, 2, 4]);
        // Mostly the block size the RTL wants (second sub-tile = first), sometimes not.
        let want = 4 * c.colours_per_pixel * c.subtile[0] * c.subtile[1];
        c.colour_block_bytes = if r.below(6) == 0 { want * 2 } else { want };
        c.viewport = if r.below(4) != 0 {
            [c.tile[0] * r.range(1, 40) as u32, c.tile[1] * r.range(1, 40) as u32]
        } else {
            [r.range(1, 4096) as u32, r.range(1, 4096) as u32]
        };
        c.guard_band = r.range(0, 1024) as u32;
        c.max_point_size = r.range(1, 255) as u32;
        c.coverage_test = *r.pick(&[CoverageTest::Edge, CoverageTest::Samples, CoverageTest::BboxOnly]);
        c.cull = *r.pick(&[CullMode::None, CullMode::Cw, CullMode::Ccw]);
        c.subtiles_per_cycle = r.range(1, 4) as u32;
        if c.validate().is_ok() {
            return c;
        }
    }
}

#[test]
fn every_supported_config_emits_and_every_refusal_names_a_field() {
    let fields: Vec<String> = serde_json::to_value(Config::preset("default").unwrap())
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut r = Rng::new(0x5afe_c0f9);
    let (mut ok, mut refused) = (0, 0);
    let mut fields_named = std::collections::BTreeSet::new();
    for i in 0..48 {
        let c = random_config(&mut r);
        match tilerast_hw::supported(&c) {
            Ok(()) => {
                let v = catch_unwind(AssertUnwindSafe(|| tilerast_hw::rtl_file(&c, "test")));
                match v {
                    Ok(Ok(text)) => assert!(text.contains("module tilerast_sweep("), "config {i}: {c:?}"),
                    Ok(Err(e)) => panic!("config {i}: supported, but rtl_file refuses: {e}\n{c:?}"),
                    Err(_) => panic!("config {i}: supported, but emitting it panics\n{c:?}"),
                }
                ok += 1;
            }
            Err(e) => {
                assert!(!e.contains('\n'), "config {i}: more than one line: {e}");
                let field = e
                    .strip_prefix("config.")
                    .and_then(|s| s.split(':').next())
                    .unwrap_or_else(|| panic!("config {i}: `{e}` does not start with config.<field>:"));
                assert!(
                    fields.iter().any(|f| f == field),
                    "config {i}: `{field}` is not a config field: {e}"
                );
                fields_named.insert(field.to_string());
                refused += 1;
            }
        }
    }
    // Both outcomes happen, and the refusals are not all for one reason.
    assert!(ok >= 8 && refused >= 8, "{ok} supported, {refused} refused");
    assert!(fields_named.len() >= 2, "refusals only name {fields_named:?}");
}

#[test]
fn refusals_name_the_field_and_the_supported_range() {
    let base = Config::preset("default").unwrap();
    let cases: Vec<(Config, &str, &str)> = vec![
        (
            Config {
                viewport: [4096, 4096],
                tile: [8, 8],
                subtile: [4, 4],
                colour_block_bytes: 64,
                ..base.clone()
            },
            "config.viewport:",
            "at most 256 tiles per axis",
        ),
        (
            Config {
                quads_per_clock: 4,
                subtile: [4, 4],
                colour_block_bytes: 64,
                ..base.clone()
            },
            "config.quads_per_clock:",
            "at most 2",
        ),
        (
            Config {
                colour_block_bytes: 1024,
                ..base.clone()
            },
            "config.colour_block_bytes:",
            "colour_block_bytes = 256",
        ),
        (
            Config {
                tile: [256, 256],
                subtile: [64, 64],
                quads_per_clock: 1,
                colour_block_bytes: 16384,
                ..base.clone()
            },
            "config.subtile:",
            "at most 256 beats",
        ),
        (
            Config {
                msaa: 3,
                ..base.clone()
            },
            "config.msaa:",
            "1, 2, 4, 8, 16",
        ),
    ];
    for (c, field, range) in cases {
        let e = tilerast_hw::supported(&c).expect_err(field);
        assert!(e.starts_with(field) && e.contains(range), "{e}");
    }
    // The presets are all supported.
    for p in tilerast_golden::PRESETS {
        tilerast_hw::supported(&Config::preset(p).unwrap()).unwrap();
    }
}

/// The configs CI co-simulates on demand (`configs/*.json`, `./dev test`): every one is
/// supported and none is a preset, and together they cover every MSAA rate (2x and 8x are in no
/// preset), every quads-per-clock value, every cull mode, every coverage test, and non-square
/// tiles and sub-tiles. Removing a file that holds the only case of one of these turns this red.
#[test]
fn the_ci_config_matrix_covers_the_space_and_is_supported() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "at least six configs in {}", dir.display());
    let mut cfgs = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let c = tilerast_golden::Scene::config_from_json(&text, &f.display().to_string(), &[]).unwrap();
        tilerast_hw::supported(&c).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(
            tilerast_golden::PRESETS.iter().all(|p| Config::preset(p).unwrap()
                != Config {
                    name: p.to_string(),
                    ..c.clone()
                }),
            "{} is a preset",
            f.display()
        );
        cfgs.push(c);
    }
    for m in [1, 2, 4, 8, 16] {
        assert!(cfgs.iter().any(|c| c.msaa == m), "no config at {m}x MSAA");
    }
    for q in [1, 2, 4] {
        assert!(cfgs.iter().any(|c| c.quads_per_clock == q), "no config at Q = {q}");
    }
    for cull in [CullMode::None, CullMode::Cw, CullMode::Ccw] {
        assert!(cfgs.iter().any(|c| c.cull == cull), "no config culls {cull:?}");
    }
    for t in [CoverageTest::Edge, CoverageTest::Samples, CoverageTest::BboxOnly] {
        assert!(
            cfgs.iter().any(|c| c.coverage_test == t),
            "no config tests coverage by {t:?}"
        );
    }
    for k in 1..=4 {
        assert!(
            cfgs.iter()
                .any(|c| c.subtiles_per_cycle == k && c.coverage_test != CoverageTest::BboxOnly),
            "no config walks {k} sub-tiles per cycle"
        );
    }
    assert!(cfgs.iter().any(|c| c.tile[0] != c.tile[1]), "no non-square tile");
    assert!(
        cfgs.iter().any(|c| c.subtile[0] != c.subtile[1]),
        "no non-square sub-tile"
    );
}

/// Every block file's Verilog top has exactly the ports of the block's one signature
/// (`tilerast_golden::block_signature!`, its `BlockFile::sig`), with their directions: `clock`,
/// then the signature's inputs and outputs, none missing and none extra. The harnesses drive
/// and compare by these names, so a port the signature forgot would go unchecked.
#[test]
fn every_block_file_has_the_ports_of_its_signature() {
    let cfg = Config::preset("default").unwrap();
    for f in tilerast_hw::BLOCK_FILES {
        (f.params)(&cfg).unwrap_or_else(|e| panic!("{}: {e}", f.stage()));
        let top = f.top_name("default");
        let v = (f.verilog)(&cfg, &top);
        let body = &v[v
            .find(&format!("module {top}("))
            .unwrap_or_else(|| panic!("{top}: no module"))..];
        let decl = &body[..body.find("endmodule").unwrap()];
        let mut got: Vec<(String, &str)> = Vec::new();
        for line in decl.lines().map(str::trim) {
            let dir = if line.starts_with("input ") {
                "in"
            } else if line.starts_with("output ") {
                "out"
            } else {
                continue;
            };
            let name = line
                .trim_end_matches(';')
                .split_whitespace()
                .last()
                .unwrap()
                .to_string();
            got.push((name, dir));
        }
        let mut want: Vec<(String, &str)> = vec![("clock".to_string(), "in")];
        want.extend(f.sig.input_ports().into_iter().map(|p| (p, "in")));
        want.extend(f.sig.output_ports().into_iter().map(|p| (p, "out")));
        got.sort();
        want.sort();
        assert!(got.len() > 5, "{top}: ports not found");
        assert_eq!(
            got,
            want,
            "{}: the RTL's ports (left) are not the signature's (right)",
            f.stage()
        );
    }
}
