//! Cores verilated on demand (`tilerast_cosim::ondemand`): a config that is no preset is emitted,
//! verilated, compiled once and cached by content hash, then co-simulated like a preset's core.
//! (The planted-bug test of an on-demand core is in `raster_core.rs`, next to its predictor.)

use std::time::Duration;
use tilerast_cosim::ondemand;
use tilerast_cosim::regress::{self, RunCfg};
use tilerast_golden::config::{CoverageTest, CullMode};
use tilerast_golden::{Config, PRESETS};

fn custom() -> Config {
    let mut c = Config::preset("ice40").unwrap();
    c.msaa = 8;
    c.quads_per_clock = 2;
    c.cull = CullMode::Ccw;
    c.coverage_test = CoverageTest::Samples;
    c.name = "od_msaa8".into();
    c
}

#[test]
fn a_non_preset_config_is_built_once_then_cached_and_matches_the_model() {
    let cfg = custom();
    assert!(PRESETS.iter().all(|p| Config::preset(p).unwrap() != cfg));
    let mut lines = Vec::new();
    let a = ondemand::model_for(&cfg, "cosim/tests/ondemand.rs", &mut |l| lines.push(l.to_string())).unwrap();
    // Built now or by an earlier run; either way a second call is a cache hit with the same name,
    // and a different command line in the header does not change the key.
    let b = ondemand::model_for(&cfg, "another command", &mut |l| lines.push(l.to_string())).unwrap();
    assert!(!b.fresh, "second call loads the cached model");
    assert_eq!(a.model, b.model);
    assert!(a.dir.as_ref().unwrap().join("model.so").exists());
    assert_eq!(regress::model_config(&a.model), Some(cfg.clone()));
    // A different config is a different model.
    let mut other = cfg.clone();
    other.cull = CullMode::Cw;
    let c = ondemand::model_for(&other, "x", &mut |_| {}).unwrap();
    assert_ne!(c.model, a.model);

    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ondemand-regress");
    let run = RunCfg {
        model: a.model.clone(),
        count: 400,
        seed: 7,
        chunk: 200,
        shard: (1, 1),
        out_dir: dir,
        shrink_budget: Duration::from_secs(5),
        keep_going: false,
    };
    let st = regress::run(&run, |_| {});
    assert!(st.failures.is_empty(), "{}", st.failures[0]);
    assert_eq!((st.chunks, st.prims), (2, 400));
    assert!(
        st.quads > 1000 && st.samples > st.quads,
        "activity: {} quads {} samples",
        st.quads,
        st.samples
    );
}

#[test]
fn a_preset_config_uses_the_compiled_in_model_and_unsupported_configs_are_refused() {
    let p = Config::preset("default").unwrap();
    let b = ondemand::model_for(&p, "x", &mut |_| panic!("no tool runs for a preset")).unwrap();
    assert_eq!((b.model.as_str(), b.dir.is_none()), ("default", true));
    let mut wide = Config::preset("ice40").unwrap();
    wide.quads_per_clock = 4; // more lanes than half the 4-pixel sub-tile width
    wide.name = "wide".into();
    assert!(wide.validate().is_ok(), "valid for the golden model");
    let e = ondemand::model_for(&wide, "x", &mut |_| panic!("refused before any tool")).unwrap_err();
    assert!(e.starts_with("config.quads_per_clock:"), "{e}");
}
