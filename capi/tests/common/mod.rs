//! Helpers shared by the C ABI's tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The C ABI's static library (this crate's), built (a no-op when fresh) in the profile of the
/// test binary that calls it (these tests, and `tests/dpi.rs` at the root): `cargo test` builds
/// only the Rust library the tests link. (`--lib --tests`: the features resolved as `cargo test`
/// resolved them, so that the library the tests were built with is the one given, should the
/// crate gain dev-dependencies.)
pub fn staticlib() -> PathBuf {
    let dir = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(["build", "-q", "-p", "capfc-capi", "--lib", "--tests"]);
    if dir.file_name().is_some_and(|n| n == "release") {
        c.arg("--release");
    }
    assert!(c.status().expect("cargo runs").success());
    let lib = dir.join("libcapfc_capi.a");
    assert!(lib.exists(), "{} missing", lib.display());
    lib
}
