//! The engine's modules form layers (docs/architecture.md, "Engine layers"): a top-level module
//! may use only modules of lower layers, so there is no dependency cycle between them. This test
//! reads every `crate::…` path in `src/**/*.rs` (unit tests included, comments not) and fails on a
//! use that goes sideways or up, or on a top-level module that no layer names. Inside `sim/` the
//! run's parts form layers too, read from the `super::…` and `crate::sim::…` paths of its files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Lowest first; the same diagram as docs/architecture.md.
const LAYERS: &[&[&str]] = &[
    &["units", "cache", "rounding"],
    &["rng", "packet"],
    &["event", "queue", "tcp", "pcap"],
    &["measure", "traffic", "routing"],
    &["network"],
    &["report", "schema"],
    &["scenario"],
    &["sim"],
];

/// The layers inside `sim/` (docs/architecture.md, "Engine layers"), lowest first: the run's
/// parts, each using only the parts below it, then the hub that owns them (`mod.rs`, here `mod`)
/// and the report built from a finished run. A file in a part's folder (`sim/apps/web.rs`) is
/// that part.
const SIM_LAYERS: &[&[&str]] = &[
    &["plan", "measurement", "capture", "hops"],
    &["network"],
    &["tcp"],
    &["apps"],
    &["mod"],
    &["report"],
];

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text without `//` comments (doc links name modules without depending on them).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segment of each item a `crate::` path names: `crate::queue::Red` → `queue`;
/// `crate::{Scenario, units::Time}` → `Scenario`, `units`.
fn crate_roots(text: &str) -> Vec<String> {
    path_roots(text, "crate::")
}

/// [`crate_roots`] for the paths that start with `prefix` (`crate::`, `super::`, `crate::sim::`).
fn path_roots(text: &str, prefix: &str) -> Vec<String> {
    let mut roots = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `aqmlab_sim::…` in a doc test is not `crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            // The top-level names of a brace group (nested groups belong to their name).
            let (mut depth, mut word, mut at_start) = (0, String::new(), true);
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        if !word.is_empty() {
                            roots.push(std::mem::take(&mut word));
                        }
                        at_start = true;
                    }
                    c if depth == 0 && at_start && (c.is_alphanumeric() || c == '_') => {
                        word.push(c)
                    }
                    _ if depth == 0 && at_start && !word.is_empty() => {
                        roots.push(std::mem::take(&mut word));
                        at_start = false;
                    }
                    _ => {}
                }
            }
            if !word.is_empty() {
                roots.push(word);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            roots.push(name);
        }
    }
    roots
}

/// The modules `lib.rs` re-exports names from: `pub use report::{Column, Report}` maps `Column`
/// and `Report` to `report`.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        for name in names.trim_end_matches(';').split(|c| "{}, ".contains(c)) {
            if !name.is_empty() {
                map.insert(name.to_string(), module.to_string());
            }
        }
    }
    map
}

/// The part of `sim/` each item a `sim/` file names by `super::` (a file directly in `sim/`) or
/// `crate::sim::` belongs to: a submodule of `sim` is itself, a name `mod.rs` re-exports
/// (`reexported`) is its module's, any other name is the hub's (`mod`). Globs (`super::*` in a
/// file's unit tests) name nothing.
fn sim_parts(text: &str, in_sim_dir: bool, reexported: &BTreeMap<String, String>) -> Vec<String> {
    let mut roots = path_roots(text, "crate::sim::");
    if in_sim_dir {
        roots.extend(path_roots(text, "super::"));
    }
    roots
        .into_iter()
        .filter(|r| !r.is_empty() && r != "super")
        .map(|r| {
            if let Some(module) = reexported.get(&r) {
                module.clone()
            } else if r.chars().all(|c| c.is_lowercase() || c == '_') {
                r
            } else {
                "mod".to_string()
            }
        })
        .collect()
}

/// Part of `sim/` → the other parts it uses (the hub, `mod.rs`, is `mod`).
fn sim_graph() -> BTreeMap<String, BTreeSet<String>> {
    let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim");
    let hub = fs::read_to_string(sim.join("mod.rs")).expect("sim/mod.rs");
    let reexported = reexports(&hub);
    let mut files = Vec::new();
    source_files(&sim, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&sim).expect("under sim");
        let in_sim_dir = relative.components().count() == 1;
        let first = relative.components().next().expect("a path");
        let part = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let text = without_comments(&fs::read_to_string(&file).expect("readable source"));
        let uses = graph.entry(part.clone()).or_default();
        for used in sim_parts(&text, in_sim_dir, &reexported) {
            if used != part {
                uses.insert(used);
            }
        }
    }
    graph
}

/// Top-level module → the other top-level modules it uses.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let reexported = reexports(&lib);
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src");
        let first = relative.components().next().expect("a path");
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "lib" {
            continue;
        }
        let text = without_comments(&fs::read_to_string(&file).expect("readable source"));
        let uses = graph.entry(module.clone()).or_default();
        for root in crate_roots(&text) {
            let target = reexported.get(&root).cloned().unwrap_or(root);
            // Names defined in lib.rs itself (`VERSION`, `BUILD`, `Build`) are no module.
            if target != module && target.chars().all(|c| c.is_lowercase() || c == '_') {
                uses.insert(target);
            }
        }
    }
    graph
}

/// What breaks the layers `layers` in `graph` (module → the modules it uses): a module in no
/// layer, or a use of a module not below it. `what` names a module in the messages.
fn violations(
    graph: &BTreeMap<String, BTreeSet<String>>,
    layers: &[&[&str]],
    what: impl Fn(&str) -> String,
) -> Vec<String> {
    let layer_of = |m: &str| layers.iter().position(|layer| layer.contains(&m));
    let mut wrong = Vec::new();
    for (module, uses) in graph {
        let Some(own) = layer_of(module) else {
            wrong.push(format!(
                "{} is in no layer (add it to the layers and the docs)",
                what(module)
            ));
            continue;
        };
        for used in uses {
            let (m, u) = (what(module), what(used));
            match layer_of(used) {
                Some(l) if l < own => {}
                Some(_) => wrong.push(format!("{m} uses {u}, not below it")),
                None => wrong.push(format!("{m} uses {u}, which is in no layer")),
            }
        }
    }
    wrong
}

#[test]
fn every_module_uses_only_lower_layers() {
    let wrong = violations(&module_graph(), LAYERS, str::to_string);
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

#[test]
fn the_scan_sees_the_engine_and_its_uses() {
    // A scan that found nothing would pass vacuously.
    let graph = module_graph();
    let listed: BTreeSet<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    let found: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    assert_eq!(
        found, listed,
        "every layer's module exists and every module has a layer"
    );
    assert!(graph["sim"].contains("scenario") && graph["sim"].contains("report"));
    assert!(graph["network"].contains("queue"));
    assert_eq!(
        crate_roots("use crate::{Scenario,rng, units::{Rate, Time}};\nx = crate::tcp::State::A;"),
        ["Scenario", "rng", "units", "tcp"]
    );
}

#[test]
fn every_part_of_the_simulation_uses_only_lower_parts() {
    let wrong = violations(&sim_graph(), SIM_LAYERS, |part| format!("sim/{part}"));
    assert!(
        wrong.is_empty(),
        "layering of sim/ broken:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_the_simulations_parts_and_their_uses() {
    let graph = sim_graph();
    let listed: BTreeSet<&str> = SIM_LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    let found: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    assert_eq!(
        found, listed,
        "every layer's part exists in sim/ and every file there has a layer"
    );
    assert!(graph["apps"].contains("tcp") && graph["apps"].contains("measurement"));
    assert!(graph["tcp"].contains("network") && graph["network"].contains("capture"));
    assert!(graph["report"].contains("mod") && graph["report"].contains("measurement"));
    // A use going up is found, and so is a file in no layer.
    let up = BTreeMap::from([
        ("tcp".to_string(), BTreeSet::from(["apps".to_string()])),
        ("extra".to_string(), BTreeSet::new()),
    ]);
    assert_eq!(
        violations(&up, SIM_LAYERS, |part| format!("sim/{part}")),
        [
            "sim/extra is in no layer (add it to the layers and the docs)",
            "sim/tcp uses sim/apps, not below it"
        ]
    );
    // What a path names: a part, a name the hub re-exports from a part, or the hub's own item.
    let reexported = reexports("pub use measurement::{RequestRow, TraceRow};");
    let parts = |text: &str, in_sim_dir: bool| sim_parts(text, in_sim_dir, &reexported);
    assert_eq!(
        parts(
            "use super::{tcp::TcpTraffic, RequestRow, Simulation};",
            true
        ),
        ["tcp", "measurement", "mod"]
    );
    assert_eq!(
        parts("use super::{Apps, Below};", false),
        Vec::<String>::new()
    );
    assert_eq!(
        parts("use crate::sim::network::Network; use super::*;", true),
        ["network"]
    );
}
