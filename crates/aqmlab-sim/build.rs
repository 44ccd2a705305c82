//! Records what the engine was built from, for `meta.build` in every run's summary: the git commit
//! of the checkout (if any), whether its engine sources had uncommitted changes, the cargo profile,
//! the Rust compiler's version (`$RUSTC --version`, as cargo gives it to build scripts), and a digest of the engine's sources. The digest, not the commit, identifies the build for the
//! run store: a commit that changes no engine source keeps stored runs valid.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// FNV-1a, 64 bits: enough to tell builds apart; no dependency.
fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *hash ^= u64::from(*b);
        *hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    // The workspace root by dropping components, not by joining "../..": every file's name in the
    // digest is its path relative to it, so the digest does not depend on where the checkout is.
    let workspace = crate_dir
        .ancestors()
        .nth(2)
        .expect("the crate sits at crates/aqmlab-sim")
        .to_path_buf();
    let sources = [
        crate_dir.join("src"),
        crate_dir.join("data"),
        crate_dir.join("Cargo.toml"),
        workspace.join("crates/aqmlab-py/src"),
        workspace.join("Cargo.lock"),
    ];
    let mut files = Vec::new();
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
        if source.is_dir() {
            files_under(source, &mut files);
        } else if source.is_file() {
            files.push(source.clone());
        }
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(&workspace)
                .expect("sources lie under the workspace")
                .to_string_lossy()
                .replace('\\', "/");
            (name, p)
        })
        .collect();
    named.sort();
    let mut digest = 0xcbf2_9ce4_8422_2325_u64;
    for (name, path) in &named {
        fnv1a(&mut digest, name.as_bytes());
        fnv1a(&mut digest, &[0]);
        fnv1a(&mut digest, &fs::read(path).unwrap_or_default());
        fnv1a(&mut digest, &[0]);
    }
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let mut id = 0xcbf2_9ce4_8422_2325_u64;
    for part in [
        version.as_str(),
        &format!("{digest:016x}"),
        profile.as_str(),
    ] {
        fnv1a(&mut id, part.as_bytes());
        fnv1a(&mut id, &[0]);
    }
    let commit = git(&workspace, &["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = match git(
        &workspace,
        &["status", "--porcelain", "--", "crates", "Cargo.lock"],
    ) {
        Some(s) => if s.is_empty() { "false" } else { "true" }.to_string(),
        None => "unknown".into(),
    };
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=AQMLAB_BUILD_COMMIT={commit}");
    println!("cargo:rustc-env=AQMLAB_BUILD_RUSTC={rustc_version}");
    println!("cargo:rustc-env=AQMLAB_BUILD_DIRTY={dirty}");
    println!("cargo:rustc-env=AQMLAB_BUILD_PROFILE={profile}");
    println!("cargo:rustc-env=AQMLAB_SOURCE_DIGEST={digest:016x}");
    println!("cargo:rustc-env=AQMLAB_BUILD_ID={id:016x}");
}
