//! The engine's modules form layers (docs/architecture.md, "Engine layers"): a top-level module
//! may use only modules of lower layers, so there is no dependency cycle between them. This test
//! reads every `crate::…` path in `src/**/*.rs` (unit tests included, comments not) and fails on a
//! use that goes sideways or up, or on a top-level module that no layer names.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Lowest first; the same diagram as docs/architecture.md.
const LAYERS: &[&[&str]] = &[
    &["units", "cache", "rounding"],
    &["rng", "packet"],
    &["event", "queue", "tcp", "pcap"],
    &["measure", "traffic"],
    &["network"],
    &["report", "schema"],
    &["scenario"],
    &["sim"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

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
    let mut roots = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
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

#[test]
fn every_module_uses_only_lower_layers() {
    let graph = module_graph();
    let mut wrong = Vec::new();
    for (module, uses) in &graph {
        let Some(own) = layer_of(module) else {
            wrong.push(format!(
                "{module} is in no layer (add it to LAYERS and the docs)"
            ));
            continue;
        };
        for used in uses {
            match layer_of(used) {
                Some(l) if l < own => {}
                Some(_) => wrong.push(format!("{module} uses {used}, not below it")),
                None => wrong.push(format!("{module} uses {used}, which is in no layer")),
            }
        }
    }
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
