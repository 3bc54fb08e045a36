//! Checks `.github/workflows/regress.yml`, the long sharded regression on GitHub's runners,
//! without GitHub: the YAML and the workflow schema's parts it uses (jobs, steps, actions pinned
//! to a major version, `needs`), every `${{ }}` expression's references, the matrix against the
//! presets and the shard count, every `tilerast` command parsed by this tool's own argument
//! parser for every matrix entry, the shards of each sharded job ([`SHARDED`]: the raster core's
//! 10^7 primitives per preset, the whole frame's 2 * 10^4) covering each preset exactly once (the
//! chunk arithmetic of `tilerast_cosim::regress::shard_chunks`), and the artifacts the summary
//! job downloads and merges. (actionlint, the usual checker, is not installable on the
//! machines this project's CI runs on; this is the part of its job that concerns us, plus what
//! only this tool can check: its own command lines.)

use crate::{Cli, Cmd};
use clap::Parser;
use serde_yaml::{Mapping, Value};
use std::collections::{BTreeMap, BTreeSet};
use tilerast_cosim::regress::{shard_chunks, RunCfg};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../.github/workflows/regress.yml");
/// The sharded jobs: (job, env key of the primitives per preset, env key of the shard count,
/// primitives each preset must get over all shards, `--frame`).
const SHARDED: [(&str, &str, &str, u64, bool); 2] = [
    ("regress", "COUNT", "SHARDS", 10_000_000, false),
    ("regress-frame", "FRAME_COUNT", "FRAME_SHARDS", 20_000, true),
];

fn workflow() -> Value {
    let text = std::fs::read_to_string(FILE).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{FILE}: {e}"))
}

fn map<'a>(v: &'a Value, what: &str) -> &'a Mapping {
    v.as_mapping().unwrap_or_else(|| panic!("{what}: expected a mapping"))
}

fn get<'a>(m: &'a Mapping, k: &str, what: &str) -> &'a Value {
    m.get(k).unwrap_or_else(|| panic!("{what}: no `{k}`"))
}

fn keys(m: &Mapping) -> BTreeSet<String> {
    m.keys().map(|k| k.as_str().expect("string keys").to_string()).collect()
}

fn subset(m: &Mapping, allowed: &[&str], what: &str) {
    for k in keys(m) {
        assert!(allowed.contains(&k.as_str()), "{what}: unknown key `{k}`");
    }
}

/// Every `${{ … }}` of a string, trimmed.
fn expressions(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${{") {
        let j = rest[i..].find("}}").expect("unclosed ${{") + i;
        out.push(rest[i + 3..j].trim().to_string());
        rest = &rest[j + 2..];
    }
    out
}

/// The identifiers an expression reads (`matrix.preset`, `github.event.inputs.seed`, …).
fn references(e: &str) -> Vec<String> {
    let mut refs = Vec::new();
    let mut cur = String::new();
    let mut in_str = false;
    for c in e.chars().chain([' ']) {
        if c == '\'' {
            in_str = !in_str;
            continue;
        }
        if in_str {
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
            cur.push(c);
        } else {
            if cur.contains('.') && !cur.starts_with(|c: char| c.is_ascii_digit()) {
                refs.push(cur.clone());
            }
            cur.clear();
        }
    }
    refs
}

/// All strings of a YAML value (scalars, recursively).
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Sequence(s) => s.iter().for_each(|x| strings(x, out)),
        Value::Mapping(m) => m.iter().for_each(|(k, x)| {
            strings(k, out);
            strings(x, out)
        }),
        _ => {}
    }
}

/// A run line with the matrix entry, the inputs' defaults and the workflow env substituted,
/// split into words as the shell would (no globbing, quotes removed).
fn expand(cmd: &str, matrix: &BTreeMap<String, String>, env: &BTreeMap<String, String>) -> Vec<String> {
    let mut s = cmd.to_string();
    for e in expressions(cmd) {
        let v = if let Some(k) = e.strip_prefix("matrix.") {
            matrix[k].clone()
        } else if e == "github.event.inputs.seed || '1'" {
            "1".into()
        } else {
            panic!("{FILE}: unexpected expression in a command: {e}")
        };
        s = s.replace(&format!("${{{{ {e} }}}}"), &v);
    }
    for (k, v) in env {
        s = s.replace(&format!("\"${k}\""), v).replace(&format!("${k}"), v);
    }
    s.replace('"', "").split_whitespace().map(str::to_string).collect()
}

fn steps(job: &Mapping, name: &str) -> Vec<Mapping> {
    get(job, "steps", name)
        .as_sequence()
        .unwrap_or_else(|| panic!("{name}: steps must be a list"))
        .iter()
        .map(|s| map(s, name).clone())
        .collect()
}

fn step_named<'a>(steps: &'a [Mapping], name: &str) -> &'a Mapping {
    steps
        .iter()
        .find(|s| s.get("name").and_then(Value::as_str) == Some(name))
        .unwrap_or_else(|| panic!("{FILE}: no step named `{name}`"))
}

#[test]
fn regress_workflow_is_well_formed_and_covers_every_preset_exactly() {
    let w = workflow();
    let top = map(&w, FILE);
    subset(top, &["name", "on", "env", "jobs"], FILE);
    let on = map(get(top, "on", FILE), "on");
    let inputs: BTreeSet<String> = on
        .get("workflow_dispatch")
        .and_then(|d| d.get("inputs"))
        .map(|i| keys(map(i, "inputs")))
        .unwrap_or_default();
    let env: BTreeMap<String, String> = map(get(top, "env", FILE), "env")
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().unwrap().to_string(),
                v.as_str().expect("env values are strings").to_string(),
            )
        })
        .collect();
    let jobs = map(get(top, "jobs", FILE), "jobs");
    let job_names = keys(jobs);
    assert_eq!(
        job_names,
        ["regress", "regress-frame", "summary"].map(String::from).into()
    );

    let known_actions = [
        "actions/checkout",
        "actions/cache",
        "actions/upload-artifact",
        "actions/download-artifact",
    ];
    for (name, job) in jobs {
        let name = name.as_str().unwrap();
        let job = map(job, name);
        subset(
            job,
            &[
                "name",
                "runs-on",
                "timeout-minutes",
                "strategy",
                "needs",
                "if",
                "steps",
                "env",
            ],
            name,
        );
        assert!(get(job, "runs-on", name)
            .as_str()
            .is_some_and(|r| r.starts_with("ubuntu-")));
        if let Some(n) = job.get("needs") {
            let needs: Vec<&str> = match n.as_sequence() {
                Some(list) => list.iter().map(|v| v.as_str().unwrap()).collect(),
                None => vec![n.as_str().unwrap()],
            };
            for n in needs {
                assert!(job_names.contains(n), "{name}: needs an unknown job `{n}`");
            }
        }
        let matrix_keys: BTreeSet<String> = job
            .get("strategy")
            .and_then(|s| s.get("matrix"))
            .map(|m| keys(map(m, "matrix")))
            .unwrap_or_default();
        let st = steps(job, name);
        assert!(!st.is_empty(), "{name}: no steps");
        for s in &st {
            subset(s, &["name", "uses", "run", "with", "if", "env", "id"], name);
            assert!(
                s.contains_key("uses") != s.contains_key("run"),
                "{name}: a step has exactly one of uses / run"
            );
            if let Some(u) = s.get("uses").and_then(Value::as_str) {
                let (action, version) = u
                    .split_once('@')
                    .unwrap_or_else(|| panic!("{name}: `{u}` is not pinned"));
                assert!(known_actions.contains(&action), "{name}: unexpected action {action}");
                let major: u32 = version.strip_prefix('v').and_then(|v| v.parse().ok()).unwrap_or(0);
                assert!(major >= 4, "{name}: {u}: pin a current major version (v4 or later)");
            }
        }
        // Every expression reads only what exists.
        let mut all = Vec::new();
        strings(&Value::Mapping(job.clone()), &mut all);
        for s in &all {
            for e in expressions(s) {
                for r in references(&e) {
                    let ok = r
                        .strip_prefix("matrix.")
                        .map(|k| matrix_keys.contains(k))
                        .or_else(|| r.strip_prefix("github.event.inputs.").map(|k| inputs.contains(k)))
                        .unwrap_or(r == "runner.os");
                    assert!(ok, "{name}: `${{{{ {e} }}}}` reads `{r}`, which does not exist here");
                }
            }
            for (k, _) in env.iter().filter(|(k, _)| s.contains(&format!("${k}"))) {
                assert!(env.contains_key(k));
            }
        }
    }

    let mut artifacts = BTreeSet::new();
    for job in SHARDED {
        artifacts.extend(sharded_job(jobs, job, &env));
    }

    // The summary job: after every shard, even failed ones; downloads them all; merges.
    let summary = map(get(jobs, "summary", "jobs"), "summary");
    let needs: Vec<&str> = get(summary, "needs", "summary")
        .as_sequence()
        .expect("the summary job needs every sharded job")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(needs, SHARDED.map(|j| j.0), "the summary job needs every sharded job");
    assert_eq!(get(summary, "if", "summary").as_str(), Some("always()"));
    let st = steps(summary, "summary");
    let dl = st
        .iter()
        .find(|s| {
            s.get("uses")
                .and_then(Value::as_str)
                .is_some_and(|u| u.starts_with("actions/download-artifact"))
        })
        .expect("downloads the shards' artifacts");
    let pattern = get(map(get(dl, "with", "download"), "with"), "pattern", "download")
        .as_str()
        .unwrap();
    let prefix = pattern.strip_suffix('*').expect("a prefix pattern");
    assert!(
        artifacts.iter().all(|a| a.starts_with(prefix)),
        "the pattern matches every artifact"
    );
    let merge = get(step_named(&st, "Merge the shards"), "run", "run").as_str().unwrap();
    let line = merge.lines().next().unwrap();
    let words: Vec<&str> = line.split('|').next().unwrap().split_whitespace().collect();
    assert_eq!(words[0], "target/release/tilerast");
    let cli = Cli::try_parse_from(std::iter::once("tilerast").chain(words[1..].iter().copied())).unwrap();
    let Cmd::Regress(a) = cli.cmd else {
        panic!("merge is `tilerast regress --merge`")
    };
    assert_eq!(a.merge.len(), 1);
    assert!(
        merge.contains("GITHUB_STEP_SUMMARY") && merge.contains("PIPESTATUS"),
        "table on the run page, exit status kept"
    );
}

/// One sharded job of [`SHARDED`]: its matrix (every preset, shards 1..=N), every matrix entry's
/// command through the tool's own parser, the shards covering each preset's primitives exactly
/// once; returns its artifact names.
fn sharded_job(
    jobs: &Mapping,
    spec: (&str, &str, &str, u64, bool),
    env: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let (job, count_key, shards_key, per_preset, frame) = spec;
    // The matrix: every preset, shards 1..=N.
    let regress = map(get(jobs, job, "jobs"), job);
    let matrix = map(
        get(
            map(get(regress, "strategy", "regress"), "strategy"),
            "matrix",
            "strategy",
        ),
        "matrix",
    );
    let presets: Vec<String> = get(matrix, "preset", "matrix")
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(presets, tilerast_golden::PRESETS, "one matrix entry per preset");
    let n: u64 = env[shards_key].parse().unwrap();
    assert_eq!(env[count_key].parse::<u64>().unwrap(), per_preset, "{job}: {count_key}");
    let shards: Vec<u64> = get(matrix, "shard", "matrix")
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(shards, (1..=n).collect::<Vec<_>>(), "{job}: shards 1..={shards_key}");
    let name = get(regress, "name", job).as_str().unwrap();
    assert!(name.ends_with(&format!("/{n}")), "the job name shows the shard count");

    // Every job's command, through the tool's own parser; the shards cover each preset exactly.
    let st = steps(regress, job);
    let cmd = get(step_named(&st, "Regress one shard"), "run", "run")
        .as_str()
        .unwrap();
    let upload = step_named(&st, "Upload summary and failing cases");
    let with = map(get(upload, "with", "upload"), "with");
    let mut artifacts = BTreeSet::new();
    let mut chunk = 0;
    for p in &presets {
        let mut covered: BTreeMap<u64, u32> = BTreeMap::new();
        let mut prims = 0;
        for k in &shards {
            let m: BTreeMap<String, String> =
                [("preset".to_string(), p.clone()), ("shard".to_string(), k.to_string())].into();
            let mut words = expand(cmd, &m, env);
            assert_eq!(words[0], "target/release/tilerast");
            words[0] = "tilerast".into();
            let cli = Cli::try_parse_from(&words).unwrap_or_else(|e| panic!("{FILE}: {words:?}: {e}"));
            let Cmd::Regress(a) = cli.cmd else {
                panic!("{words:?} is not `tilerast regress`")
            };
            assert_eq!(a.preset.as_deref(), Some(p.as_str()));
            assert_eq!(a.frame, frame, "{job}: --frame");
            assert_eq!(a.count, per_preset);
            let shard = (*k, n);
            assert_eq!(a.shard.as_deref(), Some(format!("{k}/{n}").as_str()));
            let summary = a.summary_json.expect("every shard writes its summary");
            assert!(
                summary.starts_with(&a.out),
                "the summary is inside the uploaded directory"
            );
            let file = summary.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                file.starts_with("summary-") && file.ends_with(".json"),
                "matches the merge glob"
            );
            assert_eq!(
                get(with, "path", "with").as_str().unwrap().trim_end_matches('/'),
                a.out.to_str().unwrap()
            );
            chunk = a.chunk;
            let run = RunCfg {
                model: p.clone(),
                count: a.count,
                seed: a.seed,
                chunk: a.chunk,
                shard,
                out_dir: a.out.clone(),
                shrink_budget: Default::default(),
                keep_going: false,
            };
            for (i, _, len) in shard_chunks(&run) {
                *covered.entry(i).or_default() += 1;
                prims += len;
            }
            let art = get(with, "name", "with").as_str().unwrap();
            artifacts.insert(expand(art, &m, env).join(" "));
        }
        assert_eq!(prims, per_preset, "{job} {p}: primitives over all shards");
        assert!(
            covered.values().all(|&c| c == 1),
            "{job} {p}: a chunk runs in two shards"
        );
        assert_eq!(
            covered.len() as u64,
            per_preset.div_ceil(chunk),
            "{job} {p}: every chunk runs"
        );
    }
    assert_eq!(
        artifacts.len(),
        presets.len() * shards.len(),
        "{job}: artifact names are unique"
    );
    artifacts
}

/// The merge the summary job runs: complete clean shards pass with their sums; a missing shard
/// or a mismatch fails with one line naming it.
#[test]
fn merge_sums_shards_and_names_missing_ones_and_mismatches() {
    let d = std::env::temp_dir().join(format!("tilerast-merge-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let write = |k: u64, prims: u64, mismatches: u64| {
        let p = d.join(format!("summary-ice40-{k}.json"));
        let failures: Vec<serde_json::Value> = (0..mismatches)
            .map(|_| serde_json::json!({"chunk": k, "failure": "cycle 9: out__valid", "scene": "x.json"}))
            .collect();
        let v = serde_json::json!({
            "tilerast_regress_summary": 1, "preset": "ice40", "model": "ice40", "seed": 1,
            "count": 3000, "chunk": 1000, "shard": [k, 3], "chunks": prims / 1000, "primitives": prims,
            "commands": prims, "quads": 10 * prims, "samples": 40 * prims, "cycles": 100 * prims,
            "flushes": 1, "mismatches": mismatches, "failures": failures, "wall_secs": 60.0,
        });
        std::fs::write(&p, v.to_string()).unwrap();
        p
    };
    let files: Vec<_> = (1..=3).map(|k| write(k, 1000, 0)).collect();
    let mut out = Vec::new();
    crate::regress::merge(&files, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("| raster | ice40 | ice40 | 1 | 3/3 | 3000 | 30000 | 120000 | — | 300000 | 0 | 3.0 min |"),
        "{text}"
    );
    assert!(text.contains("verdict: PASS"), "{text}");
    // The whole frame's shards: a row of their own beside the raster core's, bytes summed.
    let frame = |k: u64| {
        let p = d.join(format!("summary-frame-ice40-{k}.json"));
        let v = serde_json::json!({
            "tilerast_regress_summary": 1, "mode": "frame", "preset": "ice40", "model": "ice40",
            "seed": 1, "count": 40, "chunk": 20, "shard": [k, 2], "chunks": 1, "primitives": 20,
            "quads": 500, "bytes": 7000, "cycles": 60000, "mismatches": 0, "failures": [],
            "wall_secs": 30.0,
        });
        std::fs::write(&p, v.to_string()).unwrap();
        p
    };
    let mut both = files.clone();
    both.extend([frame(1), frame(2)]);
    let mut out = Vec::new();
    crate::regress::merge(&both, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("| frame | ice40 | ice40 | 1 | 2/2 | 40 | 1000 | — | 14000 | 120000 | 0 | 1.0 min |"),
        "{text}"
    );
    assert!(text.contains("| raster | ice40 |"), "{text}");
    let e = crate::regress::merge(&both[..4], &mut Vec::new()).unwrap_err().0;
    assert!(e.contains("frame ice40 seed 1: shard(s) 2 of 2 missing"), "{e}");
    let e = crate::regress::merge(&files[..2], &mut Vec::new()).unwrap_err().0;
    assert!(e.contains("shard(s) 3 of 3 missing"), "{e}");
    let bad = [files[0].clone(), files[1].clone(), write(3, 1000, 1)];
    let mut out = Vec::new();
    let e = crate::regress::merge(&bad, &mut out).unwrap_err().0;
    assert!(e.contains("1 mismatch"), "{e}");
    assert!(String::from_utf8(out)
        .unwrap()
        .contains("- raster ice40 shard 3/3 chunk 3: cycle 9: out__valid (scene x.json)"));
    let e = crate::regress::merge(
        &[files[0].clone(), files[0].clone(), files[1].clone(), files[2].clone()],
        &mut Vec::new(),
    )
    .unwrap_err()
    .0;
    assert!(e.contains("shard(s) 1 of 3 given twice"), "{e}");
}
