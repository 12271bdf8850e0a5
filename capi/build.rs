//! Generates `include/capfc.h` from the C ABI with cbindgen (rewritten only when it changes, so
//! that a checked-in header stays untouched by an unchanged build).

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml"))
        .expect("capi/cbindgen.toml reads");
    let header = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let path = format!("{dir}/include/capfc.h");
    let mut text = Vec::new();
    header.write(&mut text);
    if std::fs::read(&path).ok().as_deref() != Some(&text[..]) {
        std::fs::write(&path, &text).expect("include/capfc.h writes");
    }
}
